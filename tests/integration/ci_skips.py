#!/usr/bin/env python3
"""scripts/check_skips.py, which makes `CI=true scripts/test` fail on a skip
without a reason CI cannot provide: a skip naming a reason from
tests/ci-skip-reasons passes, a skip naming none or an unknown one fails (and
is named), passes and failures are not its business; and the harness's
TestSkip(ci_reason=...) prints the line the script looks for.
"""
import json
import os
import sys

from netab_helpers import WORK_DIR, check, run_cmd, run_main

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check_skips.py")
REASONS = os.path.join(HERE, "..", "ci-skip-reasons")


def testlog(name, entries):
    path = os.path.join(WORK_DIR, name)
    with open(path, "w") as f:
        for test, result, out in entries:
            f.write(json.dumps({"name": test, "result": result, "stdout": out}) + "\n")
    return path


def body(netab):
    ok = testlog("ok.json", [
        ("a", "OK", ""),
        ("b", "FAIL", "ci-skip-reason: nonsense"),
        ("cpus", "SKIP", "SKIP: one CPU\nci-skip-reason: no-cpu-hotplug\n"),
    ])
    r = run_cmd([sys.executable, SCRIPT, REASONS, ok])
    check("skipped: cpus" in r.stdout and "no-cpu-hotplug" in r.stdout,
          "a skip with an allowed reason is listed with it", r.stdout)
    bad = testlog("bad.json", [
        ("cpus", "SKIP", "ci-skip-reason: no-cpu-hotplug\n"),
        ("rootless", "SKIP", "SKIP: needs root\n"),
        ("made_up", "SKIP", "ci-skip-reason: tool-missing\n"),
    ])
    r = run_cmd([sys.executable, SCRIPT, REASONS, ok, bad], expect_rc=1)
    check("rootless" in r.stdout and "none given" in r.stdout, "a skip without a reason fails",
          r.stdout)
    check("made_up" in r.stdout and "(tool-missing)" in r.stdout,
          "a skip with a reason not in the list fails", r.stdout)
    check("2 test(s) skipped" in r.stdout, "exactly the two bad skips are counted", r.stdout)
    # The harness prints the reason line on a skip that names one.
    probe = os.path.join(WORK_DIR, "probe.py")
    with open(probe, "w") as f:
        f.write(f"import sys\nsys.path.insert(0, {HERE!r})\n"
                "from netab_helpers import TestSkip, run_main\n"
                "def body(netab):\n    raise TestSkip('one CPU', ci_reason='no-cpu-hotplug')\n"
                "run_main(body)\n")
    r = run_cmd([sys.executable, probe, netab], expect_rc=77)
    check("SKIP: one CPU\nci-skip-reason: no-cpu-hotplug" in r.stderr,
          "TestSkip(ci_reason=...) prints the reason line", r.stderr)


if __name__ == "__main__":
    run_main(body)
