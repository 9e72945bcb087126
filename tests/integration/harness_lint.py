#!/usr/bin/env python3
"""Every integration test goes through the one harness, and every test file runs.

Fails (naming the file and line) when
* a Python test does not import netab_helpers or starts processes itself
  (subprocess, os.system, os.popen, os.exec*, os.spawn*, pty): only the
  harness may, since it checks exit statuses and sanitizer reports;
* a shell test does not source lib.sh, defines its own check(), runs
  "$netab" (or the fixture) outside run_netab/check, or skips with exit 77;
* a test file in tests/integration/ is not registered in its meson.build.
Usage: harness_lint.py DIR (tests/integration).
"""
import os
import re
import sys

HELPERS = {"netab_helpers.py", "lib.sh", "harness_lint.py", "png_read.py", "dut_helpers.py",
           "bisect_helpers.py"}
PY_FORBIDDEN = re.compile(r"^\s*(import subprocess|from subprocess\b)|\bsubprocess\.|"
                          r"\bos\.(system|popen|exec\w*|spawn\w*|fork)\b|\bimport pty\b")
# "$netab" at the start of a command: line start, after ; & | ( or inside $( ... ).
SH_DIRECT = re.compile(r'(^|[;&|(]|\$\()\s*"?\$\{?(netab|NETAB|fixture)\}?"?(\s|$)')


def lint_py(path, text, problems):
    if not re.search(r"^(import netab_helpers|from netab_helpers import)", text, re.M):
        problems.append(f"{path}: does not use the harness (import netab_helpers)")
    if not re.search(r"^\s+(h\.)?(run_main|main)\(\w", text, re.M):
        problems.append(f"{path}: does not end through run_main() or main()")
    for n, line in enumerate(text.splitlines(), 1):
        if PY_FORBIDDEN.search(line.split("#", 1)[0]):
            problems.append(f"{path}:{n}: starts processes without the harness: {line.strip()}")


def lint_sh(path, text, problems):
    if not re.search(r'^\. "\$\(dirname "\$0"\)/lib\.sh"$', text, re.M):
        problems.append(f'{path}: does not source lib.sh (. "$(dirname "$0")/lib.sh")')
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        code = line.split(" #", 1)[0]
        if re.match(r"^\s*check\s*\(\)", code):
            problems.append(f"{path}:{n}: defines its own check(); use lib.sh's")
        if re.search(r"\bexit 77\b", code):
            problems.append(f"{path}:{n}: skips; a missing tool or binary must fail (lib.sh need)")
        continued = n > 1 and lines[n - 2].rstrip().endswith("\\")
        if SH_DIRECT.search(code) and not continued:
            problems.append(f"{path}:{n}: runs netab outside run_netab/check: {line.strip()}")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(d, "meson.build")) as f:
        build = f.read()
    problems = []
    names = sorted(os.listdir(d))
    for name in names:
        path = os.path.join(d, name)
        if name in HELPERS or not name.endswith((".py", ".sh")):
            continue
        with open(path) as f:
            text = f.read()
        (lint_py if name.endswith(".py") else lint_sh)(path, text, problems)
        stem = name.rsplit(".", 1)[0]
        if f"'{stem}'" not in build and f"'{name}'" not in build:
            problems.append(f"{path}: not registered in {d}/meson.build, so it never runs")
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"harness_lint: {len(names)} files, every test goes through the harness")


if __name__ == "__main__":
    main()
