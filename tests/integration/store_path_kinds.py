#!/usr/bin/env python3
"""--db is a regular file (created when absent) or a postgresql:// URL.

- A character device (/dev/null, /dev/zero), a FIFO and a directory are
  refused before anything is opened or created, naming the path and what
  it is: SQLite once opened /dev/null and made /dev/null-journal (mode
  0666, as root), and `report --db /dev/zero` called the device "empty".
  `netab run --db /dev/null` is refused before the test runs.
- A new store in a read-only place (a read-only tmpfs this test mounts, as
  root) says "Read-only file system", not "No such file or directory".
"""

import os
import tempfile

from netab_helpers import TestSkip, check, check_eq, log, netab_cmd, run_cmd, run_main

EXPERIMENT = """name: ro
runs: 1
warmup: 0
seed: 3
test:
  time: 0.2
  interval: 0
variants:
  - name: a
    opts: "-l 64K"
"""


def refused(netab, path, kind, *argv):
    r = netab_cmd(netab, *argv, "--db", path, expect_rc=2, timeout=60)
    check(f"--db {path} is {kind}: the results store is a regular file" in r.stderr,
          f"{' '.join(argv)} --db {path}: refused as {kind}", r.stderr)
    return r


def devices(netab):
    journal = "/dev/null-journal"
    if os.path.lexists(journal):
        # Left by a netab before this fix; it is no device and nothing uses it.
        os.unlink(journal)
    refused(netab, "/dev/null", "a character device", "runs", "list")
    refused(netab, "/dev/null", "a character device", "experiment", "list")
    r = refused(netab, "/dev/null", "a character device", "run", "-t", "0.2")
    check_eq(r.stdout, "", "run --db /dev/null ran no test (nothing on standard output)")
    r = refused(netab, "/dev/zero", "a character device", "report", "1")
    check("empty" not in r.stderr, "report --db /dev/zero does not call it empty", r.stderr)
    check(not os.path.lexists(journal), "no /dev/null-journal was created")
    check(not os.path.lexists("/dev/zero-journal"), "no /dev/zero-journal was created")
    log("ok: devices refused, nothing created beside them")


def fifo_and_dir(netab, tmp):
    fifo = os.path.join(tmp, "store.fifo")
    os.mkfifo(fifo)
    refused(netab, fifo, "a FIFO", "runs", "list")
    d = os.path.join(tmp, "store.dir")
    os.mkdir(d)
    refused(netab, d, "a directory", "runs", "list")
    check_eq(sorted(os.listdir(tmp)), ["exp.yaml", "store.dir", "store.fifo"],
             "nothing created beside them")
    check_eq(os.listdir(d), [], "nothing created in the directory")
    log("ok: a FIFO and a directory refused")


def read_only(netab, tmp, exp):
    if os.geteuid() != 0:
        raise TestSkip("mounting a read-only tmpfs needs root (CI runs as root)")
    mnt = os.path.join(tmp, "ro")
    os.mkdir(mnt)
    run_cmd(["mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mnt])
    try:
        path = os.path.join(mnt, "new.db")
        r = netab_cmd(netab, "experiment", "run", "--db", path, exp, expect_rc=2, timeout=60)
        check(f"cannot create the results database {path}: Read-only file system" in r.stderr,
              "a read-only place says so", r.stderr)
        check("No such file" not in r.stderr, "and not 'No such file or directory'", r.stderr)
        check_eq(r.stdout, "", "no experiment was created")
        log("ok: a new store on a read-only file system names the cause")
    finally:
        run_cmd(["umount", mnt])


def body(netab):
    with tempfile.TemporaryDirectory() as tmp:
        exp = os.path.join(tmp, "exp.yaml")
        with open(exp, "w") as f:
            f.write(EXPERIMENT)
        devices(netab)
        fifo_and_dir(netab, tmp)
        read_only(netab, tmp, exp)


if __name__ == "__main__":
    run_main(body)
