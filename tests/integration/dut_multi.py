#!/usr/bin/env python3
"""Several devices under test in one experiment (duts:, the matrix axis dut, parallel: duts),
with the real parts: two DUT namespaces, each running Debian's OpenSSH server (dut_helpers.Dut),
reached from one controller namespace by `netab experiment run` over the system's ssh client.

Each DUT boots its own simulated kernels (its boot script and identity file; the variant's boot
command finds its DUT's script through NETAB_DUT). Checks:

1. sequential (the default): every run ok on the DUT of its cell, its recorded DUT name and
   identity those of that DUT and variant, each DUT's boots exactly where its own next run needs
   another kernel (so each DUT's plan is its own), no two runs overlapping in time, and the
   report's headline has the DUTs as columns (text, Markdown, HTML and JSON), and so has
   `--cell`'s table, a row per variant, each DUT's entry "tcp S/R cpu C%";
2. parallel: duts: the same results, runs of the two DUTs overlapping in time (by their recorded
   start and finish), each DUT's runs one at a time in plan order, the report saying the DUTs ran
   concurrently; both wall times printed (not asserted: a shared machine's clock proves nothing);
3. one run at a time with d2 refusing the key: its runs fail and stop after three, d1's all
   complete, the campaign exits 1 naming d2; `runs list` shows each run's DUT;
   one DUT killed (every process in its namespace) mid-campaign under parallel: duts: its runs
   fail and stop after three, the other DUT's all complete, the campaign exits 1 naming the DUT;
   then the DUT comes back and `experiment resume` completes the plan with no run twice;
4. SIGTERM to a parallel controller alone: it forwards the signal, its workers record their runs
   as interrupted and nothing stays 'running'; kill -9 of one: its workers die with it; resume
   completes the plan with exactly one ok run per planned seq.
"""
import json
import os
import re
import signal
import sqlite3
import tempfile
import time
from datetime import datetime

from dut_helpers import SSHD, Dut, NetnsStar
from netab_helpers import (check, check_eq, netab_cmd, need_tools, require_root_netns, run_main,
                           sh, start)

NAMES = ("d1", "d2")


def experiment_text(duts, netab, base, name, runs, parallel, boot_timeouts=(30, 30), keys=()):
    text = f"name: {name}\nruns: {runs}\nwarmup: 0\nseed: 5\n"
    if parallel:
        text += "parallel: duts\n"
    text += "duts:\n"
    for i, (dname, dut) in enumerate(zip(NAMES, duts)):
        opts = " ".join(f'"{o}"' for o in dut.ssh_opts(keys[i] if i < len(keys) else None))
        text += f"""  - name: {dname}
    ssh: {dut.dest()}
    ssh_opts: '{opts}'
    netab: {netab}
    identity: cat {dut.ident}
    boot_timeout: {boot_timeouts[i]}
"""
    text += "test:\n  time: 0.3\n  interval: 0\nvariants:\n"
    for var in ("a", "b"):
        # The boot runs on the run's DUT; NETAB_DUT says which one, so it boots that DUT's kernel.
        text += f"""  - name: {var}
    boot: {base}/$NETAB_DUT/boot.sh kernel-{var}
    expect: '^kernel-{var}$'
"""
    return text + "matrix:\n  dut: [d1, d2]\n"


def db_rows(db, sql, *args):
    con = sqlite3.connect(db, timeout=30)
    try:
        return list(con.execute(sql, args))
    finally:
        con.close()


def poll_count(db, sql):
    """A count from a store a campaign is creating: 0 until its file and tables exist."""
    try:
        return db_rows(db, sql)[0][0] if os.path.exists(db) else 0
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def runs_of(netab, db, xid):
    doc = json.loads(netab_cmd(netab, "runs", "list", "--db", db, "--experiment", str(xid),
                               "--json").stdout)
    return doc if isinstance(doc, list) else doc.get("runs", [])


def when(ts):
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def overlapping(runs):
    """Pairs of runs on different DUTs whose [started, finished] intervals overlap."""
    pairs = []
    for x in runs:
        for y in runs:
            if x["dut"] < y["dut"] and when(x["started"]) < when(y["finished"]) and \
                    when(y["started"]) < when(x["finished"]):
                pairs.append((x["seq"], y["seq"]))
    return pairs


def check_campaign(netab, duts, db, xid, label, boots=True):
    """Every planned seq ok once, on its cell's DUT with its variant's identity; each DUT's boots
    where its own previous run left another kernel. Returns the ok runs."""
    plan = db_rows(db, "SELECT seq, variant, cell FROM plan WHERE experiment_id = ? ORDER BY seq",
                   xid)
    runs = [r for r in runs_of(netab, db, xid) if r["status"] == "ok"]
    check_eq(sorted(r["seq"] for r in runs), [p[0] for p in plan], f"{label}: one ok run per seq")
    for r in runs:
        check_eq(r.get("dut"), r["cell"].split("=")[1], f"{label}: seq {r['seq']}'s DUT name")
        check_eq(r.get("dut_identity"), f"kernel-{r['variant']}",
                 f"{label}: seq {r['seq']}'s identity")
        check(r.get("receiver_bps") and r["receiver_bps"] > 0, f"{label}: run measured", r)
    for dname, dut in zip(NAMES, duts):
        if not boots:  # a boot a signal cut short is repeated: not a plan's boots
            break
        mine = [(seq, var) for seq, var, cell in plan if cell == f"dut={dname}"]
        cur, want = "kernel-none", []
        for seq, var in mine:
            if cur != f"kernel-{var}":
                want.append((seq, var))
                cur = f"kernel-{var}"
        got = [(int(b[3]), b[2]) for b in dut.boot_lines()]
        check_eq(got, want, f"{label}: {dname}'s boots against its own plan")
    return runs


def check_report(netab, db, xid, parallel):
    """The headline has one column per DUT in every format; the report says how they ran."""
    text = netab_cmd(netab, "report", "--db", db, str(xid), expect_rc=(0, 1)).stdout
    header = next((ln for ln in text.splitlines() if "d1" in ln and "d2" in ln), None)
    check(header is not None, "the text headline has a row naming both DUTs as columns", text)
    md = netab_cmd(netab, "report", "--db", db, str(xid), "--format", "markdown",
                   expect_rc=(0, 1)).stdout
    check(any(ln.startswith("|") and "d1" in ln and "d2" in ln for ln in md.splitlines()),
          "the Markdown headline has the DUTs as columns", md)
    html = netab_cmd(netab, "report", "--db", db, str(xid), "--format", "html",
                     expect_rc=(0, 1)).stdout
    check('<table class="headline duts">' in html and
          "<th>variant</th><th>d1</th><th>d2</th>" in html,
          "the HTML headline has the DUTs as columns", html[:2000])
    doc = json.loads(netab_cmd(netab, "report", "--db", db, str(xid), "--format", "json",
                               expect_rc=(0, 1)).stdout)
    check_eq(doc.get("duts", {}).get("names"), list(NAMES), "JSON: the DUTs")
    check_eq(doc.get("duts", {}).get("concurrent"), parallel, "JSON: the DUTs ran concurrently")
    table = doc["duts"]["tables"][0]
    check_eq(table["columns"], list(NAMES), "JSON: the table's columns are the DUTs")
    check_eq([row["variant"] for row in table["rows"]], ["a", "b"], "JSON: a row per variant")
    for row in table["rows"]:
        for entry in row["entries"]:  # the very strings the text table shows
            check(entry in text, "a JSON entry is in the text report", entry)
    said = "ran concurrently" in text
    check_eq(said, parallel, "the text report says whether the DUTs ran concurrently")
    check_cell_table(netab, db, xid)
    return text


def check_cell_table(netab, db, xid):
    """--cell: the 8139 thread's shape, the DUTs as columns by default, a row per variant."""
    tpl = "tcp {tcp_stream:sender_throughput}/{tcp_stream:throughput} cpu {cpu_remote}"
    args = ("report", "--db", db, str(xid), "--cell", tpl)
    ct = json.loads(netab_cmd(netab, *args, "--format", "json", expect_rc=(0, 1)).stdout)
    ct = ct["cell_table"]
    check_eq((ct["columns_axis"], ct["columns"]), ("dut", list(NAMES)), "--cell: DUT columns")
    rows = ct["tables"][0]["rows"]
    check_eq([row["variant"] for row in rows], ["a", "b"], "--cell: a row per variant")
    text = netab_cmd(netab, *args, expect_rc=(0, 1)).stdout
    text = text[text.index("Cell table: "):]
    for row in rows:
        for cell in row["cells"]:
            check(re.fullmatch(r"tcp [0-9.]+/[0-9.]+ cpu [0-9.]+%", cell["text"]),
                  "--cell: two throughputs and a CPU figure per DUT", cell)
        line = next((ln for ln in text.splitlines() if ln.startswith(row["variant"] + " ")), "")
        check_eq(line.split()[1:], " ".join(c["text"] for c in row["cells"]).split(),
                 f"--cell: the text row of {row['variant']} holds the JSON's entries")


def campaign(netab, star, duts, base, name, parallel):
    for dut in duts:
        dut.reset()
    db = os.path.join(base, f"{name}.db")
    path = os.path.join(base, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(experiment_text(duts, netab, base, name, 1, parallel))
    t0 = time.monotonic()
    netab_cmd(netab, "experiment", "run", "--db", db, path, netns=star.ns_ctl, timeout=300)
    wall = time.monotonic() - t0
    xid = db_rows(db, "SELECT max(id) FROM experiments")[0][0]
    runs = check_campaign(netab, duts, db, xid, name)
    for dname in NAMES:
        mine = sorted((r for r in runs if r["dut"] == dname), key=lambda r: when(r["started"]))
        check_eq([r["seq"] for r in mine], sorted(r["seq"] for r in mine),
                 f"{name}: {dname}'s runs in plan order")
        for x, y in zip(mine, mine[1:]):
            check(when(x["finished"]) <= when(y["started"]),
                  f"{name}: {dname} ran one run at a time", (x, y))
    pairs = overlapping(runs)
    if parallel:
        check(pairs, f"{name}: runs of the two DUTs overlap in time", runs)
    else:
        check_eq(pairs, [], f"{name}: no two runs overlap in sequential order")
    text = check_report(netab, db, xid, parallel)
    if parallel:
        print("\n".join(ln for ln in text.splitlines()[:14]), flush=True)
    print(f"{name}: {len(runs)} runs ok on their DUTs in {wall:.1f} s wall time; "
          f"{len(pairs)} overlapping pairs", flush=True)
    return wall


def dut_killed(netab, star, duts, base):
    """d2 dies after its first ok run: its runs fail and stop, d1's complete; resume finishes."""
    for dut in duts:
        dut.reset()
    db = os.path.join(base, "killed.db")
    path = os.path.join(base, "killed.yaml")
    with open(path, "w") as f:
        f.write(experiment_text(duts, netab, base, "killed", 3, True,
                                boot_timeouts=(30, 1)))
    p = start([netab, "experiment", "run", "--db", db, path], netns=star.ns_ctl)
    deadline = time.monotonic() + 60
    while True:  # bounded: until d2 has an ok run
        check(p.alive(), "the campaign ended before d2's first run", p.stderr_text())
        check(time.monotonic() < deadline, "no ok run on d2 within 60 s")
        if poll_count(db, "SELECT count(*) FROM runs WHERE dut = 'd2' AND status = 'ok'"):
            break
        time.sleep(0.05)
    duts[1].kill_all()
    r = p.finish(expect_rc=1, timeout=300)
    check("d2 stopped answering" in r.stderr and "other DUTs' runs completed" in r.stderr,
          "the campaign names the DUT that stopped", r.stderr)
    xid = db_rows(db, "SELECT max(id) FROM experiments")[0][0]
    runs = runs_of(netab, db, xid)
    d1 = [x for x in runs if x["dut"] == "d1"]
    d2 = [x for x in runs if x["dut"] == "d2"]
    check_eq(sorted(x["status"] for x in d1), ["ok"] * 6, "d1's runs all complete")
    failed = [x for x in d2 if x["status"] == "failed"]
    check_eq(len(failed), 3, "d2: three failed runs in a row, then its runs stop")
    check(len(d2) < 6, "d2 has runs left for resume", d2)
    last_ok = max(when(x["finished"]) for x in d2 if x["status"] == "ok")
    check(any(when(x["finished"]) > last_ok for x in d1), "d1 went on after d2 died", runs)
    duts[1].start_sshd()
    # The three failed runs stay failed (a run is never repeated once it has a final status),
    # so the campaign completes with exit status 1.
    r = netab_cmd(netab, "experiment", "resume", "--db", db, str(xid), netns=star.ns_ctl,
                  timeout=300, expect_rc=1)
    check("complete: 12 planned, 9 ok, 3 failed" in r.stderr, "resume completed the plan",
          r.stderr)
    plan = db_rows(db, "SELECT seq FROM plan WHERE experiment_id = ?", xid)
    runs = runs_of(netab, db, xid)
    done = sorted(x["seq"] for x in runs if x["status"] in ("ok", "failed"))
    check_eq(done, sorted(s for (s,) in plan), "after resume every seq once, none twice")
    print(f"d2 killed: d1's 6 runs ok, d2's 3 failed then stopped; resume completed "
          f"{len(plan)} seqs", flush=True)


def sequential_down(netab, star, duts, base):
    """One run at a time, d2 refusing netab's key from the start: d2's runs fail and stop after
    three, d1's all complete, and the campaign exits 1 naming d2."""
    for dut in duts:
        dut.reset()
    db = os.path.join(base, "down.db")
    path = os.path.join(base, "down.yaml")
    other = os.path.join(base, "other_key")
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other)
    with open(path, "w") as f:
        f.write(experiment_text(duts, netab, base, "down", 2, False, boot_timeouts=(30, 1),
                                keys=(None, other)))
    r = netab_cmd(netab, "experiment", "run", "--db", db, path, netns=star.ns_ctl, timeout=300,
                  expect_rc=1)
    check("the DUT d2 stopped answering" in r.stderr and "d2 (root@198.18.2.2) did not answer"
          in r.stderr, "the campaign names the DUT that stopped", r.stderr)
    runs = runs_of(netab, db, 1)
    check_eq(sorted(x["status"] for x in runs if x["dut"] == "d1"), ["ok"] * 4,
             "d1's runs all complete")
    d2 = [x for x in runs if x["dut"] == "d2"]
    check_eq([x["status"] for x in d2], ["failed"] * 3, "d2: three failed runs, then none")
    for x in d2:
        check("Permission denied" in (x.get("error") or ""), "d2's reason is ssh's", x)
    pending = db_rows(db, "SELECT count(*) FROM plan WHERE cell = 'dut=d2'")[0][0] - len(d2)
    check_eq(pending, 1, "d2's last run is left for resume")
    listing = netab_cmd(netab, "runs", "list", "--db", db).stdout.splitlines()
    check(listing[0].split()[5] == "DUT" and all(ln.split()[5] in NAMES for ln in listing[1:]),
          "runs list shows each run's DUT", listing)
    print("one run at a time, d2 unreachable: its 3 runs failed, then d1's went on alone",
          flush=True)


def start_until_both(netab, star, db, path, base):
    """Starts a parallel campaign (or resumes it) and waits until both DUTs have an ok run that
    this runner made."""
    last = poll_count(db, "SELECT coalesce(max(id), 0) FROM runs")
    argv = [netab, "experiment"] + (["resume", "--db", db, "1"] if last else
                                    ["run", "--db", db, path])
    p = start(argv, netns=star.ns_ctl, env={"TMPDIR": base})
    deadline = time.monotonic() + 60
    while True:  # bounded: until each DUT has an ok run of this runner
        check(p.alive(), "the campaign ended early", p.stderr_text())
        check(time.monotonic() < deadline, "no new run on both DUTs within 60 s", p.stderr_text())
        if poll_count(db, "SELECT count(DISTINCT dut) FROM runs WHERE status = 'ok' AND "
                          f"id > {last}") == 2:
            return p
        time.sleep(0.05)


def kill9(netab, star, duts, base):
    """SIGTERM to a parallel runner alone: it stops its workers, which record their runs as
    interrupted; kill -9: its workers die with it. Resume completes the plan each time."""
    for dut in duts:
        dut.reset()
    db = os.path.join(base, "kill9.db")
    path = os.path.join(base, "kill9.yaml")
    with open(path, "w") as f:
        f.write(experiment_text(duts, netab, base, "kill9", 2, True))
    p = start_until_both(netab, star, db, path, base)
    os.kill(p.pid, signal.SIGTERM)  # the runner only: it forwards the signal to its workers
    p.finish(expect_rc=128 + signal.SIGTERM, timeout=60)
    stopped = db_rows(db, "SELECT count(*) FROM runs WHERE status = 'interrupted' AND error "
                          "LIKE 'interrupted by signal 15%'")[0][0]
    check_eq(db_rows(db, "SELECT count(*) FROM runs WHERE status = 'running'")[0][0], 0,
             "SIGTERM: no run left 'running' (the workers recorded theirs)")
    p = start_until_both(netab, star, db, path, base)
    workers = [int(x) for x in sh("pgrep", "-P", str(p.pid), check_rc=False).split()]
    check(workers, "the parallel runner has worker processes")
    os.kill(p.pid, signal.SIGKILL)
    p.finish(expect_rc=-signal.SIGKILL, timeout=30)
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{w}") and open(f"/proc/{w}/stat").read().split()[2] != "Z"
              for w in workers):  # bounded: the workers die with their runner
        check(time.monotonic() < deadline, "workers outlived their killed runner", workers)
        time.sleep(0.05)
    netab_cmd(netab, "experiment", "resume", "--db", db, "1", netns=star.ns_ctl, timeout=300,
              env={"TMPDIR": base})
    runs = check_campaign(netab, duts, db, 1, "kill9", boots=False)
    check_eq([n for n in os.listdir(base) if n.startswith("netab-ssh-")], [],
             "ControlPath directories left after resume")
    print(f"SIGTERM to a parallel runner: {stopped} runs recorded as interrupted by it; kill -9: "
          f"its {len(workers)} workers died with it; resume completed {len(runs)} runs", flush=True)


def body(netab):
    require_root_netns(("ip", "ss", "nft", "pgrep"))
    need_tools("ssh", "ssh-keygen", SSHD)
    with tempfile.TemporaryDirectory(prefix="netab-duts-") as base, \
            NetnsStar("dm", 2) as star:
        duts = []
        try:
            for dname, link in zip(NAMES, star.links):
                os.mkdir(os.path.join(base, dname))
                duts.append(Dut(os.path.join(base, dname), link))
                duts[-1].setup()
            seq_wall = campaign(netab, star, duts, base, "sequential", False)
            par_wall = campaign(netab, star, duts, base, "parallel", True)
            print(f"wall time: sequential {seq_wall:.1f} s, parallel {par_wall:.1f} s "
                  f"({par_wall / seq_wall:.2f})", flush=True)
            sequential_down(netab, star, duts, base)
            dut_killed(netab, star, duts, base)
            kill9(netab, star, duts, base)
        finally:
            for dut in duts:
                dut.kill_all()


if __name__ == "__main__":
    run_main(body)
