#!/usr/bin/env python3
"""A campaign killed with SIGKILL at >= 20 random moments and resumed ends
with exactly the planned runs, none duplicated.

Loop: start `netab experiment run` (or `resume ID`), sleep a random 0-1.5 s
(seeded, so a failure replays), SIGKILL the runner and every process of its
session (the `netab run` children sit in process groups of their own), until
at least 20 kills have happened; then resume to completion. If a campaign
finishes between kills, a new one is started, so the kill count never depends
on the machine's speed. Every experiment is then checked in the database:
each planned seq has exactly one ok/failed run, every other row of that seq is
'interrupted', attempts count 1, 2, ..., no row is left 'running' and no row
has a seq outside the plan; `experiment status` says completed == planned.
"""
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time

from netab_helpers import TestFailure, kill_session, netab_cmd, run_main, start

NETAB = sys.argv[1]
KILLS = 20
SEED = int(os.environ.get("CAMPAIGN_KILL_SEED", "20261129"))
DEADLINE = time.monotonic() + 240  # a hard bound on the whole test

EXPERIMENT = """\
name: kill-test
runs: 3
warmup: 1
seed: 7
test:
  test: tcp_stream
  time: 0.2
  interval: 0
variants:
  - name: big
    opts: "-l 128K"
  - name: small
    opts: "-l 16K"
matrix:
  streams: [1, 2]
"""
PLANNED = 2 * 2 * (3 + 1)


def fail(msg):
    raise TestFailure(msg)


def experiment_ids(db):
    if not os.path.exists(db):
        return []
    con = sqlite3.connect(db, timeout=30)
    try:
        return [r[0] for r in con.execute("SELECT id FROM experiments ORDER BY id")]
    except sqlite3.OperationalError:
        return []  # killed before the schema was committed
    finally:
        con.close()


def check_experiment(db, xid):
    con = sqlite3.connect(db, timeout=30)
    plan = {r[0] for r in con.execute("SELECT seq FROM plan WHERE experiment_id = ?", (xid,))}
    rows = list(con.execute("SELECT seq, status, attempt FROM runs WHERE experiment_id = ? "
                            "ORDER BY seq, attempt, id", (xid,)))
    con.close()
    if plan != set(range(1, PLANNED + 1)):
        fail(f"experiment {xid}: plan seqs are {sorted(plan)}, want 1..{PLANNED}")
    by_seq = {}
    for seq, status, attempt in rows:
        if seq not in plan:
            fail(f"experiment {xid}: a run has seq {seq}, which is not planned")
        by_seq.setdefault(seq, []).append((status, attempt))
    dup = interrupted = failed = 0
    for seq in sorted(plan):
        runs = by_seq.get(seq, [])
        final = [s for s, _ in runs if s in ("ok", "failed")]
        other = [s for s, _ in runs if s not in ("ok", "failed")]
        if len(final) == 0:
            fail(f"experiment {xid}: seq {seq} has no completed run: {runs}")
        if len(final) > 1:
            dup += 1
        if any(s != "interrupted" for s in other):
            fail(f"experiment {xid}: seq {seq} has rows that are neither final nor "
                 f"interrupted: {runs}")
        if [a for _, a in runs] != list(range(1, len(runs) + 1)):
            fail(f"experiment {xid}: seq {seq} attempts are {runs}")
        if runs[-1][0] not in ("ok", "failed"):
            fail(f"experiment {xid}: seq {seq} was run again after it completed: {runs}")
        interrupted += len(other)
        failed += final.count("failed")
    if dup:
        fail(f"experiment {xid}: {dup} seqs have more than one completed run")
    st = netab_cmd(NETAB, "experiment", "status", "--db", db, str(xid), "--json", timeout=30)
    if st.returncode != 0:
        fail(f"experiment status exited {st.returncode}: {st.stderr}")
    s = json.loads(st.stdout)
    if s["planned"] != PLANNED or s["completed"] != PLANNED or s["pending"] != 0:
        fail(f"experiment {xid}: status says {s}")
    return len(rows), interrupted, failed


def main():
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        exp = os.path.join(tmp, "kill.yaml")
        with open(exp, "w") as f:
            f.write(EXPERIMENT)
        kills = 0
        current = None  # experiment being killed and resumed
        known = set()
        starts = 0
        while kills < KILLS:
            if time.monotonic() > DEADLINE:
                fail(f"out of time after {kills} kills")
            out_path = os.path.join(tmp, f"out{starts}")
            argv = ([NETAB, "experiment", "resume", "--db", db, str(current)] if current
                    else [NETAB, "experiment", "run", "--db", db, exp])
            starts += 1
            with open(out_path, "w") as out:
                p = start(argv, stdout=out)
            delay = rng.uniform(0, 1.5)
            rc = p.wait_exit(delay)
            if rc is None:
                # The runner may have ended by itself just before the signal: exit 0 is fine.
                kill_session(p, expect_rc=(-signal.SIGKILL, 0))
                kills += 1
            else:
                p.finish(expect_rc=0)
            if current is None:
                new = [x for x in experiment_ids(db) if x not in known]
                if len(new) > 1:
                    fail(f"one 'run' created several experiments: {new}")
                if new:
                    current = new[0]
                    known.add(current)
            if rc is not None:
                if rc != 0:
                    fail(f"{argv} exited {rc} by itself")
                current = None  # finished between kills: start another campaign
        # Resume what is left to completion.
        for xid in sorted(known):
            r = netab_cmd(NETAB, "experiment", "resume", "--db", db, str(xid), timeout=120)
            if r.returncode != 0:
                fail(f"final resume of {xid} exited {r.returncode}: {r.stderr}")
        total_rows = total_int = total_failed = 0
        for xid in sorted(known):
            n, i, fl = check_experiment(db, xid)
            total_rows += n
            total_int += i
            total_failed += fl
        print(f"kills: {kills}, starts: {starts}, experiments: {len(known)}, planned runs: "
              f"{PLANNED * len(known)}, run rows: {total_rows}, interrupted rows: {total_int}, "
              f"failed runs: {total_failed}, duplicates: 0", flush=True)


if __name__ == "__main__":
    run_main(lambda netab: main())
