#!/usr/bin/env python3
"""Every file netab writes is written whole under a temporary name and renamed.

- A symbolic link where a figure or an export goes is replaced itself: the
  file it pointed to keeps its bytes (`run --plot` PNG and SVG, `report
  --plot DIR`, `runs export -o`). netab often runs as root, and a link
  planted in a shared directory once turned a victim file into a PNG.
- A symbolic link to a device (not a terminal) or a directory where a file
  would go is refused, naming what it is (a FIFO or /dev/stdout is a
  stream, written into: tests/unit/util/test_outfile.c, messages.py).
- On a full file system (a 64 KiB tmpfs this test mounts, as root) `run
  --plot` exits 2 and leaves no file, and `report --plot` writes what fits,
  exits 2 after the others, and leaves no partial figure and no temporary
  file: each file there decodes as a whole PNG.
Usage: output_files.py NETAB REPORT_FIXTURE
"""

import os
import re
import sys
import tempfile

from netab_helpers import TestSkip, check, check_eq, log, netab_cmd, run_cmd, run_main
from png_read import read_png

FIXTURE = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
VICTIM = b"precious bytes that no figure may replace\n"


def victim(tmp, name):
    """A file with known bytes and a symbolic link to it named name; returns both paths."""
    path = os.path.join(tmp, "victim-" + os.path.basename(name))
    with open(path, "wb") as f:
        f.write(VICTIM)
    os.symlink(path, name)
    return path, name


def check_replaced(target, link, what):
    with open(target, "rb") as f:
        data = f.read()
    check(data == VICTIM, f"{what}: the link's target keeps its bytes", data[:40])
    check(not os.path.islink(link), f"{what}: the link itself was replaced by a file")


def no_temporaries(d, what):
    left = [n for n in os.listdir(d) if n.endswith(".tmp")]
    check_eq(left, [], f"{what}: no temporary file left in {d}")


def symlinks(netab, tmp, db, xid):
    for ext in ("png", "svg"):
        target, link = victim(tmp, os.path.join(tmp, "run." + ext))
        netab_cmd(netab, "run", "-t", "0.3", "--plot", link, timeout=60)
        check_replaced(target, link, f"run --plot .{ext}")
        with open(link, "rb") as f:
            head = f.read(64)
        check(head.startswith(b"\x89PNG") if ext == "png" else b"<svg" in head
              or b"<?xml" in head, f"run --plot .{ext} wrote the figure", head)
    log("ok: run --plot replaces a symbolic link, not its target")

    figs = os.path.join(tmp, "figs")
    os.mkdir(figs)
    target, link = victim(tmp, os.path.join(figs, "heatmap-all-throughput.png"))
    r = netab_cmd(netab, "report", "--db", db, xid, "--plot", figs, timeout=60)
    check("7 figures written" in r.stderr, "report --plot wrote its seven figures", r.stderr)
    check_replaced(target, link, "report --plot")
    read_png(link)
    no_temporaries(figs, "report --plot")
    log("ok: report --plot replaces a symbolic link, not its target")

    target, link = victim(tmp, os.path.join(tmp, "export.json"))
    netab_cmd(netab, "runs", "export", "--db", db, "--experiment", xid, "--format", "json",
              "-o", link)
    check_replaced(target, link, "runs export -o")
    with open(link) as f:
        check(f.read().lstrip().startswith(("{", "[")), "runs export -o wrote the export")
    log("ok: runs export -o replaces a symbolic link, not its target")


def refusals(netab, tmp):
    dev = os.path.join(tmp, "dev.png")
    os.symlink("/dev/null", dev)
    r = netab_cmd(netab, "run", "-t", "0.3", "--plot", dev, expect_rc=2, timeout=60)
    check(re.search(r"dev\.png: it is a symbolic link to a character device that is no terminal",
                    r.stderr), "a link to a device is refused by name", r.stderr)
    check(os.path.islink(dev), "and left as it was")
    d = os.path.join(tmp, "dir.svg")
    os.mkdir(d)
    r = netab_cmd(netab, "run", "-t", "0.3", "--plot", d, expect_rc=2, timeout=60)
    check(re.search(r"dir\.svg: it is a directory", r.stderr), "a directory is refused", r.stderr)
    check_eq(sorted(os.listdir(d)), [], "nothing was created in the directory")
    log("ok: a link to a device and a directory are refused, naming what they are")


def full_disk(netab, tmp, db, xid):
    if os.geteuid() != 0:
        raise TestSkip("mounting a small tmpfs to fill needs root (CI runs as root)")
    mnt = os.path.join(tmp, "full")
    os.mkdir(mnt)
    run_cmd(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", mnt])
    try:
        # 52 KiB taken: about 12 KiB left, less than one figure.
        with open(os.path.join(mnt, "fill"), "wb") as f:
            f.write(b"\0" * 52 * 1024)
        fig = os.path.join(mnt, "run.png")
        r = netab_cmd(netab, "run", "-t", "0.3", "--plot", fig, expect_rc=2, timeout=60)
        check("No space left on device" in r.stderr, "run --plot says the disk is full",
              r.stderr)
        check(not os.path.exists(fig), "run --plot left no partial figure")
        no_temporaries(mnt, "run --plot")

        figs = os.path.join(mnt, "figs")
        r = netab_cmd(netab, "report", "--db", db, xid, "--plot", figs, expect_rc=2,
                      timeout=60)
        failed = re.findall(r"/([\w.-]+\.png)\b[^\n]*No space left on device", r.stderr)
        check(len(failed) >= 1, "report --plot names the figures the full disk cost", r.stderr)
        check(re.search(rf"{len(failed)} of 7 figures could not be written", r.stderr),
              "and ends with how many of all were lost", r.stderr)
        for name in failed:
            check(not os.path.exists(os.path.join(figs, name)), f"no partial {name}")
        for name in os.listdir(figs):
            read_png(os.path.join(figs, name))  # raises on a truncated file
        check_eq(len(os.listdir(figs)), 7 - len(failed), "the figures that fitted are whole")
        no_temporaries(figs, "report --plot")
        log(f"ok: a full disk: {len(failed)} figures lost, no partial file, exit 2")
    finally:
        run_cmd(["umount", mnt])


def body(netab):
    check(FIXTURE is not None, "usage: output_files.py NETAB REPORT_FIXTURE")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "store.db")
        xid = run_cmd([FIXTURE, db, "same"]).stdout.strip()
        symlinks(netab, tmp, db, xid)
        refusals(netab, tmp)
        full_disk(netab, tmp, db, xid)


if __name__ == "__main__":
    run_main(body)
