#!/usr/bin/env python3
"""Code layout in campaigns: a variant's `layout:` file and netab report.

A short loopback campaign whose variants name System.map-style files with
known layouts (relative to the experiment file): `netab report` must show,
next to the performance verdicts, each variant's layout against the
baseline's, with the counts that follow from the maps (text within 72
columns, Markdown and JSON), say why a variant with a broken map was not
compared, and leave out variants without a file. `netab experiment
validate` must refuse a layout file that does not exist.
"""

import os
import shutil
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

# Four functions of the built-in hot set and one that is not hot.
BASE = """ffffffff81000000 T _stext
ffffffff81001000 T ip_rcv
ffffffff81001040 T ip_forward
ffffffff81001080 t nf_nat_ipv4_fn
ffffffff810010c0 T tcp_v4_rcv
ffffffff81001100 T ext4_readdir
ffffffff81001200 T _etext
"""
# ip_rcv grew by 16 bytes: every later function moved 16 bytes into its line.
PATCHED = BASE.replace("ffffffff81001040 T ip_forward", "ffffffff81001050 T ip_forward") \
    .replace("ffffffff81001080 t nf_nat_ipv4_fn", "ffffffff81001090 t nf_nat_ipv4_fn") \
    .replace("ffffffff810010c0 T tcp_v4_rcv", "ffffffff810010d0 T tcp_v4_rcv") \
    .replace("ffffffff81001100 T ext4_readdir", "ffffffff81001110 T ext4_readdir")
# Everything moved by a whole line: no offset changed.
SHIFTED = "".join(
    f"{int(line.split()[0], 16) + 64:016x} {line.split(None, 1)[1]}\n" for line in BASE.splitlines())

EXPERIMENT = """name: layout
runs: 1
warmup: 0
seed: 5
test:
  time: 0.2
  interval: 0
variants:
  - name: base
    layout: maps/base.map
  - name: patched
    layout: maps/patched.map
  - name: shifted
    layout: maps/shifted.map
  - name: broken
    layout: maps/broken.map
  - name: plain
"""


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-report-layout-")
    try:
        os.mkdir(os.path.join(d, "maps"))
        for name, text in (("base", BASE), ("patched", PATCHED), ("shifted", SHIFTED),
                           ("broken", BASE + "not a map line\n")):
            with open(os.path.join(d, "maps", name + ".map"), "w") as f:
                f.write(text)
        exp = os.path.join(d, "exp.yaml")
        with open(exp, "w") as f:
            f.write(EXPERIMENT)
        db = os.path.join(d, "x.db")

        # A missing layout file is a validation error naming the variant.
        missing = os.path.join(d, "missing.yaml")
        with open(missing, "w") as f:
            f.write(EXPERIMENT.replace("maps/shifted.map", "maps/nosuch.map"))
        r = run_cmd([netab, "experiment", "validate", missing], expect_rc=2)
        check_eq(r.returncode, 2, "validate with a missing layout file")
        check("variant 'shifted': layout: cannot read" in r.stderr and "nosuch.map" in r.stderr,
              "the error names the variant and the file", r.stderr)
        log("ok: a missing layout file fails validation")

        # Run from another directory: relative paths follow the experiment file.
        r = run_cmd([netab, "experiment", "run", "--db", db, exp], timeout=120)
        check_eq(r.returncode, 0, "experiment run\n" + r.describe())

        r = run_cmd([netab, "report", "--db", db, "1"], expect_rc=(0, 1))
        check(r.returncode in (0, 1), "report exit status\n" + r.describe())
        text = r.stdout
        for i, line in enumerate(text.splitlines()):
            check(len(line) <= 72, f"report line {i + 1} is wider than 72 columns", repr(line))
        check("Code layout against base" in text, "section heading", text)
        check("patched: 3 of 4 hot functions (4 of 7 in all) changed offset; size +0" in text,
              "patched's counts", text)
        check("3 of 4 hot functions changed their offset within a 64-byte line" in text,
              "patched's verdict", text)
        check("shifted: 0 of 4 hot functions (0 of 7 in all) changed offset; size +0" in text,
              "shifted's counts", text)
        check("broken: not compared:" in text and "line 8" in text, "broken's reason", text)
        section = []
        for line in text.split("Code layout against base", 1)[1].splitlines()[1:]:
            if not line.startswith("  "):
                break
            section.append(line)
        starts = [line.split(":")[0].strip() for line in section if not line.startswith("    ")]
        check_eq(starts, ["patched", "shifted", "broken"], "variants in the layout section")
        log("ok: text report has the code layout section")

        doc = run_cmd([netab, "report", "--db", db, "--format", "json", "1"], expect_rc=(0, 1)).doc
        lay = {x["variant"]: x for x in doc["layout"]}
        check_eq(sorted(lay), ["broken", "patched", "shifted"], "layout entries")
        p = lay["patched"]
        check_eq(p["against"], "base", "against")
        check_eq(p["file"], os.path.join(os.path.realpath(d), "maps", "patched.map"),
                 "stored absolute path")
        check_eq(p["summary"]["hot"]["in_both"], 4, "hot in both")
        check_eq(p["summary"]["hot"]["offset_changed"], 3, "hot offset changed")
        check_eq(p["summary"]["first_hot_shift"]["name"], "ip_rcv", "first hot function")
        check(p["error"] is None, "no error for patched", p)
        check_eq(lay["shifted"]["summary"]["first_hot_shift"]["shift"], 64, "whole-line shift")
        check(lay["broken"]["summary"] is None and "line 8" in lay["broken"]["error"],
              "broken's error", lay["broken"])
        log("ok: JSON report has the layout entries")

        md = run_cmd([netab, "report", "--db", db, "--format", "markdown", "1"],
                     expect_rc=(0, 1)).stdout
        check("### Code layout against base" in md and "| patched | 3 of 4 hot" in md,
              "markdown section", md)
        log("ok: Markdown report has the code layout table")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    run_main(body)
