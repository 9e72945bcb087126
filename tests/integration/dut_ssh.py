#!/usr/bin/env python3
"""Campaigns whose variant is a kernel on another machine, with the real parts.

The device under test is a network namespace (198.18.0.2) running Debian's
OpenSSH server with a throwaway host key and an authorized key made here;
`netab experiment run` runs in the other namespace and reaches it with the
system's ssh client, starts `netab server` there and measures real traffic
across the veth pair.

The "kernels" are simulated honestly: a variant's boot command (run on the
DUT over ssh) kills the DUT's netab server, as a reboot would, and records a
new identity in a file that dut.identity reads. So this checks:

1. two variants, randomized order: every run ok, every run's dut_identity
   (netab runs list --json) that of its variant, boots exactly where the
   plan's next variant differs from the running identity, the remote and
   local hooks saw NETAB_VARIANT, NETAB_NEXT_VARIANT and the rest, every run
   targets the DUT's server, a server that died (killed by a teardown) is
   started again, the server netab started is stopped at the end, the
   report names both;
2. a variant whose boot never yields its expected identity: its runs fail
   naming both identities, none of them measured, the other variant's ok;
3. a key the DUT refuses: each run fails with ssh's reason and the campaign
   stops after three such runs in a row;
4. a DUT with only `iperf3 -s` and protocol: iperf3: both runs measured, the
   iperf3 server still running afterwards, no netab server started;
5. kill -9 of the controller during a slow boot (the DUT unreachable while
   it lasts), then `netab experiment resume` at once: it waits for the DUT
   and the campaign completes with correct identities.
"""
import contextlib
import json
import os
import re
import signal
import sys
import tempfile
import time

from dut_helpers import SSHD, Dut
from netab_helpers import (NetnsPair, Server, check, check_eq, netab_cmd,
                           need_tools, require_root_netns, run_main, session_pids, sh,
                           start)

def experiment_text(dut, netab, name, variants, runs, warmup, tmp, boot_timeout=60, key=None,
                    extra_dut="", extra_test=""):
    hooks = os.path.join(tmp, f"{name}-hooks")
    # After seq 6 the DUT's server dies as a crash would: the next run must bring it back.
    kill_at = f'[ "$NETAB_SEQ" != 6 ] || {tmp}/kill-server.sh'
    opts = " ".join(f'"{o}"' for o in dut.ssh_opts(key))
    v = ""
    for var, ident in variants:
        v += f"""  - name: {var}
    boot: {tmp}/boot.sh {ident}
    expect: '^kernel-{var}$'
    setup: 'echo "local $NETAB_SEQ $NETAB_VARIANT $NETAB_NEXT_VARIANT" >> {hooks}-local'
    teardown: {{run: 'echo "$NETAB_SEQ $(cat {dut.ident})" >> {hooks}-teardown; {kill_at}', on: dut}}
"""
    return f"""name: {name}
runs: {runs}
warmup: {warmup}
seed: 11
dut:
  ssh: {dut.dest()}
  ssh_opts: '{opts}'
  netab: {netab}
  identity: cat {dut.ident}
  boot_timeout: {boot_timeout}
{extra_dut}prepare:
  run: 'echo "$NETAB_SEQ|$NETAB_VARIANT|$NETAB_NEXT_VARIANT|$NETAB_ROUND|$NETAB_CELL|$NETAB_EXPERIMENT|$NETAB_EXPERIMENT_ID|$NETAB_DB" >> {hooks}-dut'
  on: dut
test:
  time: 0.3
  interval: 0
{extra_test}variants:
{v}"""


def runs_of(netab, db, xid):
    r = netab_cmd(netab, "runs", "list", "--db", db, "--experiment", str(xid), "--json")
    doc = json.loads(r.stdout)
    return doc if isinstance(doc, list) else doc.get("runs", [])


def plan_of(db, xid):
    import sqlite3
    con = sqlite3.connect(db, timeout=30)
    rows = list(con.execute("SELECT seq, variant, round FROM plan WHERE experiment_id = ? "
                            "ORDER BY seq", (xid,)))
    con.close()
    return rows


def read_lines(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f]


def expected_boots(plan, start_identity):
    """The seqs where the running identity differs from the run's variant: the boots."""
    cur, boots = start_identity, []
    for seq, var, _ in plan:
        if cur != f"kernel-{var}":
            boots.append((seq, var))
            cur = f"kernel-{var}"
    return boots


def only_experiment(db):
    import sqlite3
    con = sqlite3.connect(db, timeout=30)
    ids = [r[0] for r in con.execute("SELECT id FROM experiments ORDER BY id")]
    con.close()
    return ids[-1]


def two_variants(netab, dut, pair, tmp):
    db = os.path.join(tmp, "two.db")
    path = os.path.join(tmp, "two.yaml")
    with open(path, "w") as f:
        f.write(experiment_text(dut, netab, "two", [("a", "kernel-a"), ("b", "kernel-b")], 4, 1,
                                tmp))
    r = netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=300)
    xid = only_experiment(db)
    runs = runs_of(netab, db, xid)
    plan = plan_of(db, xid)
    check_eq(len(plan), 10, "planned runs")
    check_eq(len(runs), 10, "run rows")
    variants = [v for _, v, _ in plan]
    check(variants != sorted(variants) and variants != sorted(variants, reverse=True),
          "the default order is interleaved", variants)
    for run in runs:
        check_eq(run["status"], "ok", f"run {run['seq']} status ({run.get('error')})")
        check_eq(run.get("dut_identity"), f"kernel-{run['variant']}",
                 f"run {run['seq']}'s recorded DUT identity")
        check(run.get("receiver_bps") and run["receiver_bps"] > 0, "run measured traffic", run)
    # Boots exactly where the next run's variant differs from the running identity.
    want = expected_boots(plan, "kernel-none")
    got = [(int(b[3]), b[2]) for b in dut.boot_lines()]
    check_eq(got, want, "boots (seq, variant) against the plan")
    check(len(want) < len(plan), "some runs needed no boot", want)
    check(7 not in [seq for seq, _ in want], "seq 7 reuses the kernel of seq 6 (whose teardown "
          "killed the DUT's server, which netab had to start again)", want)
    # Every remote prepare saw its own run and the next one.
    lines = [line.split("|") for line in read_lines(os.path.join(tmp, "two-hooks-dut"))]
    check_eq(len(lines), 10, "remote prepare ran once per run")
    by_seq = {int(x[0]): x for x in lines}
    for i, (seq, var, rnd) in enumerate(plan):
        nxt = plan[i + 1][1] if i + 1 < len(plan) else ""
        check_eq(by_seq[seq][1:], [var, nxt, str(rnd), "default", "two", str(xid), db],
                 f"seq {seq}: NETAB_VARIANT, NEXT_VARIANT, ROUND, CELL, EXPERIMENT, _ID, DB")
    local = [line.split() for line in read_lines(os.path.join(tmp, "two-hooks-local"))]
    check_eq([x[2] for x in local], variants, "local setup saw NETAB_VARIANT in plan order")
    # The remote teardown ran on the kernel of its variant.
    for line in read_lines(os.path.join(tmp, "two-hooks-teardown")):
        seq, ident = line.split()
        check_eq(ident, f"kernel-{plan[int(seq) - 1][1]}", f"seq {seq}: kernel at teardown")
    check(not dut.server_listening(), "the DUT server netab started is stopped at the end")
    show = json.loads(netab_cmd(netab, "runs", "show", "--db", db, str(runs[0]["id"]),
                                "--json").stdout)
    argv = show["params"]["argv"]
    check("--client" in argv and argv[argv.index("--client") + 1] == pair.addr_b,
          "each run targets the DUT's server", argv)
    # Both variants measure the same path: a verdict either way is noise, so 0 or 1 (regressed).
    rep = netab_cmd(netab, "report", "--db", db, str(xid), expect_rc=(0, 1))
    check("a" in rep.stdout and "b" in rep.stdout, "the report names both variants", rep.stdout)
    print(f"two variants: {len(runs)} runs ok, {len(got)} boots as planned: {got}", flush=True)
    del r


def reboot_every_run(netab, dut, pair, tmp):
    """reset: reboot with a dut: the run's variant is booted before every run, also when the
    DUT already runs that kernel (the seed's 'reboot before each run'); no local reboot."""
    dut.reset()
    db = os.path.join(tmp, "reboot.db")
    path = os.path.join(tmp, "reboot.yaml")
    text = experiment_text(dut, netab, "reboot", [("a", "kernel-a"), ("b", "kernel-b")], 2, 0, tmp)
    with open(path, "w") as f:
        f.write(text.replace("seed: 11\n", "seed: 11\nreset: reboot\n"))
    netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=300)
    xid = only_experiment(db)
    plan = plan_of(db, xid)
    runs = runs_of(netab, db, xid)
    check_eq([x["status"] for x in runs], ["ok"] * 4, "every run ok")
    for run in runs:
        check_eq(run.get("dut_identity"), f"kernel-{run['variant']}", "identity after its boot")
    got = [(int(b[3]), b[2]) for b in dut.boot_lines()]
    check_eq(got, [(seq, var) for seq, var, _ in plan], "one boot before every run, its variant's")
    print(f"reset: reboot: {len(got)} boots for {len(plan)} runs", flush=True)


def broken_variant(netab, dut, pair, tmp):
    dut.reset()
    db = os.path.join(tmp, "broken.db")
    path = os.path.join(tmp, "broken.yaml")
    with open(path, "w") as f:
        f.write(experiment_text(dut, netab, "broken",
                                [("a", "kernel-a"), ("broken", "kernel-wrong")], 2, 0, tmp))
    netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=300,
              expect_rc=1)
    runs = runs_of(netab, db, only_experiment(db))
    check_eq(len(runs), 4, "run rows")
    for run in runs:
        if run["variant"] == "a":
            check_eq(run["status"], "ok", f"variant a run {run['seq']} ({run.get('error')})")
            check_eq(run.get("dut_identity"), "kernel-a", "variant a's identity")
            continue
        err = run.get("error") or ""
        check_eq(run["status"], "failed", f"broken run {run['seq']} status")
        check("kernel-wrong" in err and "^kernel-broken$" in err and "before the boot" in err,
              "the failure names the identity seen, the one expected and the one before", err)
        check(run.get("receiver_bps") is None, "no broken run was measured", run)
    print("broken variant: its runs failed naming both identities, none measured", flush=True)


def unreachable(netab, dut, pair, tmp):
    """A key the DUT refuses: every run fails saying why, and the campaign stops after 3."""
    dut.reset()
    db = os.path.join(tmp, "unreach.db")
    path = os.path.join(tmp, "unreach.yaml")
    other = os.path.join(tmp, "other_key")
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other)
    with open(path, "w") as f:
        f.write(experiment_text(dut, netab, "unreach", [("a", "kernel-a"), ("b", "kernel-b")], 3,
                                0, tmp, boot_timeout=1, key=other))
    r = netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=120,
                  expect_rc=1)
    check("did not answer within 1 s in 3 runs in a row" in r.stderr, "the campaign stops",
          r.stderr)
    runs = runs_of(netab, db, only_experiment(db))
    check_eq([x["status"] for x in runs], ["failed"] * 3, "three failed runs, then a stop")
    for run in runs:
        check("Permission denied" in (run.get("error") or ""), "the reason is ssh's", run)
    check(not dut.boot_lines(), "nothing booted")
    print("unreachable DUT: 3 runs failed with ssh's reason, then the campaign stopped",
          flush=True)


def identity_fails(netab, dut, pair, tmp):
    """An identity command that fails while ssh works fails the run at once, with its reason."""
    dut.reset()
    db = os.path.join(tmp, "ident.db")
    path = os.path.join(tmp, "ident.yaml")
    text = experiment_text(dut, netab, "ident", [("a", "kernel-a")], 1, 0, tmp, boot_timeout=600)
    text = text.replace(f"identity: cat {dut.ident}", "identity: 'echo no stamp >&2; exit 3'")
    with open(path, "w") as f:
        f.write(text)
    # No wait for a boot that cannot help: with boot_timeout 600 such a wait would pass the
    # 120 s hang bound, which fails the test.
    netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=120,
              expect_rc=1)
    runs = runs_of(netab, db, only_experiment(db))
    check_eq([x["status"] for x in runs], ["failed"], "the run failed")
    err = runs[0].get("error") or ""
    check("reading the DUT's identity" in err and "exit status 3: no stamp" in err,
          "the reason is the identity command's", err)
    print("failing identity command: the run failed at once with its reason", flush=True)


def default_identity(netab, dut, pair, tmp):
    """Without dut.identity the DUT's `netab env --identity --addr ADDR` is its identity:
    expect: anchors on its lines, and each run records exactly what that command prints there."""
    dut.reset()
    want = netab_cmd(netab, "env", "--identity", "--addr", pair.addr_b, netns=pair.ns_b).stdout.strip()
    lines = want.splitlines()
    check(lines[0] == "release: " + os.uname().release, "the DUT's identity starts with its release",
          want)
    check(any(ln.startswith("module: veth") for ln in lines), "the DUT's identity names the test "
          "interface's module (veth)", want)
    db = os.path.join(tmp, "default.db")
    path = os.path.join(tmp, "default.yaml")
    text = experiment_text(dut, netab, "default", [("a", "kernel-a")], 2, 0, tmp)
    text = text.replace(f"  identity: cat {dut.ident}\n", "")
    release = re.escape(os.uname().release)
    text = text.replace("expect: '^kernel-a$'", f"expect: '^release: {release}$'")
    with open(path, "w") as f:
        f.write(text)
    netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=300)
    runs = runs_of(netab, db, only_experiment(db))
    check_eq([x["status"] for x in runs], ["ok", "ok"], "runs with the default identity")
    for run in runs:
        check_eq(run.get("dut_identity"), want, "the recorded DUT identity")
    check_eq(dut.boot_lines(), [], "no boot: the identity matched")
    # A variant whose boot leaves the DUT on another kernel: the reason names both identities,
    # each the composite text on one line ("release: X; version: ...").
    db2 = os.path.join(tmp, "default-never.db")
    path2 = os.path.join(tmp, "default-never.yaml")
    never = text.replace("name: a\n", "name: never\n").replace(
        f"expect: '^release: {release}$'", "expect: '^release: no-such-kernel$'")
    never = re.sub(r"boot: .*\n", "boot: 'true'\n", never)
    with open(path2, "w") as f:
        f.write(never)
    netab_cmd(netab, "experiment", "run", "--db", db2, path2, netns=pair.ns_a, timeout=300,
              expect_rc=1)
    runs = runs_of(netab, db2, only_experiment(db2))
    check_eq([x["status"] for x in runs], ["failed", "failed"], "runs of a kernel never reached")
    shown = want.replace("\n", "; ")[:200]
    for run in runs:
        err = run.get("error") or ""
        check("\n" not in err and f"identity is '{shown}" in err and "before the boot: '" in err,
              "the reason names both identities, each on one line", err)
    # A catastrophic expect (2^19 ways to fail at each line start) reaches the match budget on
    # the real identity: the runs fail naming the pattern and the limit, and nothing is booted.
    dut.reset()
    db3 = os.path.join(tmp, "default-catastrophic.db")
    path3 = os.path.join(tmp, "default-catastrophic.yaml")
    with open(path3, "w") as f:
        f.write(text.replace(f"expect: '^release: {release}$'", "expect: '(?:.|.){19}$'"))
    netab_cmd(netab, "experiment", "run", "--db", db3, path3, netns=pair.ns_a, timeout=300,
              expect_rc=1)
    runs = runs_of(netab, db3, only_experiment(db3))
    check_eq([x["status"] for x in runs], ["failed", "failed"], "runs of a catastrophic expect")
    for run in runs:
        err = run.get("error") or ""
        check("variant a's expect could not be checked: matching '(?:.|.){19}$' against" in err
              and "reached its backtracking limit" in err, "the reason names pattern and limit", err)
    check_eq(dut.boot_lines(), [], "no boot on an expect that could not be checked")
    print("default identity: netab env --identity on the DUT, anchored per line", flush=True)


def own_server(netab, dut, pair, tmp):
    """Runs naming their own server (a sink behind a router) with start_server: false."""
    dut.reset()
    db = os.path.join(tmp, "sink.db")
    path = os.path.join(tmp, "sink.yaml")
    with Server(netab, netns=pair.ns_b) as sink:
        with open(path, "w") as f:
            f.write(experiment_text(dut, netab, "sink", [("a", "kernel-a"), ("b", "kernel-b")], 1,
                                    0, tmp, extra_dut="  start_server: false\n",
                                    extra_test=f"  server: {pair.addr_b}\n  port: {sink.port}\n"))
        netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=300)
    runs = runs_of(netab, db, only_experiment(db))
    check_eq([x["status"] for x in runs], ["ok", "ok"], "both runs against the sink")
    for run in runs:
        check_eq(run.get("dut_identity"), f"kernel-{run['variant']}", "identity with a sink")
    check(not dut.server_listening(), "no server was started on the DUT")
    print("own server: runs measured against the sink, none started on the DUT", flush=True)


def iperf3_dut(netab, dut, pair, tmp):
    """A DUT that runs only `iperf3 -s` (no netab server on it): protocol: iperf3 runs measure
    against it; the readiness probe recognises iperf3 and leaves it running (iperf3 3.12
    crashes when a client leaves at its PARAM_EXCHANGE, as a plain hello once made it)."""
    dut.reset()
    db = os.path.join(tmp, "iperf3.db")
    path = os.path.join(tmp, "iperf3.yaml")
    srv = start(["iperf3", "-s", "-p", "5201", "-B", pair.addr_b], netns=pair.ns_b)
    try:
        for _ in range(100):  # bounded: until it listens
            if sh("ss", "-Hltn", "sport = :5201", netns=pair.ns_b).strip():
                break
            time.sleep(0.05)
        text = experiment_text(dut, netab, "iperf3dut", [("a", "kernel-a"), ("b", "kernel-b")], 1,
                               0, tmp, extra_dut="  start_server: false\n  port: 5201\n")
        text = text.replace("  time: 0.3\n", "  time: 1\n  protocol: iperf3\n")
        with open(path, "w") as f:
            f.write(text)
        netab_cmd(netab, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=300)
        check(srv.alive(), "the DUT's iperf3 server is still running")
    finally:
        srv.send(signal.SIGTERM)
        srv.finish(expect_rc=(0, 1, -signal.SIGTERM), timeout=10)
    runs = runs_of(netab, db, only_experiment(db))
    check_eq([x["status"] for x in runs], ["ok", "ok"], "both runs against the DUT's iperf3 -s")
    for run in runs:
        check_eq(run.get("dut_identity"), f"kernel-{run['variant']}", "identity with iperf3")
        check(run.get("receiver_bps") and run["receiver_bps"] > 0, "run measured traffic", run)
    show = json.loads(netab_cmd(netab, "runs", "show", "--db", db, str(runs[0]["id"]),
                                "--json").stdout)
    argv = show["params"]["argv"]
    check("--iperf3" in argv, "the runs spoke iperf3", argv)
    check(not dut.server_listening(), "no netab server was started on the DUT")
    print("iperf3 DUT: both runs measured against iperf3 -s, none started on the DUT", flush=True)


def kill_during_boot(netab, dut, pair, tmp):
    dut.reset()
    db = os.path.join(tmp, "kill.db")
    path = os.path.join(tmp, "kill.yaml")
    with open(path, "w") as f:
        f.write(experiment_text(dut, netab, "kill", [("a", "kernel-a"), ("b", "kernel-b")], 2, 0,
                                tmp))
    open(dut.slow, "w").close()
    # TMPDIR: the shared ssh connection's directory, which a killed controller leaves behind.
    p = start([netab, "experiment", "run", "--db", db, path], netns=pair.ns_a,
              env={"TMPDIR": tmp})
    deadline = time.monotonic() + 60
    # The boot is under way once it has taken the DUT off the network; it lasts until the
    # test releases it.
    while not dut.down_lines():
        check(p.alive(), "the campaign ended before its first boot", p.stderr_text())
        check(time.monotonic() < deadline, "no boot took the DUT down within 60 s")
        time.sleep(0.1)
    # kill -9 of the runner alone, as a user would: its children have process groups of their
    # own, so the boot's ssh and the shared connection's master live on.
    p.kill_group(signal.SIGKILL)
    p.finish(expect_rc=-signal.SIGKILL, timeout=30)
    left = len(ssh_masters(tmp))
    check(left > 0, "the killed runner's ssh master outlives it (what resume must end)")
    os.unlink(dut.slow)
    # Resume while the DUT is still booting and unreachable (the killed controller's boot goes
    # on without it, as a real one would); let the boot finish once resume says it waits.
    xid = only_experiment(db)
    r = start([netab, "experiment", "resume", "--db", db, str(xid)], netns=pair.ns_a,
              env={"TMPDIR": tmp})
    deadline = time.monotonic() + 60
    while "waiting up to 60 s" not in r.stderr_text():
        check(r.alive(), "resume ended without waiting for the booting DUT", r.stderr_text())
        check(time.monotonic() < deadline, "resume did not wait for the booting DUT",
              r.stderr_text())
        time.sleep(0.1)
    open(dut.release, "w").close()
    r.finish(expect_rc=0, timeout=300)
    print("resume said:\n  " + "\n  ".join(
        line for line in r.stderr_text().splitlines() if line.startswith(("dut:", "run "))),
        flush=True)
    check(len([b for b in dut.boot_lines() if b[3] == "1"]) == 1, "seq 1's boot was not "
          "repeated: the DUT came up on its kernel", dut.boot_lines())
    runs = runs_of(netab, db, xid)
    final = [r for r in runs if r["status"] in ("ok", "failed")]
    check_eq(len(final), 4, "completed runs after resume")
    check(any(r["status"] == "interrupted" for r in runs), "the killed run is interrupted", runs)
    for run in final:
        check_eq(run["status"], "ok", f"run {run['seq']} after resume ({run.get('error')})")
        check_eq(run.get("dut_identity"), f"kernel-{run['variant']}",
                 f"run {run['seq']}'s identity after resume")
    # The killed runner's shared ssh connection (its master outlives the runner's session) was
    # ended by resume, which ended its own too: no master left, no ControlPath directory.
    check_eq(ssh_masters(tmp), [], "ssh masters left under TMPDIR after resume")
    check_eq([n for n in os.listdir(tmp) if n.startswith("netab-ssh-")], [],
             "ControlPath directories left after resume")
    # The killed runner's own boot ssh ended with its master; whatever else of its session is
    # left is killed here.
    for pid in session_pids(p.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    print(f"kill -9 during a boot, resume: every run ok on its own kernel; {left} ssh master "
          "left by the killed runner, none after resume", flush=True)


def ssh_masters(tmp):
    """Pids of ssh processes whose ControlPath is under tmp (a campaign's shared connection)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if any(a.startswith(f"ControlPath={tmp}/".encode()) for a in argv) and \
                os.path.basename(argv[0]) == b"ssh":
            found.append(int(d))
    return found


def body(netab):
    require_root_netns(("ip", "ss", "nft"))
    need_tools("ssh", "ssh-keygen", SSHD, "iperf3")
    with tempfile.TemporaryDirectory(prefix="netab-dut-") as tmp, NetnsPair("du") as pair:
        dut = Dut(tmp, pair)
        try:
            dut.setup()
            two_variants(netab, dut, pair, tmp)
            reboot_every_run(netab, dut, pair, tmp)
            broken_variant(netab, dut, pair, tmp)
            unreachable(netab, dut, pair, tmp)
            identity_fails(netab, dut, pair, tmp)
            default_identity(netab, dut, pair, tmp)
            own_server(netab, dut, pair, tmp)
            iperf3_dut(netab, dut, pair, tmp)
            kill_during_boot(netab, dut, pair, tmp)
        finally:
            # A server a killed controller left behind goes with the namespace's processes.
            for pid in sh("ip", "netns", "pids", pair.ns_b, check_rc=False).split():
                if dut.sshd is None or int(pid) != dut.sshd.pid:
                    try:
                        os.kill(int(pid), signal.SIGTERM)
                    except (ProcessLookupError, ValueError):
                        pass
            dut.stop()


if __name__ == "__main__":
    run_main(body)
