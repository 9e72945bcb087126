#!/usr/bin/env python3
"""netab run --db keeps each run: the stored row's headline figures are the
ones in the run's own JSON document, a failed run is stored with its exit
status, and an unwritable store is a clear error with exit status 1."""
import json
import os
import sqlite3
import sys
import tempfile

from netab_helpers import TestFailure, netab_cmd, run_main

NETAB = sys.argv[1]


def run(*args, expect_rc=0):
    r = netab_cmd(NETAB, *args, expect_rc=expect_rc, timeout=60)
    return r.returncode, r.stdout, r.stderr


def fail(msg):
    raise TestFailure(msg)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "sub", "results.db")
        rc, out, err = run("run", "-t", "0.3", "-i", "0", "--json", "--db", db)
        if rc != 0:
            fail(f"netab run --db exited {rc}: {err}")
        doc = json.loads(out)
        rc, out, err = run("run", "-c", "127.0.0.1", "-p", "1", "--json", "--db", db, expect_rc=1)
        if rc != 1:
            fail(f"a refused run should exit 1, got {rc}")
        rc, out, err = run("runs", "list", "--db", db, "--json")
        if rc != 0:
            fail(f"runs list exited {rc}: {err}")
        rows = json.loads(out)
        if len(rows) != 2:
            fail(f"expected 2 stored runs, got {len(rows)}")
        ok, bad = rows
        want = doc["end"]["receiver"]["bits_per_second"]
        if ok["status"] != "ok" or abs(ok["receiver_bps"] - want) > 1e-6 * want:
            fail(f"stored receiver_bps {ok['receiver_bps']} != document's {want}")
        if abs(ok["sender_bps"] - doc["end"]["sender"]["bits_per_second"]) > 1e-3 * want:
            fail("stored sender_bps differs from the document")
        if bad["exit_code"] != 1 or bad["status"] != "failed":
            fail(f"the refused run is stored as {bad['status']} / exit {bad['exit_code']}")
        # netab compare --db: the comparison is an experiment in the store, every run kept
        # with its variant and its place in the plan (warm-ups marked).
        cdb = os.path.join(tmp, "compare.db")
        rc, out, err = run("compare", "--runs", "2", "--warmup", "1", "--seed", "3", "--db", cdb,
                           "--variant", "a", "--variant", "b", "--", "-t", "0.2", "-i", "0",
                           expect_rc=(0, 1))
        if rc not in (0, 1):
            fail(f"netab compare --db exited {rc}: {err[-400:]}")
        rc, out, err = run("runs", "list", "--db", cdb, "--json")
        listed = json.loads(out)
        labels = sorted(r["variant"] for r in listed)
        if labels != ["a", "a", "a", "b", "b", "b"] or any(r["status"] != "ok" for r in listed):
            fail(f"compare --db stored {[(r['variant'], r['status']) for r in listed]}")
        con = sqlite3.connect(cdb)
        plan = sorted(con.execute(
            "SELECT p.variant, p.warmup, p.round, r.receiver_bps > 0 FROM plan p JOIN runs r "
            "ON r.experiment_id = p.experiment_id AND r.seq = p.seq"))
        names = list(con.execute("SELECT name, status FROM experiments"))
        con.close()
        want = [("a", 0, 2, 1), ("a", 0, 3, 1), ("a", 1, 1, 1),
                ("b", 0, 2, 1), ("b", 0, 3, 1), ("b", 1, 1, 1)]
        if plan != want or names != [("compare", "done")]:
            fail(f"compare --db recorded plan {plan} and experiments {names}")
        # External commands are kept too: their output is the stored document.
        rc, out, err = run("compare", "--db", cdb, "--runs", "2", "--seed", "1", "--cmd", "echo 1",
                           "--metric-regex", "(1)", "--variant", "a", "--variant", "b", expect_rc=0)
        if rc != 0:
            fail(f"compare --db --cmd exited {rc}: {err[-400:]}")
        con = sqlite3.connect(cdb)
        docs = list(con.execute("SELECT r.result_json, r.status FROM runs r JOIN experiments e "
                                "ON r.experiment_id = e.id WHERE e.id = 2"))
        con.close()
        if len(docs) != 4 or any(d != ("1\n", "ok") for d in docs):
            fail(f"compare --db --cmd stored {docs}")
        # A store that cannot be created: the run still prints, then exit 2 (not done).
        blocker = os.path.join(tmp, "file")
        open(blocker, "w").close()
        rc, out, err = run("run", "-t", "0.2", "-i", "0", "--db", os.path.join(blocker, "x.db"),
                           expect_rc=2)
        if rc != 2 or "not stored" not in err:
            fail(f"an unusable --db should exit 2 saying the result was not stored: {rc} {err}")
    print("run_db: 6 checks passed")


if __name__ == "__main__":
    run_main(lambda netab: main())
