#!/usr/bin/env python3
"""netab experiment run / resume / list / status:
- a validation error exits 2 with FILE:LINE:COL messages and records nothing;
- reset: reboot with NETAB_REBOOT_CMD set to a script that kills the runner
  (a simulated reboot): every invocation does one run, then `resume` until
  done gives exactly the planned runs, none interrupted or duplicated;
- a reboot command that returns without rebooting exits 3;
- SIGINT mid-run: the run is recorded as interrupted, the exit status is 130,
  the message says how to resume, and resume completes the campaign;
- list and status, as text and JSON.
"""
import json
import os
import signal
import sqlite3
import sys
import tempfile
import time

from netab_helpers import HANG_TIMEOUT, PIPE, TestFailure, netab_cmd, run_main, start

NETAB = sys.argv[1]


def fail(msg):
    raise TestFailure(msg)


def netab(*args, env=None, timeout=120, expect_rc=0):
    return netab_cmd(NETAB, *args, env=env, timeout=timeout, expect_rc=expect_rc)


def experiment(name, runs=1, extra=""):
    return f"""name: {name}
runs: {runs}
warmup: 0
seed: 3
{extra}test:
  time: 0.2
  interval: 0
variants:
  - name: a
    opts: "-l 64K"
  - name: b
    opts: "-l 16K"
"""


def rows(db, xid):
    con = sqlite3.connect(db, timeout=30)
    r = list(con.execute("SELECT seq, status, attempt FROM runs WHERE experiment_id = ? "
                         "ORDER BY id", (xid,)))
    con.close()
    return r


def wait_running(p, db, xid):
    """Waits until experiment xid has a run in progress (a 'running' row: the runner holds the
    store's lock and has started that run), while p, the runner, still runs."""
    deadline = time.monotonic() + HANG_TIMEOUT  # a hang bound only
    while p.alive() and time.monotonic() < deadline:
        if any(status == "running" for _, status, _ in rows(db, xid)):
            return
        time.sleep(0.02)
    fail(f"experiment {xid}: no run in progress (runner exit {p.poll()}): {rows(db, xid)}")


def test_validation(tmp, db):
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("name: bad\nruns: 0\nvariants:\n  - name: a\n    colour: red\n")
    p = netab("experiment", "run", "--db", db, bad, expect_rc=2)
    if p.returncode != 2:
        fail(f"an invalid file: exit {p.returncode}, want 2: {p.stderr}")
    if f"{bad}:2:" not in p.stderr or f"{bad}:5:" not in p.stderr:
        fail(f"an invalid file: errors without positions: {p.stderr}")
    if os.path.exists(db):
        fail("an invalid file created the store")
    p = netab("experiment", "run", "--db", db, expect_rc=2)
    if p.returncode != 2:
        fail(f"run without FILE: exit {p.returncode}, want 2")
    p = netab("experiment", "status", "--db", db, "x1", expect_rc=2)
    if p.returncode != 2:
        fail(f"status with a bad ID: exit {p.returncode}, want 2")


def test_reboot(tmp, db):
    path = os.path.join(tmp, "reboot.yaml")
    with open(path, "w") as f:
        f.write(experiment("reboot", runs=2, extra="reset: reboot\n"))
    script = os.path.join(tmp, "fake-reboot")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n# Simulates a reboot: the runner dies without warning.\n"
                "echo reboot >> \"$(dirname \"$0\")/reboots\"\n"
                "p=$PPID\n"
                "while [ \"$(cat /proc/$p/comm)\" != netab ]; do\n"
                "    p=$(cut -d' ' -f4 /proc/$p/stat)\n"
                "done\n"
                "kill -KILL $p\n")
    os.chmod(script, 0o755)
    env = {"NETAB_REBOOT_CMD": script}
    p = netab("experiment", "run", "--db", db, path, env=env, expect_rc=-signal.SIGKILL)
    if p.returncode != -signal.SIGKILL:
        fail(f"reboot mode: the first invocation ended with {p.returncode}, want SIGKILL: "
             f"{p.stderr}")
    xid = int(p.stdout.split()[0])
    invocations = 1
    while True:
        invocations += 1
        if invocations > 10:
            fail("reboot mode: resume does not finish")
        p = netab("experiment", "resume", "--all", "--db", db, env=env,
                  expect_rc=(0, -signal.SIGKILL))
        if p.returncode == 0:
            break
        if p.returncode != -signal.SIGKILL:
            fail(f"reboot mode: resume ended with {p.returncode}: {p.stderr}")
    r = rows(db, xid)
    if sorted(s for s, _, _ in r) != [1, 2, 3, 4] or any(st != "ok" for _, st, _ in r):
        fail(f"reboot mode: want seqs 1..4 once each, all ok: {r}")
    with open(os.path.join(tmp, "reboots")) as f:
        reboots = len(f.read().split())
    if invocations != 4 or reboots != 3:
        fail(f"reboot mode: {invocations} invocations and {reboots} reboots, want 4 and 3")
    print(f"reboot mode: 4 planned runs in {invocations} invocations, {reboots} simulated "
          "reboots, 0 interrupted, 0 duplicated", flush=True)
    # A reboot command that comes back while the machine stays up.
    p = netab("experiment", "run", "--db", db, path,
              env={"NETAB_REBOOT_CMD": "true", "NETAB_REBOOT_WAIT": "0.3"}, expect_rc=3)
    if p.returncode != 3 or "did not reboot" not in p.stderr:
        fail(f"a reboot that does not happen: exit {p.returncode}: {p.stderr}")
    return xid


def test_sigint(tmp, db):
    path = os.path.join(tmp, "sigint.yaml")
    with open(path, "w") as f:
        f.write(experiment("sigint").replace("time: 0.2", "time: 4"))
    p = start([NETAB, "experiment", "run", "--db", db, path], stdout=PIPE)
    xid = int(p.stdout.readline())
    wait_running(p, db, xid)
    p.send(signal.SIGINT)
    p = p.finish(expect_rc=130, timeout=30)
    err = p.stderr
    if p.returncode != 130:
        fail(f"SIGINT: exit {p.returncode}, want 130: {err}")
    if f"netab experiment resume --db {db} {xid}" not in err:
        fail(f"SIGINT: the message does not say how to resume: {err}")
    r = rows(db, xid)
    if r != [(1, "interrupted", 1)]:
        fail(f"SIGINT: want one interrupted run, got {r}")
    st = json.loads(netab("experiment", "status", "--db", db, str(xid), "--json").stdout)
    if st["interrupted"] != 1 or st["completed"] != 0 or st["pending"] != 2:
        fail(f"SIGINT: status {st}")
    p = netab("experiment", "resume", "--db", db, str(xid))
    if p.returncode != 0:
        fail(f"SIGINT: resume exited {p.returncode}: {p.stderr}")
    r = rows(db, xid)
    if r != [(1, "interrupted", 1), (1, "ok", 2), (2, "ok", 1)]:
        fail(f"SIGINT: after resume {r}")
    return xid


def test_failures(tmp, db):
    """A failing setup or netab run is recorded as failed and the campaign goes on; exit 1."""
    path = os.path.join(tmp, "fail.yaml")
    mark = os.path.join(tmp, "teardown-ran")
    with open(path, "w") as f:
        f.write(f"""name: fail
runs: 1
warmup: 0
seed: 2
test:
  time: 0.2
  interval: 0
variants:
  - name: good
  - name: badsetup
    setup: "echo no such device >&2; exit 3"
    teardown: "touch {mark}"
  - name: badrun
    opts: "--congestion no-such-cc"
""")
    p = netab("experiment", "run", "--db", db, path, expect_rc=1)
    if p.returncode != 1:
        fail(f"failed runs: exit {p.returncode}, want 1: {p.stderr}")
    if not os.path.exists(mark):
        fail("teardown did not run after a failed setup")
    xid = int(p.stdout.split()[0])
    # Standard output holds what the man page says and nothing else: the new id, one line.
    con = sqlite3.connect(db, timeout=30)
    newest = con.execute("SELECT max(id) FROM experiments").fetchone()[0]
    con.close()
    if p.stdout != f"{newest}\n":
        fail(f"experiment run: stdout {p.stdout!r}, want only the new id {newest}")
    con = sqlite3.connect(db, timeout=30)
    got = dict(con.execute("SELECT variant, status || ': ' || coalesce(error, '') FROM runs "
                           "WHERE experiment_id = ?", (xid,)))
    con.close()
    if (got.get("good") != "ok: " or "setup" not in got.get("badsetup", "")
            or "exit status 3" not in got["badsetup"] or "no-such-cc" not in got.get("badrun", "")
            or not got["badrun"].startswith("failed")):
        fail(f"failed runs recorded as {got}")
    st = json.loads(netab("experiment", "status", "--db", db, str(xid), "--json").stdout)
    if st["completed"] != 3 or st["failed"] != 2 or st["pending"] != 0:
        fail(f"failed runs: status {st}")
    p = netab("experiment", "resume", "--db", db, str(xid), expect_rc=1)
    if p.returncode != 1 or len(rows(db, xid)) != 3:
        fail(f"resume ran failed runs again: {rows(db, xid)}")


def test_concurrent(tmp, db):
    """A second runner on the same store is refused: it would run the same seqs twice."""
    path = os.path.join(tmp, "busy.yaml")
    with open(path, "w") as f:
        f.write(experiment("busy").replace("time: 0.2", "time: 3"))
    p = start([NETAB, "experiment", "run", "--db", db, path], stdout=PIPE)
    xid = int(p.stdout.readline())
    wait_running(p, db, xid)
    q = netab("experiment", "resume", "--db", db, str(xid), expect_rc=2)
    p = p.finish(expect_rc=0, timeout=60)
    err = p.stderr
    if q.returncode != 2 or "another netab is running a campaign" not in q.stderr:
        fail(f"a concurrent resume: exit {q.returncode}: {q.stderr}")
    if p.returncode != 0 or sorted(s for s, _, _ in rows(db, xid)) != [1, 2]:
        fail(f"a concurrent resume disturbed the campaign: {p.returncode} {rows(db, xid)} {err}")


def test_list_status(db, ids):
    p = netab("experiment", "list", "--db", db, "--json")
    if p.returncode != 0:
        fail(f"list --json exited {p.returncode}: {p.stderr}")
    lst = json.loads(p.stdout)
    by_id = {x["id"]: x for x in lst}
    for xid in ids:
        x = by_id.get(xid)
        if not x or x["planned"] != x["completed"] or x["status"] != "done":
            fail(f"list --json: experiment {xid} is {x}")
        for k in ("id", "name", "planned", "completed"):
            if k not in x:
                fail(f"list --json: no {k} in {x}")
    p = netab("experiment", "list", "--db", db)
    if p.returncode != 0 or "PLANNED" not in p.stdout or "reboot" not in p.stdout:
        fail(f"list: {p.returncode} {p.stdout} {p.stderr}")
    p = netab("experiment", "status", "--db", db, str(ids[0]))
    if p.returncode != 0 or "planned:     4" not in p.stdout or "completed:   4" not in p.stdout:
        fail(f"status: {p.returncode} {p.stdout} {p.stderr}")
    st = json.loads(netab("experiment", "status", "--db", db, str(ids[0]), "--json").stdout)
    for k in ("planned", "completed", "failed", "interrupted", "pending", "eta_s", "avg_run_s"):
        if k not in st:
            fail(f"status --json: no {k} in {st}")
    p = netab("experiment", "status", "--db", db, "999", expect_rc=2)
    if p.returncode != 2 or "no experiment 999" not in p.stderr:
        fail(f"status of a missing experiment: {p.returncode} {p.stderr}")
    # The older names are the same commands: byte for byte the same output and status.
    for old_argv, new_argv in ((["runs", "experiments"], ["experiment", "list"]),
                               (["runs", "status", str(ids[0])],
                                ["experiment", "status", str(ids[0])]),
                               (["runs", "status", str(ids[0]), "--json"],
                                ["experiment", "status", str(ids[0]), "--json"])):
        a = netab(*old_argv, "--db", db)
        b = netab(*new_argv, "--db", db)
        if (a.returncode, a.stdout) != (b.returncode, b.stdout) or not a.stdout:
            fail(f"`netab {' '.join(old_argv)}` differs from `netab {' '.join(new_argv)}`: "
                 f"{a.returncode} {a.stdout!r} vs {b.returncode} {b.stdout!r}")
    p = netab("runs", "status", "--db", db, "999", expect_rc=2)
    if p.returncode != 2 or "no experiment 999" not in p.stderr:
        fail(f"runs status of a missing experiment: {p.returncode} {p.stderr}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        test_validation(tmp, db)
        reboot_id = test_reboot(tmp, db)
        sigint_id = test_sigint(tmp, db)
        test_failures(tmp, db)
        test_concurrent(tmp, db)
        test_list_status(db, [reboot_id, sigint_id])
    print("ok", flush=True)


if __name__ == "__main__":
    run_main(lambda netab: main())
