#!/usr/bin/env python3
"""An experiment over flow counts reports fairness and transactions per flow count (issue 30).

A real loopback experiment, tcp_rr with `threads: 2` and `matrix: {flows: [1, 100, 1000]}`,
two one-second runs per cell:
- JSON report: every cell (flows=1, 100, 1000) has the fairness figure (Jain's index), its
  values per run equal (1e-9) to end.flows.transactions.client.fairness of the run documents
  the store holds (read with sqlite3), within [1/F, 1]; transactions per second and the median
  transactions per flow likewise; every document's per-flow transactions sum to its total;
- text (--full) and Markdown have the fairness table with one column per flow count, and
  `--metric fairness` makes it the headline's column;
- `netab history --metric fairness` and `netab compare --metric fairness` take the name.
Reports of experiments without flows list none of these metrics: the golden replay of the
report tests checks that.
"""

import json
import os
import re
import shutil
import sqlite3
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

FLOWS = [1, 100, 1000]

EXPERIMENT = """name: flows
runs: 2
warmup: 0
seed: 3
test:
  test: tcp_rr
  time: 1
  threads: 2
  interval: 0
variants:
  - name: base
    opts: ""
matrix:
  flows: [1, 100, 1000]
"""

# The report's figure name -> its path in a run document (metric/metric.c's table).
FIGURES = {
    "fairness": "end.flows.transactions.client.fairness",
    "transactions": "end.transactions_per_second",
    "flow_transactions_median": "end.flows.transactions.client.median",
}


def at(doc, path):
    for key in path.split("."):
        check(isinstance(doc, dict) and key in doc, "the run document has " + path)
        doc = doc[key]
    return doc


def stored_docs(db):
    """{cell: [result document, ...]} of the measured runs, in run order."""
    con = sqlite3.connect(db)
    out = {}
    rows = con.execute("SELECT cell, result_json FROM runs WHERE experiment_id = 1 AND "
                       "status = 'ok' ORDER BY id").fetchall()
    con.close()
    for cell, text in rows:
        out.setdefault(cell, []).append(json.loads(text))
    return out


def result(rep, cell, metric):
    for x in rep["results"]:
        if x["variant"] == "base" and x["cell"] == cell and x["metric"] == metric:
            return x
    check(False, f"the JSON report has {metric} in cell {cell}")
    return None


def test_json(netab, db):
    rep = json.loads(run_cmd([netab, "report", "--db", db, "--format", "json", "1"]).stdout)
    check("fairness" in [m["name"] for m in rep["metrics"]], "fairness is a listed metric",
          rep["metrics"])
    docs = stored_docs(db)
    check_eq(sorted(docs), sorted(f"flows={f}" for f in FLOWS), "the cells that ran")
    for f in FLOWS:
        cell = f"flows={f}"
        check_eq(len(docs[cell]), 2, f"{cell}: measured runs")
        for d in docs[cell]:
            check_eq(at(d, "end.flows.count"), f, f"{cell}: end.flows.count")
            tr = at(d, "end.flows.transactions.client")
            check_eq(tr["sum"], at(d, "end.transactions"), f"{cell}: per-flow sum = total")
            check(1.0 / f - 1e-9 <= tr["fairness"] <= 1 + 1e-9, f"{cell}: fairness in [1/F, 1]",
                  tr["fairness"])
        for name, path in FIGURES.items():
            want = [at(d, path) for d in docs[cell]]
            got = result(rep, cell, name)
            check_eq(got["n"], len(want), f"{cell} {name}: n")
            check(all(abs(a - b) <= 1e-9 * max(1.0, abs(b))
                      for a, b in zip(got["values"], want)),
                  f"{cell} {name}: the report's values are the stored documents'",
                  got["values"], want)
            check(abs(got["mean"] - sum(want) / len(want)) <= 1e-9 * max(1.0, abs(got["mean"])),
                  f"{cell} {name}: mean", got["mean"], want)
    log("ok: JSON report equals the stored runs in every cell")


def test_text(netab, db):
    text = run_cmd([netab, "report", "--db", db, "--full", "1"], expect_rc=(0, 1)).stdout
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Fairness across flows")]
    check_eq(len(heads), 1, "one fairness table in the text report")
    i = heads[0]
    check(re.match(r"variant +1 +100 +1000$", lines[i + 1]), "its columns: the flow counts",
          lines[i + 1])
    check(re.match(r"base( +[0-9.]+){3}$", lines[i + 2]), "its row: three figures",
          lines[i + 2])
    head = run_cmd([netab, "report", "--db", db, "--metric", "fairness", "1"],
                   expect_rc=(0, 1)).stdout
    check(re.search(r"^cell +variant +fairness", head, re.M), "--metric fairness: headline column",
          head)
    md = run_cmd([netab, "report", "--db", db, "--format", "markdown", "1"],
                 expect_rc=(0, 1)).stdout
    check(md.count("### Fairness across flows") == 1, "one Markdown fairness table", md)
    check("| variant | 1 | 100 | 1000 |" in md, "Markdown columns: the flow counts", md)
    log("ok: text and Markdown")


def test_history_compare(netab, db):
    h = run_cmd([netab, "history", "--db", db, "--metric", "fairness"]).stdout
    check(h.startswith("netab history: fairness (index), higher is better"), "history", h)
    r = run_cmd([netab, "compare", "--runs", "2", "--seed", "1", "--metric", "fairness", "--json",
                 "--variant", "a", "--variant", "b", "--", "--test", "tcp_rr", "--flows", "20",
                 "--threads", "2", "-t", "0.3"], expect_rc=(0, 1))
    doc = json.loads(r.stdout)
    check_eq(doc["metric"], "fairness", "compare: the deciding metric")
    runs = [x for x in doc["runs"] if x["status"] == "ok"]
    check(len(runs) == 4 and all(0.05 <= x["metrics"]["fairness"] <= 1 + 1e-9 for x in runs),
          "compare: every run's fairness", runs)
    log("ok: history and compare")


def body(netab):
    work = tempfile.mkdtemp(prefix="netab-report-flows-")
    try:
        spec = os.path.join(work, "flows.yaml")
        with open(spec, "w", encoding="utf-8") as f:
            f.write(EXPERIMENT)
        db = os.path.join(work, "flows.db")
        run_cmd([netab, "experiment", "validate", spec])
        run_cmd([netab, "experiment", "run", "--db", db, spec], timeout=120)
        test_json(netab, db)
        test_text(netab, db)
        test_history_compare(netab, db)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    run_main(body)
