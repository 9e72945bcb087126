#!/usr/bin/env python3
"""netab run --db keeps each run: the stored row's headline figures are the
ones in the run's own JSON document, a failed run is stored with its exit
status, and an unwritable store is a clear error with exit status 1."""
import json
import os
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
        # netab compare --db: every run is kept, labelled with its variant.
        cdb = os.path.join(tmp, "compare.db")
        rc, out, err = run("compare", "--runs", "2", "--warmup", "1", "--seed", "3", "--db", cdb,
                           "--variant", "a", "--variant", "b", "--", "-t", "0.2", "-i", "0",
                           expect_rc=(0, 1))
        if rc not in (0, 1):
            fail(f"netab compare --db exited {rc}: {err[-400:]}")
        rc, out, err = run("runs", "list", "--db", cdb, "--json")
        labels = sorted(r["variant"] for r in json.loads(out))
        want = sorted(["a", "a", "b", "b", "a (warm-up)", "b (warm-up)"])
        if labels != want:
            fail(f"compare --db stored {labels}, expected {want}")
        rc, out, err = run("compare", "--db", cdb, "--cmd", "echo 1", "--metric-regex", "(1)",
                           "--variant", "a", "--variant", "b", expect_rc=2)
        if rc != 2 or "--db" not in err:
            fail(f"--db with --cmd should be a usage error: {rc} {err}")
        # A store that cannot be created: the run still prints, then exit 1 with a reason.
        blocker = os.path.join(tmp, "file")
        open(blocker, "w").close()
        rc, out, err = run("run", "-t", "0.2", "-i", "0", "--db", os.path.join(blocker, "x.db"),
                           expect_rc=1)
        if rc != 1 or "not stored" not in err:
            fail(f"an unusable --db should exit 1 saying the result was not stored: {rc} {err}")
    print("run_db: 5 checks passed")


if __name__ == "__main__":
    run_main(lambda netab: main())
