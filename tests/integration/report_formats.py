#!/usr/bin/env python3
"""One report model, four renderings: the same numbers under the same labels.

report_fixture records a 3-variant x (2x2) experiment (test [tcp_stream,
udp_stream] x streams [1, 4], four runs each, 48 runs) through the store API.
`netab report` of it:
- by default prints at most 40 lines within 72 columns, beginning with the
  headline table; --full prints the whole report (every metric's table);
- as text, Markdown, HTML (rendered by headless Chromium, read back from its
  DOM) and JSON shows the same headline: per cell and variant the deciding
  metric's mean, its change with the verdict mark, the CPU cost and its
  change; the JSON's numbers are the means of its own run values, recomputed
  here, and each shown string is that number rounded;
- the HTML's means table shows the same mean as the text's (it once showed
  medians beside the change of the mean), and its first table comes before
  its first figure;
- at 1280 px (Chromium's layout, measured by a script added to a copy of
  the page) no table is wider than the page or scrolls sideways;
- no format of any fixture experiment prints "nan" or "inf".
Usage: report_formats.py NETAB REPORT_FIXTURE
"""

import csv
import html.parser
import io
import os
import re
import shutil
import sys
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

FIXTURE = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
NAN_INF = re.compile(r"\b(nan|inf|infinity)\b", re.I)


class Dom(html.parser.HTMLParser):
    """The headline and means tables' cell texts, and the order of tables and figures."""

    def __init__(self):
        super().__init__()
        self.order, self.tables = [], []
        self.text, self.in_table = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("table", "figure"):
            self.order.append(tag)
        if tag == "table":
            self.in_table = {"class": a.get("class"), "metric": a.get("data-metric"), "rows": []}
            self.tables.append(self.in_table)
        elif tag == "tr" and self.in_table is not None:
            self.in_table["rows"].append([])
        elif tag in ("td", "th") and self.in_table is not None:
            self.text = []
        elif tag == "br" and self.text is not None:
            self.text.append("\n")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.text is not None:
            self.in_table["rows"][-1].append("".join(self.text).strip())
            self.text = None
        elif tag == "table":
            self.in_table = None

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


# Added to a copy of the page only: the report itself has no script.
MEASURE = """<script>
const bad = [];
const width = document.documentElement.clientWidth;
document.querySelectorAll("table").forEach((t, i) => {
  if (t.getBoundingClientRect().right > width + 0.5) bad.push("table " + i + " " + t.className);
});
document.querySelectorAll(".scroll").forEach((d, i) => {
  if (d.scrollWidth > d.clientWidth + 1) bad.push("scroll " + i + " " + d.firstElementChild.className);
});
const p = document.createElement("pre");
p.id = "measured";
p.textContent = "MEASURED width=" + width + " page=" + document.documentElement.scrollWidth +
  " over=[" + bad.join("; ") + "]";
document.body.appendChild(p);
</script>
"""


def chromium_dom(page, d, size=None):
    exe = shutil.which("chromium")
    check(exe is not None, "chromium is not installed (sh scripts/deps installs it)")
    path = os.path.join(d, "report.html")
    with open(path, "w") as f:
        f.write(page)
    argv = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
            "--disable-background-networking", "--disable-extensions",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={d}/chrome-profile",
            "--dump-dom", "file://" + path] + ([f"--window-size={size}"] if size else [])
    r = run_cmd(argv, timeout=60)
    check_eq(r.returncode, 0, "chromium --dump-dom\n" + r.describe())
    dom = Dom()
    dom.feed(r.stdout)
    dom.raw = r.stdout
    return dom


def check_fits_1280(page, d):
    dom = chromium_dom(page.replace("</body>", MEASURE + "</body>"), d, "1280,900")
    m = re.search(r"MEASURED width=(\d+) page=(\d+) over=\[(.*?)\]", dom.raw)
    check(m is not None, "the measuring script ran", dom.raw[-500:])
    width, page_width, over = int(m.group(1)), int(m.group(2)), m.group(3)
    check(width >= 1200, f"the window is 1280 px wide ({width})")
    check_eq(over, "", "no table wider than 1280 px or scrolling sideways")
    check(page_width <= width, f"the page does not scroll sideways ({page_width} > {width})")
    log(f"ok: at {width} px every table fits")


def expected_rows(doc):
    """(cell heading or '', variant, mean, change, cost, cost change) per headline row."""
    rows = []
    for cell in doc["headline"]:
        for i, x in enumerate(cell["rows"]):
            rows.append((cell["heading"] if i == 0 else "", x["variant"], x["mean_text"],
                         x["change_text"], x["cost_text"], x["cost_change_text"]))
    return rows


def decimals(s):
    return len(s.split(".")[1]) if "." in s else 0


def check_rounded(shown, value, what):
    """shown is value rounded to the digits it shows."""
    digits = shown.split()[0].rstrip("%p")
    check(abs(float(digits) - value) <= 0.5 * 10 ** -decimals(digits) + 1e-9,
          f"{what}: {shown!r} is {value} rounded")


def check_json(doc):
    """The headline's numbers against the JSON's own run values, recomputed here."""
    values = {(r["variant"], r["cell"], r["metric"]): r for r in doc["results"]}
    for cell in doc["headline"]:
        base = None
        for x in cell["rows"]:
            for metric, key, text in ((cell["metric"], "mean", "mean_text"),
                                      (cell["cost_metric"], "cost_mean", "cost_text")):
                v = values[(x["variant"], cell["cell"], metric)]["values"]
                mean = sum(v) / len(v)
                check(abs(mean - x[key]) <= 1e-9 * abs(mean), f"{metric} mean recomputed", x)
                check_rounded(x[text], mean, f"{cell['heading']} {x['variant']} {metric}")
            if base is None:
                base = x
                check_eq((x["change"], x["change_text"]), (None, ""), "the baseline has no change")
                continue
            rel = 100 * (x["mean"] - base["mean"]) / base["mean"]
            check(abs(rel - x["change"]) <= 1e-6 * max(1, abs(rel)), "change recomputed", x)
            check_rounded(x["change_text"], rel, f"{cell['heading']} {x['variant']} change")
            mark = {"improved": "*", "regressed": "!", "within noise": "=",
                    "no difference proven": "?"}[x["verdict"]]
            check(x["change_text"].endswith(" " + mark), "the mark is the verdict's", x)
    log(f"ok: JSON headline: {len(doc['headline'])} cells, means and changes recomputed")


def check_text(text, doc):
    lines = text.splitlines()
    check(len(lines) <= 40, f"the default report has at most 40 lines ({len(lines)})", text)
    long = [line for line in lines if len(line) > 72]
    check(not long, "every line within 72 columns", long)
    # The title block, then the headline table first.
    start = lines.index("") + 1
    cell = doc["headline"][0]
    head = ["cell", "variant", *doc_label(doc, cell["metric"]).split(), "change",
            *doc_label(doc, cell["cost_metric"]).split(), "change"]
    check_eq(lines[start].split(), head, "the first table is the headline")
    rows = expected_rows(doc)
    got = lines[start + 1:start + 1 + len(rows)]
    for line, row in zip(got, rows):
        check_eq(line.split(), " ".join(row).split(), "text headline row as in JSON")
    log(f"ok: text: {len(lines)} lines, headline first with the JSON's {len(rows)} rows")


def doc_label(doc, metric):
    return {m["name"]: m for m in doc["metrics"]}[metric]["label"]


def check_markdown(md, doc):
    table = [line for line in md.splitlines() if line.startswith("| ")]
    first = md.index("### Headline")
    check(first < md.index("| variant |"), "Markdown: the headline comes first")
    rows = []
    for line in table:
        cells = [c.strip().replace("\\*", "*") for c in line.strip("|").split("|")]
        if cells[0] == "cell" or cells[0] == "variant":
            if rows:
                break
            continue
        rows.append(tuple(cells))
    want = expected_rows(doc)
    check_eq(rows[:len(want)], want, "Markdown headline rows as in JSON")
    log(f"ok: Markdown headline: {len(want)} rows as in JSON")


def check_html(page, doc, d):
    dom = chromium_dom(page, d)
    check("figure" in dom.order and dom.order.index("table") < dom.order.index("figure"),
          "HTML: the first table is above the first figure", dom.order[:5])
    heads = [t for t in dom.tables if t["class"] == "headline"]
    check_eq(dom.tables[0]["class"], "headline", "HTML: the first table is the headline")
    rows = []
    for t in heads:
        for cells in t["rows"][1:]:
            rows.append(tuple(cells) if len(cells) == 6 else ("",) + tuple(cells))
    check_eq(rows, expected_rows(doc), "HTML headline rows (Chromium's DOM) as in JSON")
    # The means table of the deciding metric shows the headline's means.
    means = [t for t in dom.tables if t["class"] == "means" and t["metric"] == "throughput"]
    check_eq(len(means), 1, "HTML: one means table for throughput")
    for cell in doc["headline"]:
        for x in cell["rows"]:
            row = next(r for r in means[0]["rows"][1:] if r[0] == x["variant"])
            entry = row[1 + [c["cell"] for c in doc["headline"]].index(cell["cell"])]
            check(entry.startswith(x["mean_text"] + " (n = "),
                  f"HTML means table: {cell['cell']} {x['variant']} is the mean", entry)
    log(f"ok: HTML (Chromium DOM): headline first, {len(rows)} rows as in JSON, means table "
        f"agrees")


def check_csv(text, doc):
    """CSV's rows carry the headline's means and changes (as numbers, in the same unit)."""
    rows = {(r["variant"], r["cell"], r["metric"]): r for r in csv.DictReader(io.StringIO(text))}
    n = 0
    for cell in doc["headline"]:
        for x in cell["rows"]:
            for metric, mean, change in ((cell["metric"], "mean", "change"),
                                         (cell["cost_metric"], "cost_mean", "cost_change")):
                row = rows[(x["variant"], cell["cell"], metric)]
                check(abs(float(row["mean"]) - x[mean]) <= 1e-9 * abs(x[mean]), "CSV mean", row)
                if x[change] is None:
                    check_eq(row["change"], "", "CSV: no change for the baseline")
                else:
                    check(abs(float(row["change"]) - x[change]) <= 1e-9 * max(1, abs(x[change])),
                          "CSV change", row)
                    check_eq(row["change_unit"], "%", "CSV change unit")
                n += 1
    log(f"ok: CSV: {n} headline figures as in JSON")


def check_sections(rep, doc):
    """--sections headline in JSON, HTML and CSV: the headline's numbers, no other section's."""
    sub = run_cmd(rep + ["--format", "json", "--sections", "headline"], expect_rc=1).doc
    check_eq(sub["headline"], doc["headline"], "JSON --sections headline: the same headline")
    for k in ("experiment", "variants", "cells", "metrics", "baseline"):
        check_eq(sub.get(k), doc[k], f"JSON --sections headline keeps the identifying {k!r}")
    for k in ("results", "stats_warnings", "warning_summary", "summary", "runs", "cpu_cost",
              "effects", "env_differences"):
        check(k not in sub, f"JSON --sections headline: no {k!r}", sorted(sub))
    two = run_cmd(rep + ["--format", "json", "--sections", "headline,warnings"], expect_rc=1).doc
    check_eq(two["stats_warnings"], doc["stats_warnings"], "JSON headline,warnings: warnings")
    check("results" not in two, "JSON headline,warnings: no results", sorted(two))

    page = run_cmd(rep + ["--format", "html", "--sections", "headline"], expect_rc=1).stdout
    dom = Dom()
    dom.feed(page)
    check(dom.tables and all(t["class"] == "headline" for t in dom.tables),
          "HTML --sections headline: only headline tables", [t["class"] for t in dom.tables])
    check("figure" not in dom.order, "HTML --sections headline: no figure")
    for sid in ("tables", "changes", "figures", "values", "warnings", "environment"):
        check(f'id="{sid}"' not in page and f'href="#{sid}"' not in page,
              f"HTML --sections headline: no {sid} section nor link")
    check('id="summary"' in page, "HTML --sections headline keeps the summary")
    shown = " ".join(" ".join(c) for t in dom.tables for c in t["rows"])
    for cell in doc["headline"]:
        for x in cell["rows"]:
            for text in (x["mean_text"], x["cost_text"]):
                check(text in shown, f"HTML --sections headline shows {text!r}")

    text = run_cmd(rep + ["--format", "csv", "--sections", "headline"], expect_rc=1).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    want = {(x["variant"], c["cell"], c["metric"]): x["mean"] for c in doc["headline"]
            for x in c["rows"]}
    got = {(r["variant"], r["cell"], r["metric"]): float(r["mean"]) for r in rows}
    check_eq(sorted(got), sorted(want), "CSV --sections headline: the deciding metric's rows")
    for k, mean in want.items():
        check(abs(got[k] - mean) <= 1e-9 * abs(mean), "CSV --sections headline mean", k)
    log(f"ok: --sections headline: JSON, HTML and CSV ({len(rows)} rows) hold only it")


def check_no_nan(db, xid, netab, what):
    for args in ([], ["--full"], ["--format", "markdown"], ["--format", "csv"],
                 ["--format", "json"], ["--format", "html"]):
        r = run_cmd([netab, "report", "--db", db, xid] + args, expect_rc=(0, 1))
        text = r.stdout
        if "html" in args:
            # The figures are searched too (a NaN coordinate would print as nan in the path
            # data); only the names of their glyph definitions and references are left out.
            text = re.sub(r'\b(id|xlink:href|href)="[^"]*"', "", text)
        bad = NAN_INF.findall(text)
        check(not bad, f"{what} {' '.join(args) or 'text'}: no nan or inf", bad[:5])


def body(netab):
    check(FIXTURE is not None, "usage: report_formats.py NETAB REPORT_FIXTURE")
    d = tempfile.mkdtemp(prefix="netab-report-formats-")
    try:
        db = os.path.join(d, "matrix.db")
        xid = run_cmd([FIXTURE, db, "matrix"]).stdout.strip()
        rep = [netab, "report", "--db", db, xid]
        doc = run_cmd(rep + ["--format", "json"], expect_rc=1).doc
        check_eq(len(doc["headline"]), 4, "four cells in the headline")
        check_json(doc)
        text = run_cmd(rep, expect_rc=1).stdout
        check_text(text, doc)
        # 12 sets with too few runs and 8 underpowered comparisons: one sentence each.
        check_eq([w["kind"] for w in doc["stats_warnings"]].count("too_few_runs"), 12,
                 "JSON: a too_few_runs warning per set")
        joined = " ".join(text.split())
        check("- only 4 runs per variant in 4 of 4 cells" in joined, "text: one line for them")
        check_eq(joined.count("runs per variant in"), 1, "text: not one line per set")
        check_eq(doc["warning_summary"][0].split(" (")[0],
                 "only 4 runs per variant in 4 of 4 cells", "JSON warning_summary")
        full = run_cmd(rep + ["--full"], expect_rc=1).stdout
        check(len(full.splitlines()) > 3 * len(text.splitlines()), "--full is the whole report")
        check_eq(full.splitlines()[:2], text.splitlines()[:2], "--full: the same title")
        for title in ("Receive throughput, Mbit/s", "CPU cost, local, us/KiB",
                      "Changes against a:", "Sorted values", "Counter differences"
                      if doc.get("counter_differences") else "Verdicts:"):
            check(title in full, f"--full has {title!r}")
        check_markdown(run_cmd(rep + ["--format", "markdown"], expect_rc=1).stdout, doc)
        check_csv(run_cmd(rep + ["--format", "csv"], expect_rc=1).stdout, doc)
        page = run_cmd(rep + ["--format", "html"], expect_rc=1).stdout
        log(f"the 48-run report's HTML page weighs {len(page.encode())} bytes")
        check_html(page, doc, d)
        check_sections(rep, doc)
        check_fits_1280(page, d)
        check_no_nan(db, xid, netab, "matrix")
        for mode in ("regress", "same", "identity"):
            mdb = os.path.join(d, mode + ".db")
            mid = run_cmd([FIXTURE, mdb, mode]).stdout.strip()
            check_no_nan(mdb, mid, netab, mode)
        log("ok: no nan or inf in any format of the fixtures")
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
