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
A second, real experiment (3 variants x streams 1, 2; short loopback runs)
reported with --pairs all: in Chromium's DOM the pairs table has the three
pairs of each cell with the Bonferroni level stated, and each 2x2 design's
main effects and interaction show the numbers of `--format json` of the same
report; with --transpose --baseline b the means tables have the cells as
rows and the headings name b as the baseline. The summary and the headline
table come before the figures.
"""

import glob
import html.parser
import math
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


THREE = """name: three
runs: 2
warmup: 0
seed: 7
test:
  test: tcp_stream
  time: 0.3
  interval: 0
matrix:
  streams: [1, 2]
variants:
  - name: a
    opts: "-l 16K"
  - name: b
    opts: "-l 8K"
  - name: c
    opts: "-l 4K"
"""


class Tables(html.parser.HTMLParser):
    """Every table's attributes, caption and rows (each row: its attributes and cell texts),
    and the text of every h2 and of the element with id "correction"."""

    def __init__(self):
        super().__init__()
        self.tables, self.h2, self.correction = [], [], ""
        self.text, self.where = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"attrs": a, "caption": "", "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append((a, []))
        elif tag in ("td", "th", "caption", "h2") or a.get("id") == "correction":
            self.text, self.where = [], (tag, a.get("id"))

    def handle_endtag(self, tag):
        if self.where is None or tag != self.where[0]:
            return
        text = "".join(self.text).strip()
        if self.where[1] == "correction":
            self.correction = text
        elif tag == "h2":
            self.h2.append(text)
        elif tag == "caption":
            self.tables[-1]["caption"] = text
        else:
            self.tables[-1]["rows"][-1][1].append(text)
        self.text = self.where = None

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)

    def of_class(self, cls):
        return [t for t in self.tables if t["attrs"].get("class") == cls]


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
        for sec in ("summary", "headline", "figures", "tables", "changes", "values",
                    "environment", "warnings", "reproduce"):
            check(sec in page.ids, f"section {sec}")
        check(text.index('id="headline"') < text.index('id="figures"'),
              "the headline table comes before the figures")
        check(page.tables >= 6, "tables: headline, means, changes, sorted values", page.tables)
        check("netab run" in text and "--format html" in text, "the commands to reproduce")
        log(f"ok: report.html is self-contained: {len(text)} bytes, {len(page.figures)} "
            f"figures, {page.tables} tables")

        # Tall enough for the figures, which follow the tables.
        shot = os.path.join(d, "shot.png")
        r = chromium(["--hide-scrollbars", f"--screenshot={shot}", "--window-size=1000,4600",
                      "file://" + report], d)
        check_eq(r.returncode, 0, "chromium --screenshot\n" + r.describe())
        check_eq(console_messages(r.stderr), [], "no console messages while rendering")
        w, h, inked, blue, verm = check_screenshot(shot, 1000, 4600, "desktop", 100)
        log(f"ok: screenshot {w}x{h}: {inked} inked pixels, {blue} blue and {verm} vermillion "
            f"point pixels, {os.path.getsize(shot)} bytes")

        phone = os.path.join(d, "phone.png")
        r = chromium(["--hide-scrollbars", f"--screenshot={phone}", "--window-size=390,8000",
                      "file://" + report], d)
        check_eq(r.returncode, 0, "chromium --screenshot at phone width\n" + r.describe())
        check_eq(console_messages(r.stderr), [], "no console messages at phone width")
        check_screenshot(phone, 390, 8000, "phone", 30)
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
        test_pairs_effects(netab, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def dom_tables(html_text, d, name):
    """Writes html_text, loads it in headless Chromium and parses the DOM it dumps."""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(html_text)
    check_self_contained(html_text, parse(html_text))
    r = chromium(["--dump-dom", "file://" + path], d)
    check_eq(r.returncode, 0, f"chromium --dump-dom {name}\n" + r.describe())
    check_eq(console_messages(r.stderr), [], f"no console messages in {name}")
    t = Tables()
    t.feed(r.stdout)
    return t


def check_pairs(t, doc):
    check("Every pair (deciding metric)" in t.h2, "a pairs section", t.h2)
    check("Bonferroni over the 3 pairs of each cell" in t.correction
          and "is at 98.33% and every p is multiplied by 3" in t.correction
          and "family of comparisons is at 95%" in t.correction,
          "the corrected level is stated", t.correction)
    (pairs,) = t.of_class("pairs")
    head, rows = pairs["rows"][0][1], [cells for _, cells in pairs["rows"][1:]]
    check_eq(head, ["cell", "first", "second", "change [CI]", "p", "p x 3", "verdict"],
             "pairs header")
    for cell in ("streams=1", "streams=2"):
        check_eq([r[1:3] for r in rows if r[0] == cell], [["a", "b"], ["a", "c"], ["b", "c"]],
                 f"three pairs in {cell}")
    check_eq(len(rows), len(doc["pairs"]), "one row per pair of the JSON")
    for row, p in zip(rows, doc["pairs"]):
        check_eq(row[:3], [p["cell"], p["a"], p["b"]], "the JSON's pair order")
        check_eq(row[4:], [f"{p['welch_p']:.2g}", f"{p['p_bonferroni']:.2g}", p["verdict"]],
                 f"p, corrected p and verdict as in JSON: {row} {p}")
        check(math.isclose(p["p_bonferroni"], min(1, 3 * p["welch_p"])), "p times 3", p)
    log(f"ok: HTML pairs table, {len(rows)} rows, Bonferroni level stated")


def effect_cells(e):
    pct = "-"
    if e["pct"] is not None:
        pct = f"{e['pct']:+.1f}% [{e['pct_ci_low']:+.1f}, {e['pct_ci_high']:+.1f}]"
    return [f"{e['estimate']:+.4g} [{e['ci_low']:+.4g}, {e['ci_high']:+.4g}]", pct,
            f"{e['p']:.2g}"]


def check_effects(t, doc, base, other):
    check("2x2 effects" in t.h2, "an effects section", t.h2)
    fx, tabs = doc["effects"], t.of_class("effects")
    check_eq(len(fx), 2, "two designs in JSON: each variant against the baseline x streams")
    check_eq(len(tabs), len(fx), "one HTML table per design")
    for tab, d, v in zip(tabs, fx, other):
        check_eq(tab["caption"], f"variant ({base}, {v}) x streams (1, 2), recv Mbit/s",
                 "the design's heading names the baseline first")
        rows = {a.get("data-effect"): cells for a, cells in tab["rows"][1:]}
        check_eq(sorted(rows), ["interaction", "main_a", "main_b"], "main effects, interaction")
        for key, name in (("main_a", "variant"), ("main_b", "streams"),
                          ("interaction", "interaction")):
            e = d[key]
            check(e is not None and e["estimate"] is not None, f"{key} computed", d)
            check_eq(rows[key], [name] + effect_cells(e), f"{key} as in JSON: {e}")
    log(f"ok: HTML effects: {len(tabs)} designs with main effects and interaction as in JSON")


def test_pairs_effects(netab, d):
    db, exp = os.path.join(d, "three.db"), os.path.join(d, "three.yaml")
    with open(exp, "w") as f:
        f.write(THREE)
    r = run_cmd([netab, "experiment", "run", "--db", db, exp], timeout=120)
    xid = r.stdout.strip()
    rep = [netab, "report", "--db", db, xid, "--pairs", "all"]
    text = run_cmd(rep + ["--format", "html"], expect_rc=(0, 1)).stdout
    doc = run_cmd(rep + ["--format", "json"], expect_rc=(0, 1)).doc
    t = dom_tables(text, d, "pairs.html")
    check_eq(len(doc["pairs"]), 6, "JSON: three pairs in each of two cells")
    check_pairs(t, doc)
    check_effects(t, doc, "a", ["b", "c"])
    check("Changes against the baseline, a" in t.h2, "the baseline named", t.h2)
    med = t.of_class("means")
    check(med and med[0]["rows"][0][1] == ["variant", "streams=1", "streams=2"],
          "means: variants as rows by default", med[:1])

    extra = ["--transpose", "--baseline", "b"]
    text = run_cmd(rep + extra + ["--format", "html"], expect_rc=(0, 1)).stdout
    doc = run_cmd(rep + extra + ["--format", "json"], expect_rc=(0, 1)).doc
    t = dom_tables(text, d, "transposed.html")
    med = t.of_class("means")
    check(med, "means tables", t.tables)
    for tab in med:
        check_eq([cells for _, cells in tab["rows"]][0], ["cell", "b", "a", "c"],
                 "--transpose: the variants as columns, the baseline b first")
        check_eq([cells[0] for _, cells in tab["rows"][1:]], ["streams=1", "streams=2"],
                 "--transpose: the cells as rows")
        check(tab["caption"].endswith("changes against b"), "caption names b", tab["caption"])
    check("Changes against the baseline, b" in t.h2, "--baseline b named in the heading", t.h2)
    check_effects(t, doc, "b", ["a", "c"])
    log("ok: HTML --transpose and --baseline b")


run_main(body)
