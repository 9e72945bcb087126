#!/usr/bin/env python3
"""`netab report --plot DIR` for campaigns whose figures are small.

One metric of two variants makes a forest of one row, and netab's runs
against imported iperf3 runs one of two rows: both were drawn below the
smallest figure plot/ draws (800x144, 800x178) and failed the whole report
with exit 2. A figure that cannot be written is skipped, named, and the
others written before the command exits 2. Each case here must exit 0 or 1 (a regression is a verdict),
say how many figures it wrote, and write exactly the figures the report
describes, each a valid PNG (decoded) or SVG (parsed) of at least 200 x 200.
"""
import os
import re
import tempfile
import xml.etree.ElementTree as ET

from import_report import iperf3_runs
from netab_helpers import check, check_eq, log, netab_cmd, run_main
from png_read import read_png

KINDS = ("distribution", "forest", "runorder", "heatmap")


def experiment(tmp, name, variants):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(f"name: {name}\nruns: 2\nwarmup: 0\nseed: 3\n"
                "test:\n  test: tcp_stream\n  time: 1\nvariants:\n")
        for v in variants:
            f.write(f"  - name: {v}\n    opts: \"-l 64K\"\n")
    return path


def svg_size(path):
    root = ET.parse(path).getroot()
    check(root.tag.endswith("svg"), f"{path} is an SVG document", root.tag)
    num = lambda s: float(re.match(r"[0-9.]+", s).group(0))  # noqa: E731
    return num(root.get("width")), num(root.get("height"))


def plot(netab, db, args, tmp, sub, fmt):
    """Runs report --plot; returns {file: (w, h)} after checking every file it wrote."""
    out = os.path.join(tmp, sub)
    r = netab_cmd(netab, "report", "--db", db, *args, "--plot", out, "--plot-format", fmt,
                  expect_rc=(0, 1), timeout=60)
    said = re.search(r"(\d+) figures written to", r.stderr)
    check(said is not None, "the report says how many figures it wrote", r.stderr)
    check("warning" not in r.stderr, "no figure was skipped", r.stderr)
    files = sorted(os.listdir(out))
    check_eq(len(files), int(said.group(1)), "as many files as the report says")
    sizes = {}
    for name in files:
        path = os.path.join(out, name)
        check(name.endswith("." + fmt) and name.split("-")[0] in KINDS,
              f"{name} is a named {fmt} figure")
        if fmt == "png":
            w, h, _rows = read_png(path)
        else:
            w, h = svg_size(path)
        check(200 <= w <= 8000 and 200 <= h <= 8000, f"{name} is 200..8000 wide and high",
              f"{w}x{h}")
        sizes[name] = (w, h)
    return sizes


def body(netab):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "store.db")
        r = netab_cmd(netab, "experiment", "run", "--db", db,
                      experiment(tmp, "pair", ["base", "other"]), timeout=120)
        exp = r.stdout.strip()

        # One metric compared: the forest has one row.
        for fmt in ("png", "svg"):
            sizes = plot(netab, db, [exp, "--metric", "throughput"], tmp, "one-" + fmt, fmt)
            kinds = sorted(n.split("-")[0] for n in sizes)
            check_eq(kinds, sorted(KINDS), f"one metric ({fmt}): one figure of each kind")
            log(f"ok: one metric, {fmt}: {sorted(sizes.items())}")

        # Every metric: the forest grows with its rows, taller than the one-row one.
        one = plot(netab, db, [exp, "--metric", "throughput"], tmp, "one-again", "png")
        every = plot(netab, db, [exp], tmp, "all", "png")
        forest = "forest-default-all.png"
        check(forest in one and forest in every, "both reports have the forest")
        check(every[forest][1] > one[forest][1], "the forest's height follows its rows",
              every[forest], one[forest])

        # A figure that cannot be written is skipped and named; the others are
        # written, and the command then exits 2 (an output it could not write).
        out = os.path.join(tmp, "blocked")
        os.makedirs(os.path.join(out, forest))
        r = netab_cmd(netab, "report", "--db", db, exp, "--plot", out, expect_rc=2, timeout=60)
        check(re.search(r"forest-default-all\.png: it is a directory.*; figure skipped", r.stderr),
              "the figure that cannot be written is named", r.stderr)
        check("3 figures written" in r.stderr, "the three others are written", r.stderr)
        check("1 of 4 figures could not be written" in r.stderr, "and the loss is told", r.stderr)
        for name in every:
            if name != forest:
                read_png(os.path.join(out, name))
        log("ok: an unwritable figure is skipped and named, the others written, exit 2")

        # netab's runs against imported iperf3 runs.
        j3 = os.path.join(tmp, "iperf3.json")
        iperf3_runs(j3)
        a = netab_cmd(netab, "import", "--db", db, "--variant", "iperf3", j3).stdout.strip()
        lone = netab_cmd(netab, "experiment", "run", "--db", db,
                         experiment(tmp, "lone", ["netab"]), timeout=120).stdout.strip()
        sizes = plot(netab, db, ["--experiments", f"{lone},{a}"], tmp, "imported", "png")
        check(any(n.startswith("forest-") for n in sizes), "imported runs: the forest is drawn")
        log(f"ok: imported iperf3 runs: {sorted(sizes.items())}")


if __name__ == "__main__":
    run_main(body)
