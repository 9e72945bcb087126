#!/usr/bin/env python3
"""Figures from the command line: netab stats --plot and netab run --plot.

`netab stats --plot out.png|out.svg base patched` must draw one point per
input value (counted in the SVG, whose point marks are the only paths at
the point opacity), with each set's name and "n = N" as labels, and a PNG
of the asked size with marks in the plot area (decoded, not just sniffed).
`netab run -t 5 --plot run.svg` must draw 5 intervals, with the cwnd and
RTT panels below the throughput (5 points each; none with -R), and `netab compare
--plot` one point per measured run of the deciding metric, keeping its
ASCII plot (and leaving it out with --no-plot). A figure name
without .png/.svg/.pdf is a usage error before anything runs.
"""

import os
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET

from netab_helpers import check, check_eq, log, run_cmd, run_main
from png_read import count_pixels, read_png

SVG = "{http://www.w3.org/2000/svg}"
BASE = [100, 102, 98, 101, 99, 103, 97, 100]
PATCHED = [90, 92, 91, 89, 93, 90, 88, 91, 94, 90, 92]


def svg_points(path):
    """The point marks of an SVG figure: paths filled at the point opacity (0.8)."""
    root = ET.parse(path).getroot()
    check_eq(root.tag, SVG + "svg", f"{path}: root element")
    return [p for p in root.iter(SVG + "path") if "fill-opacity:0.8;" in p.get("style", "")]


def svg_text_groups(path):
    """The text runs of a cairo SVG: groups whose children are all glyph <use>s."""
    root = ET.parse(path).getroot()
    return [g for g in root.iter(SVG + "g")
            if len(g) and all(c.tag == SVG + "use" for c in g)]


def ok(r, what):
    check_eq(r.returncode, 0, what + "\n" + r.describe())


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-plot-cli-")
    try:
        base, patched = os.path.join(d, "base.txt"), os.path.join(d, "patched.txt")
        with open(base, "w") as f:
            f.write("".join(f"{v}\n" for v in BASE))
        with open(patched, "w") as f:
            f.write("".join(f"{v}\n" for v in PATCHED))
        n = len(BASE) + len(PATCHED)

        svg = os.path.join(d, "out.svg")
        r = run_cmd([netab, "stats", "--plot", svg, base, patched])
        ok(r, "stats --plot out.svg")
        check("regressed" in r.stdout, "the text report is still printed", r.stdout)
        check(f"2 sets, {n} points" in r.stderr, "stderr says what was drawn", r.stderr)
        check_eq(len(svg_points(svg)), n, "SVG point marks = input values")
        # Labels: title, axis, ticks, both names, both n, the key, the forest's rows and verdict.
        texts = len(svg_text_groups(svg))
        check(texts >= 14, "SVG has the labels", texts)
        log(f"ok: stats --plot out.svg: {n} points, {texts} text runs, {os.path.getsize(svg)} bytes")

        # The same command again gives the same bytes.
        svg2 = os.path.join(d, "again.svg")
        ok(run_cmd([netab, "stats", "--plot", svg2, base, patched]), "stats --plot again")
        with open(svg, "rb") as a, open(svg2, "rb") as b:
            check(a.read() == b.read(), "equal input, equal SVG")
        log("ok: the SVG is deterministic")

        png = os.path.join(d, "out.png")
        r = run_cmd([netab, "stats", "--no-plot", "--plot", png, "--plot-width", "640",
                     "--plot-height", "600", base, patched])
        ok(r, "stats --plot out.png")
        check("+----" not in r.stdout, "--no-plot still leaves out the ASCII plot", r.stdout)
        w, h, rows = read_png(png)
        check_eq((w, h), (640, 600), "PNG size")
        # The distribution's frame: x from 80 to w-20, y from 40 to the upper part's bottom.
        inked = count_pixels(rows, lambda p: p != (255, 255, 255), (85, 45, w - 25, 300))
        coloured = count_pixels(rows, lambda p: max(p) - min(p) > 60, (85, 45, w - 25, 300))
        check(inked > 1000 and coloured > n * 15, "PNG has marks in the plot area",
              inked, coloured)
        log(f"ok: stats --plot out.png: {w}x{h}, {inked} inked and {coloured} coloured pixels "
            f"in the plot area, {os.path.getsize(png)} bytes")

        pdf = os.path.join(d, "out.pdf")
        ok(run_cmd([netab, "stats", "--plot", pdf, base, patched]), "stats --plot out.pdf")
        with open(pdf, "rb") as f:
            check(f.read(5) == b"%PDF-", "a PDF file")
        log(f"ok: stats --plot out.pdf: {os.path.getsize(pdf)} bytes")

        r = run_cmd([netab, "stats", "--plot", os.path.join(d, "out.gif"), base, patched], expect_rc=2)
        check_eq(r.returncode, 2, "an unknown figure format is a usage error\n" + r.describe())
        check(".png, .svg or .pdf" in r.stderr, "the error names the formats", r.stderr)
        r = run_cmd([netab, "stats", "--plot", svg, "--plot-width", "10", base, patched], expect_rc=2)
        check_eq(r.returncode, 2, "a tiny figure is a usage error\n" + r.describe())
        log("ok: bad figure names and sizes are usage errors")

        run_svg = os.path.join(d, "run.svg")
        r = run_cmd([netab, "run", "-t", "5", "--plot", run_svg], timeout=60)
        ok(r, "run -t 5 --plot run.svg")
        intervals = len(re.findall(r"^\s+\d+\.\d+-\s*\d+\.\d+\s+s", r.stdout, re.M))
        check_eq(intervals, 5, "the run printed 5 intervals")
        # Three panels of a point per interval: throughput, cwnd and RTT (TCP_INFO's, per interval).
        check_eq(len(svg_points(run_svg)), 15, "run.svg has 5 interval points in each of 3 panels")
        check("5 intervals drawn" in r.stderr, "stderr says what was drawn", r.stderr)
        log(f"ok: run -t 5 --plot run.svg: 5 intervals, {os.path.getsize(run_svg)} bytes")

        bidir = os.path.join(d, "bidir.png")
        r = run_cmd([netab, "run", "-t", "2", "--bidir", "--plot", bidir], timeout=60)
        ok(r, "run --bidir --plot bidir.png")
        check("4 intervals drawn" in r.stderr, "--bidir draws both directions", r.stderr)
        check_eq(read_png(bidir)[:2], (800, 900), "the timeline's default size with cwnd and RTT")
        rev = os.path.join(d, "reverse.svg")
        ok(run_cmd([netab, "run", "-t", "2", "-R", "--plot", rev], timeout=60), "run -R --plot")
        check_eq(len(svg_points(rev)), 2, "-R (the client only receives): no cwnd/RTT panels")
        r = run_cmd([netab, "run", "-t", "1", "--plot", os.path.join(d, "run.txt")], expect_rc=2)
        check_eq(r.returncode, 2, "run --plot run.txt is a usage error\n" + r.describe())
        log("ok: run --bidir draws both directions; a bad name is refused before the run")

        cmp_svg = os.path.join(d, "compare.svg")
        argv = [netab, "compare", "--runs", "3", "--warmup", "1", "--seed", "1", "--variant", "big",
                "--opts", "-l 128K", "--variant", "small", "--opts", "-l 4K", "--plot", cmp_svg,
                "--", "-t", "0.3"]
        r = run_cmd(argv, timeout=90, expect_rc=(0, 1))
        check(r.returncode in (0, 1), "compare --plot\n" + r.describe())
        check_eq(len(svg_points(cmp_svg)), 6, "compare.svg: 3 measured runs x 2 variants")
        check("+-----" in r.stdout, "compare --plot keeps the ASCII plot", r.stdout)
        r = run_cmd(argv[:-3] + ["--no-plot", "--", "-t", "0.3"], timeout=90, expect_rc=(0, 1))
        check(r.returncode in (0, 1), "compare --no-plot --plot\n" + r.describe())
        check("+-----" not in r.stdout, "--no-plot leaves out the ASCII plot only", r.stdout)
        check_eq(len(svg_points(cmp_svg)), 6, "and the figure is still drawn")
        log("ok: compare --plot draws the measured runs; --no-plot is about the ASCII plot")
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
