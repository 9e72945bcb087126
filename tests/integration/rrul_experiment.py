#!/usr/bin/env python3
"""An experiment whose matrix axis is rrul's load (issue 31): load_flows: [1, 4] on loopback.

`netab experiment run` of `test: {test: rrul, time: 1}` with `matrix: {load_flows: [1, 4]}`
and two variants (--load up, --load both), one run per cell; the JSON report lists rrul's
metrics and holds, for every variant and cell, rrul_loaded_p50 and rpm equal (1e-9) to the
stored run documents' end.rrul.loaded.p50_us (in ms) and end.rrul.rpm, whose load_flows is
the cell's. `validate` refuses load_flows with a test other than rrul, naming the option.
"""

import json
import os
import shutil
import sqlite3
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

FLOWS = [1, 4]
VARIANTS = {"up": "up", "both": "both"}

EXPERIMENT = """name: rrul-flows
runs: 1
warmup: 0
seed: 7
test:
  test: {test}
  time: 1
  interval: 0
variants:
  - name: up
    opts: "--load up --rrul-phases 1,1"
  - name: both
    opts: "--load both --rrul-phases 1,1"
matrix:
  load_flows: [1, 4]
"""


def stored_docs(db):
    """{(variant, cell): result document} of the measured runs."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT variant, cell, result_json FROM runs WHERE experiment_id = 1 AND "
                       "status = 'ok'").fetchall()
    con.close()
    return {(v, c): json.loads(t) for v, c, t in rows}


def result(rep, variant, cell, metric):
    for x in rep["results"]:
        if x["variant"] == variant and x["cell"] == cell and x["metric"] == metric:
            return x
    check(False, f"the JSON report has {metric} for {variant} in cell {cell}")
    return None


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def test(netab, tmp):
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write(EXPERIMENT.format(test="tcp_rr"))
    r = run_cmd([netab, "experiment", "validate", bad], expect_rc=2)
    check("--load-flows" in r.stderr and "--test rrul" in r.stderr,
          "validate refuses load_flows without rrul, naming the option", r.stderr)
    path = os.path.join(tmp, "rrul.yaml")
    with open(path, "w") as f:
        f.write(EXPERIMENT.format(test="rrul"))
    db = os.path.join(tmp, "rrul.db")
    run_cmd([netab, "experiment", "run", "--db", db, path], timeout=300)
    rep = json.loads(run_cmd([netab, "report", "--db", db, "--format", "json", "1"],
                             expect_rc=(0, 1)).stdout)
    names = [m["name"] for m in rep["metrics"]]
    check("rrul_loaded_p50" in names and "rpm" in names, "the report lists rrul's metrics", names)
    docs = stored_docs(db)
    check_eq(sorted(docs), sorted((v, f"load_flows={n}") for v in VARIANTS for n in FLOWS),
             "every variant and cell ran")
    for (variant, cell), doc in sorted(docs.items()):
        rr = doc["end"]["rrul"]
        label = f"{variant} {cell}"
        check_eq(rr["load_flows"], int(cell.split("=")[1]), f"{label}: the run's load flows")
        check_eq(rr["load"], VARIANTS[variant], f"{label}: the run's load direction")
        p50 = result(rep, variant, cell, "rrul_loaded_p50")
        rpm = result(rep, variant, cell, "rpm")
        check(p50["n"] == 1 and close(p50["values"][0], rr["loaded"]["p50_us"] / 1000),
              f"{label}: rrul_loaded_p50 is the run's loaded p50 (ms)", p50["values"],
              rr["loaded"]["p50_us"])
        check(rpm["n"] == 1 and rpm["values"][0] > 0 and close(rpm["values"][0], rr["rpm"]),
              f"{label}: rpm is the run's", rpm["values"], rr["rpm"])
    log("ok: the report holds rrul_loaded_p50 and rpm for every variant and cell")


def main(netab):
    tmp = tempfile.mkdtemp(prefix="netab-rrul-exp-")
    try:
        test(netab, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run_main(main)
