#!/usr/bin/env python3
"""`netab experiment status` tells a running campaign from one whose runner is
gone (issue 24):
- while a campaign runs: state running, the runner's pid, the run in
  progress;
- after kill -9 of the runner (and its session) in the middle of a run
  (held in its setup hook until the test lets it go):
  state stopped (also in `list`: its status and state say stopped, stored_status
  running), "interrupted at run seq N (variant, cell, attempt)" naming
  exactly the store's 'running' row, "runner gone since" its last heartbeat,
  "runner vanished", and the resume command; JSON likewise;
- `resume` records that run as interrupted with "runner vanished (pid P
  ...)" and completes the campaign; status then says done;
- a campaign whose stderr is a pipe closed by its reader (SIGPIPE) stops
  cleanly: the runner's end says signal 13, status says stopped, and resume
  completes it.
"""
import json
import os
import signal
import sqlite3
import sys
import tempfile
import time

from netab_helpers import PIPE, TestFailure, kill_session, netab_cmd, run_main, start

NETAB = sys.argv[1]
EXPERIMENT = """name: status-test
runs: 3
warmup: 0
seed: 11
test:
  time: 0.3
  interval: 0
variants:
  - name: big
    opts: "-l 128K"
"""
# A setup hook that holds each run until the test creates GO (at most 60 s), so that
# status is read, and the runner killed, while a known run is in progress.
HELD = """    setup: "timeout 60 sh -c 'until [ -e {go} ]; do sleep 0.05; done'"
"""


def fail(msg):
    raise TestFailure(msg)


def query(db, sql, *args):
    con = sqlite3.connect(db, timeout=30)
    try:
        return list(con.execute(sql, args))
    finally:
        con.close()


def status(db, xid, as_json=False):
    args = ["experiment", "status", "--db", db, str(xid)] + (["--json"] if as_json else [])
    r = netab_cmd(NETAB, *args, timeout=30)
    return json.loads(r.stdout) if as_json else r.stdout


def wait_running_row(db, within=60.0):
    """The (id, seq, attempt) of the 'running' row, once the campaign has one."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        if os.path.exists(db):
            try:
                rows = query(db, "SELECT id, seq, attempt FROM runs WHERE status = 'running'")
            except sqlite3.OperationalError:
                rows = []  # the schema is not committed yet
            if rows:
                return rows[0]
        time.sleep(0.05)
    fail(f"no run row became 'running' within {within} s")


def test_kill9(tmp):
    db = os.path.join(tmp, "k.db")
    path = os.path.join(tmp, "k.yaml")
    go = os.path.join(tmp, "go")
    with open(path, "w") as f:
        f.write(EXPERIMENT + HELD.format(go=go))
    p = start([NETAB, "experiment", "run", "--db", db, path])
    run_id, seq, attempt = wait_running_row(db)
    xid = query(db, "SELECT experiment_id FROM runs WHERE id = ?", run_id)[0][0]
    live = status(db, xid, as_json=True)
    if live["state"] != "running" or not live["runner"]["alive"] or \
            live["runner"]["pid"] != p.pid:
        fail(f"while the campaign runs, status says {live}")
    text = status(db, xid)
    if f"runner:      pid {p.pid} on " not in text or \
            f"in progress: run seq {seq} (variant big, cell default, attempt {attempt})" \
            not in text:
        fail(f"status of a running campaign:\n{text}")
    kill_session(p)
    beat = query(db, "SELECT heartbeat FROM runners WHERE pid = ?", p.pid)[0][0]
    text = status(db, xid)
    want = (f"experiment {xid} (status-test): stopped\nnot running: interrupted at run seq {seq} "
            f"(variant big, cell default, attempt {attempt}) (runner gone since {beat})\n")
    if not text.startswith(want) or "runner vanished" not in text or \
            f"resume:      netab experiment resume --db {db} {xid}" not in text:
        fail(f"status after kill -9: want it to start\n{want}\nand say 'runner vanished' and "
             f"how to resume; got:\n{text}")
    j = status(db, xid, as_json=True)
    if (j["state"] != "stopped" or j["runner"]["alive"] or not j["stopped_mid_run"]
            or j["last_run"]["run_id"] != run_id or j["gone_since"] != beat):
        fail(f"status --json after kill -9: {j}")
    lst = json.loads(netab_cmd(NETAB, "experiment", "list", "--db", db, "--json").stdout)
    if [(x["status"], x["state"], x["stored_status"]) for x in lst] != \
            [("stopped", "stopped", "running")]:
        fail(f"list after kill -9 (status and state must say stopped, stored_status running): "
             f"{lst}")
    print(f"kill -9: {text.splitlines()[1]}", flush=True)

    with open(go, "w"):
        pass  # the hook lets every run through now
    r = netab_cmd(NETAB, "experiment", "resume", "--db", db, str(xid), timeout=120)
    err = query(db, "SELECT status, error FROM runs WHERE id = ?", run_id)[0]
    if err[0] != "interrupted" or not err[1].startswith(f"runner vanished (pid {p.pid} on "):
        fail(f"the killed run after resume: {err}")
    done = status(db, xid, as_json=True)
    if done["state"] != "done" or done["completed"] != 3 or done["ok"] != 3:
        fail(f"after resume: {done}\n{r.stderr}")
    print(f"resume: the killed run says '{err[1]}'; {done['ok']} of 3 ok", flush=True)


def test_sigpipe(tmp):
    db = os.path.join(tmp, "p.db")
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(EXPERIMENT)
    # Progress (stderr) into `head -n 1`, which exits after the first line; bash reports
    # netab's own exit status.
    script = ('"$0" experiment run --db "$1" "$2" 2>&1 >/dev/null | head -n 1 >/dev/null; '
              'echo "rc=${PIPESTATUS[0]}"')
    out = start(["bash", "-c", script, NETAB, db, path], stdout=PIPE).finish(timeout=120).stdout
    rc = int(out.strip().rsplit("rc=", 1)[1])
    if rc != 128 + signal.SIGPIPE:
        fail(f"a campaign whose output reader went away exited {rc}, want {128 + signal.SIGPIPE}")
    ended = query(db, "SELECT end_reason FROM runners ORDER BY id DESC LIMIT 1")[0][0]
    if ended != "interrupted by signal 13 (Broken pipe)":
        fail(f"runner end after SIGPIPE: {ended!r}")
    st = status(db, 1, as_json=True)
    if st["state"] != "stopped" or "signal 13" not in st["gone_why"]:
        fail(f"status after SIGPIPE: {st}")
    netab_cmd(NETAB, "experiment", "resume", "--db", db, "1", timeout=120)
    if status(db, 1, as_json=True)["state"] != "done":
        fail("resume after SIGPIPE did not complete the campaign")
    print(f"SIGPIPE: exit {rc}, runner ended: {ended}", flush=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_kill9(tmp)
        test_sigpipe(tmp)


if __name__ == "__main__":
    run_main(lambda netab: main())
