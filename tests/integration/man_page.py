#!/usr/bin/env python3
"""`man netab` works after the README's first command: scripts/build runs
scripts/install-man, which installs docs/netab.1 where man finds it. Here it
installs into a MANDIR of the test's own (the machine's /usr/local copy is
shared with whatever else built netab): the installed page equals
docs/netab.1, `man -w netab` finds it through MANPATH, man renders it, and
a second run leaves it alone. scripts/build calls install-man.
"""
import filecmp
import os

from netab_helpers import WORK_DIR, check, check_eq, run_cmd, run_main

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def body(netab):
    mandir = os.path.join(WORK_DIR, "man")
    env = {"MANDIR": mandir}
    run_cmd(["sh", os.path.join(ROOT, "scripts", "install-man")], env=env)
    page = os.path.join(mandir, "man1", "netab.1")
    check(os.path.exists(page) and filecmp.cmp(page, os.path.join(ROOT, "docs", "netab.1"),
                                               shallow=False),
          "the installed page equals docs/netab.1", page)
    r = run_cmd(["man", "-w", "netab"], env={"MANPATH": mandir})
    check_eq(os.path.realpath(r.stdout.strip()), os.path.realpath(page), "man -w netab")
    r = run_cmd(["man", "-P", "cat", "netab"], env={"MANPATH": mandir, "MANWIDTH": "80"})
    check("NETAB(1)" in r.stdout and "netab run" in r.stdout, "man renders the page",
          r.stdout[:500])
    # Unchanged page: not rewritten (its time tells man-db's cache what is new).
    before = os.stat(page).st_mtime_ns
    run_cmd(["sh", os.path.join(ROOT, "scripts", "install-man")], env=env)
    check_eq(os.stat(page).st_mtime_ns, before, "a second install leaves the page alone")
    with open(os.path.join(ROOT, "scripts", "build")) as f:
        check("sh scripts/install-man" in f.read(), "scripts/build installs the manual")


if __name__ == "__main__":
    run_main(body)
