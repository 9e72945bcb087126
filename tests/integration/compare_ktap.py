#!/usr/bin/env python3
"""netab compare --format ktap and netab report --format ktap (issue 32).

KTAP is one more renderer of the one judgement, so it must say what the JSON
says: "KTAP version 1", a plan 1..N matching its N test lines, "not ok"
exactly where the deciding metric's verdict is "regressed", "ok ... # SKIP"
where nothing could be compared, and the exit status of the other formats.

* Measured by commands with fixed numbers (the same data in every
  invocation): compare --json and --format ktap of x = 100, y = 50, z = 100
  (y regressed, z within noise); a variant whose runs all fail is a SKIP.
* Two loopback variants of netab run kept in a store: compare's KTAP
  against report --format json's verdicts on the same stored runs, and
  report --format ktap against them too.
"""
import json
import os
import re
import shutil
import tempfile

from netab_helpers import check, check_eq, log, netab_cmd, run_main

TEST_LINE = re.compile(r"^(not )?ok (\d+) (.*?)(?: # SKIP (.*))?$")


def ktap(text, what):
    """The test lines of a KTAP document: [(ok, number, name, skip reason or None)]."""
    lines = text.splitlines()
    check_eq(lines[:1], ["KTAP version 1"], f"{what}: the version line")
    plan = re.fullmatch(r"1\.\.(\d+)", lines[1] if len(lines) > 1 else "")
    check(plan, f"{what}: the plan after the version line", text[:300])
    tests = []
    for line in lines[2:]:
        if line.startswith("#"):
            continue
        m = TEST_LINE.match(line)
        check(m, f"{what}: neither a test line nor a diagnostic", line)
        tests.append((m.group(1) is None, int(m.group(2)), m.group(3), m.group(4)))
    check_eq(len(tests), int(plan.group(1)), f"{what}: test lines against the plan")
    check_eq([t[1] for t in tests], list(range(1, len(tests) + 1)), f"{what}: test numbers")
    return tests


def cmd_variants(netab):
    args = ["--runs", "3", "--seed", "1", "--metric-regex", "value ([0-9]+)",
            "--variant", "x", "--cmd", "echo value 100", "--variant", "y", "--cmd",
            "echo value 50", "--variant", "z", "--cmd", "echo value 100"]
    doc = netab_cmd(netab, "compare", "--json", *args, expect_rc=1).doc
    tests = ktap(netab_cmd(netab, "compare", "--format", "ktap", *args, expect_rc=1).stdout,
                 "compare --format ktap")
    verdicts = {v["variant"]: v["verdict"] for v in doc["verdicts"]}
    check_eq(len(tests), len(verdicts), "a test per comparison with the baseline")
    for ok, _, name, skip in tests:
        variant = name.split(" vs ")[0]
        check_eq(ok, verdicts[variant] != "regressed", f"{name}: ok against {verdicts[variant]}")
        check(skip is None, f"{name}: skipped", skip)
    check_eq([t[0] for t in tests], [False, True], "y regressed, z did not")
    log("ok: compare --format ktap: not ok where --json says regressed, exit 1 both")

    skip = ["--runs", "2", "--seed", "1", "--metric-regex", "value ([0-9]+)", "--variant", "x",
            "--cmd", "echo value 100", "--variant", "broken", "--cmd", "false"]
    r = netab_cmd(netab, "compare", "--format", "ktap", *skip, expect_rc=2)
    tests = ktap(r.stdout, "a variant without values")
    check(tests and tests[0][0] and tests[0][3], "a variant without values is ok # SKIP", r.stdout)
    check("broken" in tests[0][3], "the SKIP names the variant", tests[0][3])
    log("ok: nothing measured: ok # SKIP with the reason, exit 2")


def deciding_verdicts(report):
    """{(cell, variant): verdict} of report's deciding metrics (JSON)."""
    decide = {c["name"]: c["deciding_metric"] for c in report["cells"]}
    return {(r["cell"], r["variant"]): r["comparison"]["verdict"] for r in report["results"]
            if r["comparison"] and r["metric"] == decide[r["cell"]]}


def stored_runs(netab, tmp):
    db = os.path.join(tmp, "ktap.db")
    r = netab_cmd(netab, "compare", "--format", "ktap", "--db", db, "--runs", "3", "--seed", "5",
                  "--variant", "big", "--variant", "small", "--opts", "-l 4K", "--", "-t", "0.5",
                  expect_rc=(0, 1))
    tests = ktap(r.stdout, "compare --format ktap (loopback)")
    report = json.loads(netab_cmd(netab, "report", "1", "--db", db, "--format", "json",
                                  expect_rc=r.returncode).stdout)
    verdicts = deciding_verdicts(report)
    check(len(verdicts) == 1, "one comparison on the deciding metric", verdicts)
    (cell, variant), verdict = next(iter(verdicts.items()))
    check_eq(len(tests), 1, "compare: one test line")
    check_eq(tests[0][0], verdict != "regressed", f"compare's test against report's {verdict}")
    rtests = ktap(netab_cmd(netab, "report", "1", "--db", db, "--format", "ktap",
                            expect_rc=r.returncode).stdout, "report --format ktap")
    check_eq(len(rtests), len(verdicts), "report: a test per comparison")
    check_eq(rtests[0][0], verdict != "regressed", f"report's test against its {verdict}")
    check(rtests[0][2].startswith(f"{cell}: {variant} vs big"), "report's test name", rtests[0][2])
    netab_cmd(netab, "report", "1", "--db", db, "--format", "ktap", "--sections", "headline",
              expect_rc=2)
    log(f"ok: loopback, stored: compare's and report's KTAP say {verdict} as report's JSON does")


def body(netab):
    tmp = tempfile.mkdtemp(prefix="netab-ktap-")
    try:
        cmd_variants(netab)
        stored_runs(netab, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
