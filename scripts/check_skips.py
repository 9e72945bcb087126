#!/usr/bin/env python3
"""Fails when a test skipped without a reason CI cannot provide.

Usage: check_skips.py REASONS TESTLOG.json...
REASONS is tests/ci-skip-reasons (NAME then an explanation, one a line; #
comments). Each TESTLOG is meson's build/meson-logs/testlog.json. A skipped
test passes this check only if its output holds a line
"ci-skip-reason: NAME" with NAME in REASONS. Prints every skipped test with
its reason; exits 1 if any lacks an allowed one. scripts/test runs this under
CI=true.
"""
import json
import re
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        allowed = {line.split()[0] for line in f if line.strip() and not line.startswith("#")}
    bad = 0
    for path in argv[2:]:
        with open(path) as f:
            for line in f:
                t = json.loads(line)
                if t.get("result") != "SKIP":
                    continue
                out = (t.get("stdout") or "") + (t.get("stderr") or "")
                m = re.search(r"^ci-skip-reason: (\S+)", out, re.M)
                name = m.group(1) if m else None
                ok = name in allowed
                bad += not ok
                why = (f"ci-skip-reason {name}" if ok else
                       f"no allowed ci-skip-reason ({name or 'none given'})")
                print(f"skipped: {t.get('name')} ({path}): {why}")
    if bad:
        print(f"check_skips: {bad} test(s) skipped without a reason CI cannot provide "
              f"(allowed: {', '.join(sorted(allowed)) or 'none'}; see {argv[1]})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
