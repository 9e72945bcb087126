#!/usr/bin/env python3
"""The HTML report of the demo campaign, checked in a real headless Chromium.

Runs examples/block-size.yaml (two variants, about 20 s on loopback), writes
`netab report --format html`, and checks:
- the file is self-contained: no script, no link, image or frame element, no
  src attribute, every href an in-page anchor that exists, no url() or
  @import other than in-page references;
- its figures (distribution with one point per measured run, forest, run
  order, heatmap) and tables are there, with a text alternative per figure;
- Chromium (Debian's package, --no-sandbox for root, network names mapped
  to nowhere) renders it with no console message at all, a screenshot that
  is not blank and shows the points' colours, the same at phone width, and
  --dump-dom holds the figures and tables. The console detection is proven
  first on a deliberately broken page, which must be caught.
"""

import glob
import html.parser
import os
import shutil
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main
from png_read import count_pixels, read_png

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "block-size.yaml")
SVG_NS = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")


class Page(html.parser.HTMLParser):
    """Collects what the checks need: tags, ids, hrefs, figures, tables."""

    def __init__(self):
        super().__init__()
        self.tags, self.ids, self.hrefs, self.srcs = [], set(), [], []
        self.figures, self.tables, self.svgs, self.labels = [], 0, 0, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        for k in ("href", "xlink:href"):
            if k in a:
                self.hrefs.append(a[k])
        if "src" in a:
            self.srcs.append(a["src"])
        if tag == "figure":
            self.figures.append(a)
        elif tag == "table":
            self.tables += 1
        elif tag == "svg":
            self.svgs += 1
            self.labels.append(a.get("aria-label", ""))


def parse(text):
    p = Page()
    p.feed(text)
    return p


def check_self_contained(text, page):
    for tag in ("script", "link", "img", "iframe", "object", "embed", "base"):
        check(tag not in page.tags, f"the report has no <{tag}>")
    check(not page.srcs, "no src attributes", page.srcs[:3])
    for h in page.hrefs:
        check(h.startswith("#") and h[1:] in page.ids, "every link is to an anchor of the page", h)
    rest = text
    for ns in SVG_NS:
        rest = rest.replace(ns, "")
    for needle in ("http:", "https:", "//fonts", "@import", "file:"):
        check(needle not in rest, f"no external reference ({needle})")
    check(rest.count("url(") == rest.count("url(#"), "url() only to in-page ids")


def chromium(args, d, timeout=60):
    """Runs headless Chromium with no network and its console on stderr."""
    exe = shutil.which("chromium")
    # A missing browser fails the suite: scripts/deps installs it.
    check(exe is not None, "chromium is not installed (sh scripts/deps installs it)")
    argv = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
            "--disable-background-networking", "--disable-extensions",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={d}/chrome-profile",
            "--enable-logging=stderr", "--v=0"] + args
    return run_cmd(argv, timeout=timeout)


def console_messages(stderr):
    """Chromium logs every console message as 'INFO:CONSOLE(line)] "text", source: ...'."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def prove_console_detection(d):
    broken = os.path.join(d, "broken.html")
    with open(broken, "w") as f:
        f.write("<!DOCTYPE html><html><body><p>broken</p>"
                "<script>console.error('netab-broken-page'); noSuchFunction();</script>"
                "</body></html>")
    r = chromium(["--dump-dom", "file://" + broken], d)
    msgs = console_messages(r.stderr)
    check(any("netab-broken-page" in m for m in msgs), "the console error is detected", r.stderr)
    check(any("noSuchFunction" in m for m in msgs), "the uncaught exception is detected",
          r.stderr)
    log(f"ok: console detection proven on a broken page ({len(msgs)} messages caught)")


def blue_points(p):
    # The palette's first colour (0, 114, 178) at 80% over white, as the point marks.
    return abs(p[0] - 51) < 20 and abs(p[1] - 142) < 20 and abs(p[2] - 193) < 20


def vermillion_points(p):
    return abs(p[0] - 221) < 20 and abs(p[1] - 126) < 20 and abs(p[2] - 51) < 20


def check_screenshot(path, width, height, what, min_point_pixels):
    w, h, rows = read_png(path)
    check_eq((w, h), (width, height), f"{what}: screenshot size")
    inked = count_pixels(rows, lambda p: p != (255, 255, 255))
    blue, verm = count_pixels(rows, blue_points), count_pixels(rows, vermillion_points)
    check(inked > w * h // 50, f"{what}: the screenshot is not blank", inked)
    # Each colour: a variant's 4 runs in the distribution and its 5 (warm-up too) in the run order.
    check(blue > min_point_pixels and verm > min_point_pixels,
          f"{what}: the distribution's points are visible", blue, verm)
    return w, h, inked, blue, verm


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-report-html-")
    try:
        prove_console_detection(d)
        db = os.path.join(d, "demo.db")
        r = run_cmd([netab, "experiment", "run", "--db", db, EXAMPLE], timeout=120)
        check_eq(r.returncode, 0, "the demo campaign\n" + r.describe())
        xid = r.stdout.strip()
        r = run_cmd([netab, "report", "--db", db, xid, "--format", "html"], expect_rc=(0, 1))
        check(r.returncode in (0, 1), "report --format html\n" + r.describe())
        check_eq(r.stderr, "", "report --format html writes nothing on stderr")
        text = r.stdout
        report = os.path.join(d, "report.html")
        with open(report, "w") as f:
            f.write(text)
        check(text.startswith("<!DOCTYPE html>"), "an HTML5 document")
        page = parse(text)
        check_self_contained(text, page)
        kinds = [f.get("data-kind") for f in page.figures]
        check_eq(kinds, ["distribution", "forest", "runorder", "heatmap"], "the figures")
        check_eq(page.figures[0].get("data-points"), "8", "distribution: 4 runs x 2 variants")
        check_eq(page.figures[2].get("data-points"), "10", "run order: 10 runs with warm-ups")
        check_eq(page.svgs, 4, "one inline SVG per figure")
        check(all(lbl for lbl in page.labels), "every figure has a text alternative")
        for sec in ("summary", "figures", "tables", "changes", "values", "environment",
                    "warnings", "reproduce"):
            check(sec in page.ids, f"section {sec}")
        check(page.tables >= 5, "tables: medians, changes, sorted values", page.tables)
        check("netab run" in text and "--format html" in text, "the commands to reproduce")
        log(f"ok: report.html is self-contained: {len(text)} bytes, {len(page.figures)} "
            f"figures, {page.tables} tables")

        shot = os.path.join(d, "shot.png")
        r = chromium(["--hide-scrollbars", f"--screenshot={shot}", "--window-size=1000,2600",
                      "file://" + report], d)
        check_eq(r.returncode, 0, "chromium --screenshot\n" + r.describe())
        check_eq(console_messages(r.stderr), [], "no console messages while rendering")
        w, h, inked, blue, verm = check_screenshot(shot, 1000, 2600, "desktop", 100)
        log(f"ok: screenshot {w}x{h}: {inked} inked pixels, {blue} blue and {verm} vermillion "
            f"point pixels, {os.path.getsize(shot)} bytes")

        phone = os.path.join(d, "phone.png")
        r = chromium(["--hide-scrollbars", f"--screenshot={phone}", "--window-size=390,1800",
                      "file://" + report], d)
        check_eq(r.returncode, 0, "chromium --screenshot at phone width\n" + r.describe())
        check_eq(console_messages(r.stderr), [], "no console messages at phone width")
        check_screenshot(phone, 390, 1800, "phone", 30)
        log("ok: readable at phone width (390 px): the figures scale down")

        r = chromium(["--dump-dom", "file://" + report], d)
        check_eq(r.returncode, 0, "chromium --dump-dom\n" + r.describe())
        check_eq(console_messages(r.stderr), [], "no console messages in --dump-dom")
        dom = parse(r.stdout)
        check_eq([f.get("data-kind") for f in dom.figures], kinds, "the DOM has the figures")
        check_eq(dom.svgs, 4, "the DOM has the SVGs")
        check_eq(dom.tables, page.tables, "the DOM has the tables")
        log(f"ok: the rendered DOM has {len(dom.figures)} figures and {dom.tables} tables")

        pdf = os.path.join(d, "printed.pdf")
        r = chromium(["--no-pdf-header-footer", f"--print-to-pdf={pdf}", "file://" + report], d)
        check_eq(r.returncode, 0, "chromium --print-to-pdf\n" + r.describe())
        with open(pdf, "rb") as f:
            check(f.read(5) == b"%PDF-", "the printed page is a PDF")
        log(f"ok: printed to PDF, {os.path.getsize(pdf)} bytes")

        figs = os.path.join(d, "figs")
        r = run_cmd([netab, "report", "--db", db, xid, "--plot", figs, "--plot-format", "svg"], expect_rc=(0, 1))
        check(r.returncode in (0, 1), "report --plot DIR\n" + r.describe())
        files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(figs, "*.svg")))
        check_eq(len(files), 4, "report --plot writes every figure")
        check("4 figures written" in r.stderr, "and says so", r.stderr)
        log(f"ok: report --plot DIR: {' '.join(files)}")
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
