"""Failures are data (issue 29): failed runs show in their cell, with their count and
reason, in every report format; compare stops early instead of repeating a failure.

* A loopback experiment of three variants over two tests: "good" runs, "refused"
  connects to a port nobody listens on (127.0.0.1 port 1), "hook" has a setup hook
  that exits 3. The report's headline cell of each failing variant reads
  "(fails: connection refused)" or "(fails: setup exit 3)" in text, Markdown and
  HTML; a "Failed runs" section says "2 of 2 failed: <reason>"; the CSV's fails
  column and the JSON's failures (with the store's own error text, checked against
  the store's rows) say the same; no failing variant gets a verdict.
* netab compare with a failing setup hook stops after that run (exit 2, one run of
  the variant recorded, "stopped early" with the hook's status); with a variant that
  cannot connect, after that variant's first two runs failing alike.
* A UDP run that lost every datagram failing is udp_netns_loss's case 4.
"""
import csv
import io
import json
import os
import shutil
import sqlite3
import tempfile

from netab_helpers import check, check_eq, log, netab_cmd, run_main

EXPERIMENT = """name: fails
runs: 2
seed: 5
test:
  time: 0.2
variants:
  - name: good
  - name: refused
    opts: "-c 127.0.0.1 -p 1"
  - name: hook
    setup: "exit 3"
matrix:
  test: [tcp_stream, tcp_rr]
"""

SHORT = {"refused": "connection refused", "hook": "setup exit 3"}
REASON = {"refused": "cannot connect to 127.0.0.1 port 1: Connection refused",
          "hook": "setup failed: exit status 3 (command 'exit 3')"}


def stored_errors(db):
    con = sqlite3.connect(db)
    try:
        return {(v, c, e) for v, c, e in
                con.execute("select variant, cell, error from runs where status = 'failed'")}
    finally:
        con.close()


def report(netab, db, fmt):
    # Exit 2 in every format: failed runs left variants without a verdict (as compare decides).
    return netab_cmd(netab, "report", "1", "--db", db, "--format", fmt, expect_rc=2).stdout


def check_formats(netab, db):
    errors = stored_errors(db)
    check_eq(len(errors), 4, "the store holds one error text per failing variant and cell")
    for v, cell, e in errors:
        check(REASON[v] in e, f"{v} @ {cell}: the store's error holds the reason", e)
    text = report(netab, db, "text")
    md = report(netab, db, "markdown")
    html = report(netab, db, "html")
    for v in ("refused", "hook"):
        cell = f"(fails: {SHORT[v]})"
        rows = [line for line in text.splitlines() if f" {v} " in f" {line} " and cell in line]
        check_eq(len(rows), 2, f"text: {v}'s row in both cells reads {cell}")
        md_rows = [line for line in md.splitlines()
                   if line.startswith("|") and f"| {v} |" in line and f"| {cell} |" in line]
        check_eq(len(md_rows), 2, f"markdown: {v}'s row in both cells reads {cell}")
        check_eq(html.count(f"<td>{cell}</td>"), 2, f"html: {v}'s cell reads {cell}")
        for fmt, body in (("text", " ".join(text.split())), ("markdown", md), ("html", html)):
            for test in ("tcp_stream", "tcp_rr"):
                want = f"{v} @ test={test}: 2 of 2 failed: {REASON[v]}"
                check(want in body, f"{fmt}: the failed runs of {v} in {test} are listed", want)
    check("Failed runs (not compared as numbers)" in text, "text: the section is there")
    # The verdict line says why the exit status is 2, in each format.
    why = ("failed runs left refused @ test=tcp_stream without a verdict: 0 of 2 runs ok "
           "(connection refused), and other cells too")
    check(f"NO VERDICT: {why} (exit status 2)." in " ".join(text.split()), "text: no verdict, why")
    check(f"**No verdict** (exit status 2): {why}" in md, "markdown: no verdict, why")
    check(f"NO VERDICT: {why} (exit status 2).</p>" in html, "html: no verdict, why")
    check("No deciding" not in text + md + html, "no format says nothing regressed instead")

    rows = list(csv.DictReader(io.StringIO(report(netab, db, "csv"))))
    for v in ("refused", "hook"):
        mine = [r for r in rows if r["variant"] == v]
        check(mine and all(r["fails"] == f"(fails: {SHORT[v]}) 2 of 2 failed: {REASON[v]}"
                           and r["verdict"] == "not compared" and r["n"] == "0" for r in mine),
              f"csv: every row of {v} has its fails column and no verdict", mine[:2])
    check(all(r["fails"] == "" for r in rows if r["variant"] == "good"),
          "csv: the baseline's rows have no failures")

    doc = json.loads(report(netab, db, "json"))
    check_eq((doc["exit_status"], doc["exit_reason"]), (2, why), "json: the exit status and why")
    got = {(f["variant"], f["cell"]): f for f in doc["failures"]}
    check_eq(sorted(got), sorted((v, c) for v, c, _ in errors), "json: one failure per cell")
    for (v, c), f in got.items():
        check_eq((f["failed"], f["runs"], f["reason"], f["short_reason"]),
                 (2, 2, REASON[v], SHORT[v]), f"json: {v} @ {c}")
    for cell in doc["headline"]:
        for row in cell["rows"]:
            if row["variant"] != "good":
                check(row["verdict"] is None and row["failed"] == 2
                      and row["mean_text"] == f"(fails: {SHORT[row['variant']]})",
                      f"json headline: {row['variant']} has no verdict and its failures", row)
    log("ok: failed runs are shown in every format, never compared")


def compare_stops(netab):
    r = netab_cmd(netab, "compare", "--json", "--runs", "5", "--variant", "a", "--variant", "b",
                  "--setup", "exit 3", "--", "-t", "0.2", expect_rc=2)
    doc = r.doc
    check("setup hook failed" in (doc["stopped_early"] or ""), "compare names the failed hook",
          doc["stopped_early"])
    check_eq(sum(1 for x in doc["runs"] if x["variant"] == "b"), 1,
             "compare stopped after the hook's first failure")
    check(doc["exit_reason"].startswith("stopped early: variant 'b'"), "exit reason",
          doc["exit_reason"])
    r = netab_cmd(netab, "compare", "--json", "--runs", "5", "--variant", "a", "--variant", "b",
                  "--opts", "-c 127.0.0.1 -p 1", "--", "-t", "0.2", expect_rc=2)
    doc = r.doc
    check_eq(sum(1 for x in doc["runs"] if x["variant"] == "b"), 2,
             "compare stopped after b's first two runs failed alike")
    check("first two runs failed alike" in (doc["stopped_early"] or "")
          and "Connection refused" in doc["stopped_early"], "compare says why",
          doc["stopped_early"])
    check(len(doc["runs"]) < 10, "fewer runs than planned", len(doc["runs"]))
    log("ok: compare stops early on a failed hook and on two like failures")


def body(netab):
    tmp = tempfile.mkdtemp(prefix="netab-fails-")
    try:
        path = os.path.join(tmp, "fails.yaml")
        with open(path, "w") as f:
            f.write(EXPERIMENT)
        db = os.path.join(tmp, "f.db")
        # Exit 1: the experiment completed with failed runs.
        netab_cmd(netab, "experiment", "run", "--db", db, path, timeout=300, expect_rc=1)
        check_formats(netab, db)
        compare_stops(netab)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
