#!/usr/bin/env python3
"""Every spelling of a variant's duration gives the same deadline in both
campaign front ends, and the run measures what was asked:
- `netab experiment run` of variants whose opts say --time=2, -t2, "-t 2"
  and --time 2 (with -O 0.5 in the test mapping): every run is ok, measured
  2 s after a 0.5 s warm-up, and its recorded deadline is 2 x 2.5 + 60 = 65 s;
  a byte-bounded variant (--bytes=1M) records the 900 s deadline;
- `netab compare` with --opts '--time=2' runs to completion and announces the
  same formula's timeout.
"""
import os
import sqlite3
import tempfile
import json

from netab_helpers import check, check_eq, run_cmd, run_main

EXPERIMENT = """name: deadlines
runs: 1
warmup: 0
seed: 5
test:
  omit: 0.5
  interval: 0
variants:
  - name: equals
    opts: "--time=2"
  - name: attached
    opts: "-t2"
  - name: separate
    opts: "-t 2"
  - name: long
    opts: "--time 2"
  - name: bytes
    opts: "--bytes=1M"
"""


def experiment_case(netab, tmp):
    path = os.path.join(tmp, "deadlines.yaml")
    with open(path, "w") as f:
        f.write(EXPERIMENT)
    db = os.path.join(tmp, "results.db")
    r = run_cmd([netab, "experiment", "run", "--db", db, path], timeout=120)
    check(r.returncode == 0, "experiment run exits 0", r.describe())
    con = sqlite3.connect(db)
    rows = list(con.execute("SELECT variant, status, params_json, result_json FROM runs"))
    con.close()
    check_eq(sorted(v for v, *_ in rows), ["attached", "bytes", "equals", "long", "separate"],
             "one run per variant")
    for variant, status, params, result in rows:
        check_eq(status, "ok", f"{variant}: run status")
        params = json.loads(params)
        doc = json.loads(result)
        if variant == "bytes":
            check_eq(params["deadline_s"], 900, "bytes: deadline of a byte-bounded run")
            check_eq(doc["test"]["bytes"], 1 << 20, "bytes: the child was asked for 1 MiB")
            continue
        check_eq(params["deadline_s"], 2 * (2 + 0.5) + 60, f"{variant}: recorded deadline")
        check_eq(doc["test"]["duration"], 2, f"{variant}: the child's duration")
        check_eq(doc["test"]["omit"], 0.5, f"{variant}: the child's warm-up")
        secs = doc["end"]["receiver"]["seconds"]
        check(1.9 <= secs <= 2.5, f"{variant}: measured about 2 s", secs)
        argv = params["argv"]
        check("--time" in argv and argv[argv.index("--time") + 1] == "2",
              f"{variant}: the child's argv carries the parsed duration", argv)


def compare_case(netab):
    r = run_cmd([netab, "compare", "--runs", "2", "--seed", "1", "--noise", "50",
                 "--variant", "a", "--opts", "--time=2", "--variant", "b", "--opts", "-t2",
                 "--", "-i", "0"], timeout=120)
    check(r.returncode == 0, "compare of two 2 s variants exits 0", r.describe())
    check("timeout 64 s per run" in r.stderr, "compare announces 2 x 2 + 60 s", r.stderr[-600:])
    check(r.stderr.count("FAILED") == 0, "no compare run failed", r.stderr[-600:])


def body(netab):
    with tempfile.TemporaryDirectory() as tmp:
        experiment_case(netab, tmp)
    compare_case(netab)


run_main(body)
