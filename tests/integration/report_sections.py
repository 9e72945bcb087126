#!/usr/bin/env python3
"""Every section, every format: the same figures as the JSON's, rounded as each prints.

report_formats checks the headline across the formats; this checks the other
sections the formats share. The JSON document is the reference: for each
section, every figure it holds (means, changes with their intervals, p and
verdicts, pairs, 2x2 effects, sorted values, run counts, verdict counts,
exit status and reason, environment differences, counter differences,
CPU cost decisions, failures, warning sentences) must appear in every format
that has the section - text (--full, and the default's brief sections),
Markdown, HTML (rendered by headless Chromium, read back from its DOM) and
CSV - each shown string being the JSON's number rounded to the digits shown.

Fixtures (report_fixture): "regress" (a failed run, an environment
difference), "rich" (counters, CPU cost per KiB, an environment warning, a
cell without a verdict: exit status 2) and "matrix" with --pairs all (three
variants over a 2x2 matrix: pairs, effects, statistics warnings).
Usage: report_sections.py NETAB REPORT_FIXTURE
"""

import csv
import html.parser
import io
import json
import os
import re
import shutil
import sys
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

FIXTURE = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
NUM = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
VERDICT = r"improved|regressed|within noise|no difference proven|not compared"
CMP = rf"({NUM})(%|pp),? \[({NUM}), ({NUM})\],? p=({NUM}) ({VERDICT})"
MARKS = {"improved": "*", "regressed": "!", "within noise": "=", "no difference proven": "?"}


def is_rounded(shown, value):
    """shown (a sign, digits, maybe an exponent) is value rounded to the digits it shows."""
    m = re.fullmatch(r"[-+]?\d+(?:\.(\d*))?(?:e([-+]?\d+))?", shown)
    if m is None or value is None:
        return False
    tol = 0.5 * 10 ** (int(m.group(2) or 0) - len(m.group(1) or ""))
    return abs(float(shown) - value) <= tol * (1 + 1e-9) + 1e-12


def check_num(shown, value, what):
    check(is_rounded(shown, value), f"{what}: {shown!r} is the JSON's {value} rounded")


def words(s):
    return " ".join(s.split())


class Sections(html.parser.HTMLParser):
    """Per <section id>: its text (words) and its tables' rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.text, self.rows, self.sid, self.cell, self.skip = {}, {}, None, None, 0

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.sid = dict(attrs).get("id")
            self.text[self.sid], self.rows[self.sid] = [], []
        elif tag in ("svg", "style", "script"):
            self.skip += 1
        elif self.sid and tag == "tr":
            self.rows[self.sid].append([])
        elif self.sid and tag in ("td", "th"):
            self.cell = []
        elif tag == "br" and self.cell is not None:
            self.cell.append("\n")
        if self.sid and tag in ("p", "li", "tr", "h2", "h3", "div", "br", "caption", "pre"):
            self.text[self.sid].append("\n")

    def handle_endtag(self, tag):
        if tag in ("svg", "style", "script"):
            self.skip -= 1
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[self.sid][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "section":
            self.sid = None
        if self.sid and tag in ("td", "th"):
            self.text[self.sid].append(" | ")

    def handle_data(self, data):
        if self.skip or not self.sid:
            return
        self.text[self.sid].append(data)
        if self.cell is not None:
            self.cell.append(data)

    def lines(self, sid):
        return [words(x) for x in "".join(self.text.get(sid, [])).split("\n") if x.strip()]


def chromium(page, d):
    exe = shutil.which("chromium")
    check(exe is not None, "chromium is not installed (sh scripts/deps installs it)")
    path = os.path.join(d, "report.html")
    with open(path, "w") as f:
        f.write(page)
    argv = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
            "--disable-background-networking", "--disable-extensions",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={d}/chrome-profile",
            "--dump-dom", "file://" + path]
    r = run_cmd(argv, timeout=60)
    check_eq(r.returncode, 0, "chromium --dump-dom\n" + r.describe())
    dom = Sections()
    dom.feed(r.stdout)
    return dom


class Report:
    """One fixture's report in every format, and lookups into its JSON."""

    def __init__(self, rep, rc, d):
        self.doc = run_cmd(rep + ["--format", "json"], expect_rc=rc).doc
        self.brief = run_cmd(rep, expect_rc=rc).stdout
        self.text = run_cmd(rep + ["--full"], expect_rc=rc).stdout
        self.md = run_cmd(rep + ["--format", "markdown"], expect_rc=rc).stdout
        self.csv = list(csv.DictReader(io.StringIO(
            run_cmd(rep + ["--format", "csv"], expect_rc=rc).stdout)))
        self.html = chromium(run_cmd(rep + ["--format", "html"], expect_rc=rc).stdout, d)
        doc = self.doc
        self.metric = {m["name"]: m for m in doc["metrics"]}
        self.by_label = {m["label"]: m["name"] for m in doc["metrics"]}
        self.heading = {c["cell"]: c["heading"] for c in doc["headline"]}
        self.results = {(r["variant"], r["cell"], r["metric"]): r for r in doc["results"]}
        self.base = doc["baseline"]

    def compared(self):
        """(variant, cell, metric) of every result but the baseline's, in the JSON's order."""
        return [k for k, r in self.results.items() if k[0] != self.base]

    def metric_of(self, label):
        return self.by_label[label.replace(" (deciding)", "")]


def check_cmp(got, res, what):
    """got: (change, unit, low, high, p, verdict) as shown, against a result's comparison."""
    c = res["comparison"]
    check(c is not None, f"{what}: the JSON has a comparison", res)
    ch = c["change"]
    check_eq(got[1], ch["unit"], f"{what}: the change's unit")
    check_num(got[0], ch["value"], f"{what} change")
    check_num(got[2], ch["ci_low"], f"{what} interval low")
    check_num(got[3], ch["ci_high"], f"{what} interval high")
    check_num(got[4], c["welch_p"], f"{what} p")
    check_eq(got[5], c["verdict"], f"{what}: the verdict")


def check_nocmp(reason, res, what):
    check_eq(res["comparison"], None, f"{what}: not compared in the JSON either")
    check_eq(reason, res["no_comparison"], f"{what}: the reason it was not compared")


def block(lines, start, stop=lambda line: not line.strip()):
    """The lines after the first that starts with start, up to one that stop()s."""
    i = next((i for i, x in enumerate(lines) if x.startswith(start)), None)
    check(i is not None, f"a line that starts with {start!r}")
    out = []
    for line in lines[i + 1:]:
        if stop(line):
            break
        out.append(line)
    return out


def check_details(rep):
    """details (text), tables' bullets (Markdown), changes (HTML), the CSV's rows."""
    seen = {"text": set(), "markdown": set(), "html": set(), "csv": set()}
    cur = None
    for line in block(rep.text.splitlines(), f"Changes against {rep.base}:",
                      lambda x: not x.strip() or x.startswith("CPU cost against")):
        m = re.fullmatch(r"(\S+) @ (\S+) \(\w+\):", line)
        if m:
            cur = m.groups()
            continue
        m = re.fullmatch(rf"([> ]) (.+?) +(?:{CMP}|not compared: (.*))", line)
        check(m is not None and cur is not None, "text details: a comparison line", line)
        key = (cur[0], cur[1], rep.metric_of(m.group(2)))
        res = rep.results[key]
        check_eq(m.group(1) == ">", res["deciding"], f"text {key}: > marks the deciding metric")
        if m.group(9) is None:
            check_cmp(m.groups()[2:8], res, f"text details {key}")
        else:
            check_nocmp(m.group(9), res, f"text details {key}")
        seen["text"].add(key)
    cell_of = {h: c for c, h in rep.heading.items()}
    title = None
    for line in rep.md.splitlines():
        if line.startswith("### "):
            title = line[4:]
        m = re.fullmatch(rf"- (\S+) @ (.+?): (?:{CMP}( \(deciding\))?|not compared: (.*))", line)
        if not m or title is None or "@" not in line or title.startswith("CPU cost against"):
            continue
        metric = next(n for n, x in rep.metric.items()
                      if title.startswith(f"{x['title']}, {x['unit']} ("))
        key = (m.group(1), cell_of[m.group(2)], metric)
        res = rep.results[key]
        if m.group(10) is None:
            check_cmp(m.groups()[2:8], res, f"Markdown {key}")
            check_eq(bool(m.group(9)), res["deciding"], f"Markdown {key}: (deciding)")
        else:
            check_nocmp(m.group(10), res, f"Markdown {key}")
        seen["markdown"].add(key)
    for row in rep.html.rows["changes"][1:]:
        v, c = row[0].split(" @ ")
        key = (v, c, rep.metric_of(row[1]))
        res = rep.results[key]
        check_eq(row[1].endswith(" (deciding)"), res["deciding"], f"HTML {key}: (deciding)")
        if len(row) == 3:
            check_nocmp(row[2].removeprefix("not compared: "), res, f"HTML {key}")
        else:
            m = re.fullmatch(CMP, f"{row[2]} {row[3]} p={row[4]} {row[5]}")
            check(m is not None, f"HTML {key}: a comparison row", row)
            check_cmp(m.groups(), res, f"HTML changes {key}")
        seen["html"].add(key)
    for row in rep.csv:
        key = (row["variant"], row["cell"], row["metric"])
        res = rep.results[key]
        c = res["comparison"]
        if row["variant"] == rep.base:
            check_eq(row["verdict"], "baseline", f"CSV {key}: the baseline")
            continue
        if c is None:
            check_eq((row["change"], row["p"]), ("", ""), f"CSV {key}: not compared")
        else:
            for col, want in (("change", c["change"]["value"]), ("p", c["welch_p"]),
                              ("diff_pct", c["rel_change_pct"]),
                              ("ci_low", c["rel_change_ci_low_pct"]),
                              ("ci_high", c["rel_change_ci_high_pct"])):
                check(abs(float(row[col]) - want) <= 1e-9 * max(1, abs(want)),
                      f"CSV {key} {col}: {row[col]} is {want}")
            check_eq((row["verdict"], row["change_unit"]), (c["verdict"], c["change"]["unit"]),
                     f"CSV {key}: verdict and unit")
        seen["csv"].add(key)
    want = set(rep.compared())
    for fmt, keys in seen.items():
        check_eq(sorted(keys), sorted(want), f"{fmt}: every comparison of the JSON, once")
    log(f"ok: details: {len(want)} comparisons alike in text, Markdown, HTML and CSV")


def check_brief_changes(rep):
    """The changes section (--full text): the headline's figures that changed, and tallies;
    the default text's verdict counts of the headline's figures and of the others."""
    lines = block(rep.text.splitlines(), "Changes of the headline's figures against")
    joined = []
    for line in lines:
        if line.startswith("    "):
            joined[-1] += " " + line.strip()
        else:
            joined.append(line.strip())
    cell_of = {h: c for c, h in rep.heading.items()}
    heads = {c["cell"]: (c["metric"], c["cost_metric"]) for c in rep.doc["headline"]}
    shown, tallies, other = set(), {}, {}
    for line in joined:
        m = re.fullmatch(rf"(\S+) @ (.+?): (.+?) {CMP}", line)
        if m:
            key = (m.group(1), cell_of[m.group(2)], rep.metric_of(m.group(3)))
            check_cmp(m.groups()[3:], rep.results[key], f"text changes {key}")
            shown.add(key)
            continue
        m = re.fullmatch(r"(.+?): (\d+) improved, (\d+) regressed \(--sections details\)", line)
        if m:
            tallies[rep.metric_of(m.group(1))] = (int(m.group(2)), int(m.group(3)))
            continue
        m = re.fullmatch(r"(\d+) of these (\d+) comparisons prove no difference.*", line)
        check(m is not None, "text changes: a known line", line)
        other["unproven"] = (int(m.group(1)), int(m.group(2)))
    want, want_tally, head_cmp, counts = set(), {}, [], ({}, {})
    for (v, c, metric), r in rep.results.items():
        if v == rep.base:
            continue
        verdict = (r["comparison"] or {}).get("verdict")
        tally = counts[metric not in heads[c]]
        tally[verdict or "not compared"] = tally.get(verdict or "not compared", 0) + 1
        if verdict is None:
            continue
        if metric in heads[c]:
            head_cmp.append(verdict)
            if verdict in ("improved", "regressed"):
                want.add((v, c, metric))
        elif verdict in ("improved", "regressed"):
            t = want_tally.setdefault(metric, [0, 0])
            t[verdict == "regressed"] += 1
    check_eq(sorted(shown), sorted(want), "text changes: the headline's improved and regressed")
    check_eq(tallies, {k: tuple(x) for k, x in want_tally.items()}, "text changes: the tallies")
    if "unproven" in other:
        check_eq(other["unproven"], (head_cmp.count("no difference proven"), len(head_cmp)),
                 "text changes: how many prove no difference")
    brief = []
    for x in block(rep.brief.splitlines(), f"Verdicts against {rep.base} ("):
        if x.startswith("    "):
            brief[-1] += " " + x.strip()
        else:
            brief.append(words(x))
    for name, want_counts in zip(("headline", "others"), counts):
        line = next(x for x in brief if x.startswith(name + " ("))
        m = re.fullmatch(rf"{name} \((\d+)\): (.*)", line)
        got = {v.replace("not proven", "no difference proven"): int(k)
               for k, v in re.findall(r"(\d+) ([a-z ]+)", m.group(2))}
        check_eq((int(m.group(1)), got), (sum(want_counts.values()), want_counts),
                 f"brief text: the verdict counts of the {name}'s comparisons")
    log(f"ok: text changes: {len(shown)} changes and {len(tallies)} tallies as in JSON")


def table_entries(rows, what):
    """{(variant, column): entry} of a table given as rows of cells, the first the header."""
    return {(r[0], h): e for r in rows[1:] for h, e in zip(rows[0][1:], r[1:])}


def text_tables(text, rep):
    """Per metric, the text's means table as rows of cells (entries: 'mean[ change mark]')."""
    out, lines = {}, text.splitlines()
    for name, m in rep.metric.items():
        title = f"{m['title']}, {m['unit']} ("
        i = next((i for i, x in enumerate(lines) if x.startswith(title)), None)
        if i is None:
            continue
        # Headings may hold spaces ("tcp_stream 1"): the headline's, where the header has them.
        head = sorted((h for h in rep.heading.values() if f" {h} " in f" {lines[i + 1]} "),
                      key=lambda h: f" {lines[i + 1]} ".index(f" {h} "))
        rows = [["variant"] + head]
        for line in lines[i + 2:]:
            if not line.strip():
                break
            v, rest = line.split(None, 1)
            rows.append([v] + re.findall(rf"{NUM}(?: {NUM}(?:%|pp) [*!=?]| n/a)?", rest))
        out[name] = rows
    return out


def md_tables(md, rep):
    out, title, rows = {}, None, None
    for line in md.splitlines() + [""]:
        if line.startswith("### "):
            title = line[4:]
            rows = None
        elif line.startswith("| ") and title is not None and rows is None:
            m = [n for n, x in rep.metric.items() if title.startswith(f"{x['title']}, {x['unit']} (")]
            rows = None
            if m:
                rows = out[m[0]] = []
        if rows is not None and line.startswith("| ") and not line.startswith("|---"):
            rows.append([c.strip().replace("\\*", "*") for c in line.strip("|").split("|")])
        elif rows and not line.startswith("|"):
            title = rows = None
    return out


def check_entry(entry, res, what, marks=True):
    """An entry of a means table: the mean, then the change with its mark or verdict."""
    mean = re.match(NUM, entry)
    check(mean is not None, f"{what}: an entry", entry)
    check_num(mean.group(0), res["mean"], f"{what} mean")
    rest = words(entry[mean.end():])
    c = res["comparison"]
    if res["variant"] == res.get("_base"):
        return
    if c is None:
        check(rest in ("n/a", "not compared: " + (res["no_comparison"] or "")),
              f"{what}: not compared", entry)
        return
    m = re.fullmatch(rf"({NUM})(%|pp) ([*!=?]|{VERDICT})", rest)
    check(m is not None, f"{what}: a change", entry)
    check_num(m.group(1), c["change"]["value"], f"{what} change")
    check_eq(m.group(3), MARKS[c["verdict"]] if marks else c["verdict"], f"{what}: mark")


def check_tables(rep):
    """tables: every metric's means and changes in text, Markdown and HTML."""
    cell_of = {h: c for c, h in rep.heading.items()}
    cell_of.update({c: c for c in rep.heading})
    # The HTML's tables section: one table per metric, in the metrics' order.
    tables, cur = [], None
    for row in rep.html.rows["tables"]:
        if row and row[0] == "variant":
            cur = [row]
            tables.append(cur)
        elif cur is not None:
            cur.append(row)
    shown = [n for n in rep.metric if any(k[2] == n for k in rep.results)]
    check_eq(len(tables), len(shown), "HTML: a means table per metric")
    html_tables = dict(zip(shown, tables))
    n = 0
    for fmt, got in (("text", text_tables(rep.text, rep)), ("Markdown", md_tables(rep.md, rep)),
                     ("HTML", html_tables)):
        check_eq(sorted(got), sorted(shown), f"{fmt}: a table per metric")
        for metric, rows in got.items():
            for (v, col), entry in table_entries(rows, fmt).items():
                key = (v, cell_of[col], metric)
                if key not in rep.results:
                    check(entry in ("", "-"), f"{fmt} {key}: no result, no entry", entry)
                    continue
                res = dict(rep.results[key], _base=rep.base)
                n_shown = re.search(r" \(n = (\d+)\)", entry)
                if n_shown:
                    check_eq(int(n_shown.group(1)), rep.results[key]["n"], f"{fmt} {key}: n")
                    entry = entry.replace(n_shown.group(0), "")
                check_entry(entry, res, f"{fmt} table {key}", fmt != "HTML")
                n += 1
    for row in rep.csv:
        res = rep.results[(row["variant"], row["cell"], row["metric"])]
        check(abs(float(row["mean"]) - res["mean"]) <= 1e-9 * max(1, abs(res["mean"])), "CSV mean")
        check_eq(int(row["n"]), res["n"], "CSV n")
    log(f"ok: tables: {n} entries of {len(shown)} metrics alike in text, Markdown, HTML, CSV")


def check_values(rep):
    """values: the deciding metric's sorted values per cell in text, Markdown, HTML and CSV."""
    deciding = [r for r in rep.doc["results"] if r["deciding"]]
    cells = list(dict.fromkeys(r["cell"] for r in deciding))
    lines = rep.text.splitlines()
    text = []
    for i, line in enumerate(lines):
        if line.startswith("Sorted values of "):
            rows = [lines[i + 2].split()]
            for x in lines[i + 3:]:
                if not x.strip():
                    break
                rows.append(x.split())
            text.append(rows)
    md, rows = [], None
    for line in rep.md.splitlines() + [""]:
        if line.startswith("**Sorted values: "):
            rows = []
            md.append(rows)
        elif rows is not None and line.startswith("| ") and not line.startswith("|--"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows and not line.startswith("|"):
            rows = None
    html = []
    for row in rep.html.rows["values"]:
        if row and row[0] == "#":
            html.append([row])
        else:
            html[-1].append(row)
    n = 0
    for fmt, tables in (("text", text), ("Markdown", md), ("HTML", html)):
        check_eq(len(tables), len(cells), f"{fmt}: a sorted-values table per cell")
        for cell, rows in zip(cells, tables):
            check_eq(rows[0][1:], rep.doc["variants"], f"{fmt} sorted values of {cell}: columns")
            for j, v in enumerate(rep.doc["variants"]):
                want = rep.results[(v, cell, next(r["metric"] for r in deciding
                                                  if r["cell"] == cell))]["sorted"]
                got = [r[j + 1] for r in rows[1:] if len(r) > j + 1 and r[j + 1] not in ("", "-")]
                check_eq(len(got), len(want), f"{fmt} sorted values of {v} @ {cell}: how many")
                for k, (g, w) in enumerate(zip(got, want)):
                    check_num(g, w, f"{fmt} sorted value {k + 1} of {v} @ {cell}")
                    n += 1
    for row in rep.csv:
        res = rep.results[(row["variant"], row["cell"], row["metric"])]
        got = [float(x) for x in row["sorted_values"].split(";") if x]
        check_eq(got, res["sorted"], "CSV sorted values")
    log(f"ok: values: {n} sorted values alike in text, Markdown, HTML, CSV")


def check_pairs(rep):
    """pairs: every pair's change, interval, p, corrected p and verdict in text, MD, HTML."""
    pairs = rep.doc["pairs"]
    check(pairs, "the JSON has pairs")
    k = rep.doc["correction"]["pairs"]
    text, cur = [], None
    for line in block(rep.text.splitlines(), "Every pair, deciding metric"):
        m = re.fullmatch(r"(\S+), (.+):", line)
        if m:
            cur = m.group(1), rep.metric_of(m.group(2))
            continue
        m = re.fullmatch(rf"  (\S+) -> (\S+): {CMP.replace(' (' + VERDICT + ')', '')}"
                         rf" \(x{k}: ({NUM})\) ({VERDICT})", line)
        if m and cur:
            text.append(cur + m.groups())
    md = [r for r in (
        [c.strip() for c in line.strip("|").split("|")] for line in rep.md.splitlines()
        if line.startswith("| ")) if len(r) == 7 and r[0] in {p["cell"] for p in pairs}]
    html = rep.html.rows["pairs"][1:]
    for fmt, rows in (("Markdown", md), ("HTML", html)):
        got = []
        for r in rows:
            m = re.fullmatch(rf"({NUM})(%|pp) \[({NUM}), ({NUM})\]", r[3])
            check(m is not None, f"{fmt} pair row", r)
            got.append((r[0], pairs[0]["metric"], r[1], r[2]) + m.groups() + (r[4], r[5], r[6]))
        _check_pair_rows(got, pairs, fmt)
    _check_pair_rows(text, pairs, "text")
    log(f"ok: pairs: {len(pairs)} pairs alike in text, Markdown and HTML")


def _check_pair_rows(rows, pairs, fmt):
    check_eq(len(rows), len(pairs), f"{fmt}: every pair once")
    for r, p in zip(rows, pairs):
        what = f"{fmt} pair {p['a']} -> {p['b']} @ {p['cell']}"
        check_eq((r[0], r[1], r[2], r[3]), (p["cell"], p["metric"], p["a"], p["b"]), what)
        check_num(r[4], p["rel_change_pct"], f"{what} change")
        check_num(r[6], p["rel_change_ci_low_pct"], f"{what} low")
        check_num(r[7], p["rel_change_ci_high_pct"], f"{what} high")
        check_num(r[8], p["welch_p"], f"{what} p")
        check_num(r[9], p["p_bonferroni"], f"{what} corrected p")
        check_eq(r[10], p["verdict"], f"{what} verdict")


EFFECT = rf"({NUM}) \[({NUM}), ({NUM})\] +({NUM})% \[({NUM}), ({NUM})\]"


def check_effects(rep):
    """effects: each 2x2 design's main effects and interaction in text, Markdown and HTML."""
    effects = rep.doc["effects"]
    check(effects, "the JSON has effects")
    lines = rep.text.splitlines()
    text = []
    for i, line in enumerate(lines):
        if re.match(r"\S+ \(.*\) x \S+ \(.*\), .*:$", line):
            text.append([re.fullmatch(rf" +(\S+) +{EFFECT} +p=({NUM})", x).groups()
                         for x in lines[i + 1:i + 4]])
    md, rows = [], None
    for line in rep.md.splitlines():
        if line.startswith("| effect |"):
            rows = []
            md.append(rows)
        elif rows is not None and line.startswith("| ") and not line.startswith("|--"):
            c = [x.strip() for x in line.strip("|").split("|")]
            rows.append(re.fullmatch(rf"(\S+) {EFFECT} ({NUM})", " ".join(c)).groups())
        elif not line.startswith("|"):
            rows = None
    html = []
    for r in rep.html.rows["effects"]:
        if r[0] == "effect":
            html.append([])
        else:
            html[-1].append(re.fullmatch(rf"(\S+) {EFFECT} ({NUM})", " ".join(r)).groups())
    n = 0
    for fmt, designs in (("text", text), ("Markdown", md), ("HTML", html)):
        check_eq(len(designs), len(effects), f"{fmt}: every 2x2 design")
        for e, rows in zip(effects, designs):
            names = [e["factor_a"]["name"], e["factor_b"]["name"], "interaction"]
            for r, name, part in zip(rows, names, ("main_a", "main_b", "interaction")):
                x, what = e[part], f"{fmt} effect {name} of {e['slice']} {part}"
                check_eq(r[0], name, what)
                for shown, key in zip(r[1:], ("estimate", "ci_low", "ci_high", "pct",
                                              "pct_ci_low", "pct_ci_high", "p")):
                    check_num(shown, x[key], f"{what} {key}")
                n += 1
    log(f"ok: effects: {len(effects)} designs, {n // 3} rows each format, alike")


def check_runs_verdict(rep):
    """runs and verdict: run counts, n per cell, verdict counts, exit status and reason."""
    runs, s, doc = rep.doc["runs"], rep.doc["summary"], rep.doc
    want_runs = (runs["planned"], runs["measured"], runs["warmup"], runs["failed"],
                 runs["interrupted"])
    want_v = (s["improved"], s["regressed"], s["within_noise"], s["no_difference_proven"],
              s["not_compared"])
    pages = {"text": words(rep.text), "Markdown": words(rep.md),
             "HTML": words(" ".join(rep.html.lines("summary")))}
    for fmt, t in pages.items():
        m = re.search(r"Runs: (\d+) planned, (\d+) measured, (\d+) warm-ups excluded[;,] "
                      r"(\d+) failed, (\d+) interrupted", t)
        check(m is not None, f"{fmt}: the run counts")
        check_eq(tuple(map(int, m.groups())), want_runs, f"{fmt}: the run counts as in JSON")
        m = re.search(r"Verdicts: (\d+) improved, (\d+) regressed, (\d+) within noise, (\d+) no "
                      r"difference proven, (\d+) not compared", t)
        check(m is not None, f"{fmt}: the verdict counts")
        check_eq(tuple(map(int, m.groups())), want_v, f"{fmt}: the verdict counts as in JSON")
        check(f"(exit status {doc['exit_status']})" in t, f"{fmt}: the exit status")
        if doc["exit_status"] == 2:
            check(doc["exit_reason"] in t, f"{fmt}: the reason there is no verdict")
        elif fmt != "Markdown":
            check(f"REGRESSION: {doc['exit_reason']} (exit status 1)" in t,
                  f"{fmt}: the exit reason")
    n = {(v, c["name"]): c["n_measured"][i] for c in doc["cells"]
         for i, v in enumerate(doc["variants"])}
    text_n = block(rep.text.splitlines(), "Measured runs (n) per variant and cell:",
                   lambda x: x.startswith("Noise floor"))
    md_n = block(rep.md.splitlines(), "### Runs", lambda x: x.startswith("- "))
    md_n = [[c.strip() for c in x.strip("|").split("|")] for x in md_n
            if x.startswith("| ") and not x.startswith("|--")]
    cell_of = {h: c for c, h in rep.heading.items()}
    for fmt, rows in (("text", [x.split() for x in text_n]), ("Markdown", md_n)):
        # The text's headings may hold spaces: they are the headline's, in its order.
        heads = rows[0][1:] if fmt == "Markdown" else list(rep.heading.values())
        got = {(r[0], cell_of[h]): int(x) for r in rows[1:] for h, x in zip(heads, r[1:])}
        check_eq(got, n, f"{fmt}: measured runs per variant and cell as in JSON")
    log(f"ok: runs and verdict: counts, n per cell, exit status {doc['exit_status']} alike")


def check_environment(rep):
    """environment: every difference (path, baseline's and variant's value) in text, MD, HTML."""
    diffs = rep.doc["env_differences"]
    text = block(rep.text.splitlines(), f"Environment differences from {rep.base}",
                 lambda x: not x.startswith("  "))
    md = [[c.strip() for c in x.strip("|").split("|")] for x in
          block(rep.md.splitlines(), f"### Environment differences from {rep.base}",
                lambda x: x.startswith("#"))
          if x.startswith("| ") and not x.startswith("| variant |")]
    html = rep.html.lines("environment")
    n = 0
    for d in diffs:
        v = d["variant"]
        want = [(x["path"], json.dumps(x["a"]), json.dumps(x["b"])) for x in d["differences"]]
        got_text = [tuple(re.fullmatch(r"  \S+: (\S+): (.*) -> (.*)", x).groups())
                    for x in text if x.startswith(f"  {v}: /")]
        check_eq(got_text, want, f"text: {v}'s environment differences")
        if not want:
            check(f"  {v}: none" in text, f"text: {v} has no environment difference")
        got_md = [(r[1].strip("`"), r[2], r[3]) for r in md if r[0] == v]
        check_eq(got_md, want, f"Markdown: {v}'s environment differences")
        i = html.index(f"{v} (run {d['run']}) against {d['against']} (run {d['baseline_run']}): "
                       f"{len(want)} difference{'' if len(want) == 1 else 's'}")
        got_html = [tuple(x.strip(" |").split(" | ")) for x in html[i + 2:i + 2 + len(want)]]
        check_eq(got_html, want, f"HTML: {v}'s environment differences")
        n += len(want)
    log(f"ok: environment: {n} differences of {len(diffs)} variants alike in text, MD, HTML")


def check_warnings(rep):
    """warnings: every environment and statistics warning's sentence in text, MD and HTML."""
    doc = rep.doc
    want = list(doc["env_warnings"]) + [f"{w['variant']} @ {w['cell']}, {w['metric']}: "
                                        f"{w['message']}" for w in doc["stats_warnings"]]
    check(want, "the JSON has warnings")
    html = rep.html.lines("warnings")
    for fmt, t in (("text", words(rep.text)), ("Markdown", words(rep.md)),
                   ("HTML", "\n".join(html))):
        for w in want:
            check(f"- {w}" in t or f"\n{w}\n" in f"\n{t}\n", f"{fmt}: the warning {w!r}")
    for w in doc["warning_summary"]:
        check(f"- {w}" in words(rep.brief), f"the brief text: the summary's warning {w!r}")
        check(w in html, f"HTML: the summary's warning {w!r}")
    check(f"Every warning ({len(doc['stats_warnings'])})" in html, "HTML: how many warnings")
    log(f"ok: warnings: {len(want)} sentences and {len(doc['warning_summary'])} summary lines "
        f"alike in text, Markdown, HTML")


def check_counters(rep):
    """counters: every counter difference (median, baseline's, change) in text (only it)."""
    diffs = rep.doc["counter_differences"]
    check(diffs, "the JSON has counter differences")
    got = [re.fullmatch(rf"  (\S+) @ (\S+): (\S+): ({NUM}) -> ({NUM}) \(({NUM})%\)", x)
           for x in block(rep.text.splitlines(), f"Counter differences from {rep.base}",
                          lambda x: not x.startswith("  "))]
    check_eq(len(got), len(diffs), "text: every counter difference")
    for m, d in zip(got, diffs):
        what = f"text counter {d['figure']} of {d['variant']} @ {d['cell']}"
        check(m is not None, what)
        check_eq(m.groups()[:3], (d["variant"], d["cell"], d["figure"].removeprefix("end.")), what)
        check_num(m.group(4), d["baseline"], f"{what} baseline")
        check_num(m.group(5), d["value"], f"{what} value")
        check_num(m.group(6), d["change_pct"], f"{what} change")
    log(f"ok: counters: {len(diffs)} differences as in JSON (text; MD and HTML have none)")


def check_cpu(rep):
    """cpu: per cell the metric decided on, per variant both verdicts and the cost's change."""
    cost = rep.doc["cpu_cost"]
    check(cost, "the JSON has CPU cost decisions")
    want = []
    for c in cost:
        want.append(f"{c['cell']}: decided on {rep.metric[c['metric']]['label']}")
        deciding = next(r for (v, cl, _), r in rep.results.items()
                        if cl == c["cell"] and r["deciding"] and v != rep.base)
        for x in c["verdicts"]:
            tp = rep.results[(x["variant"], c["cell"], deciding["metric"])]["comparison"]
            want.append((f"{x['variant']} @ {c['cell']}: throughput "
                         f"{tp['verdict'] if tp else 'not compared'}, CPU cost {x['verdict']}",
                         x["rel_change_pct"]))
    for fmt, page in (("text", rep.text), ("Markdown", rep.md)):
        lines = []
        for x in block(page.splitlines(), f"{'### ' if fmt == 'Markdown' else ''}CPU cost against",
                       lambda x: x.startswith(("#", "**")) if fmt == "Markdown" else
                       not x.startswith("  ")):
            if fmt == "text" and x.startswith("      "):
                lines[-1] += " " + x.strip()
            else:
                lines.append(x.strip().removeprefix("- "))
        lines = [x for x in lines if x]
        check_eq(len(lines), len(want), f"{fmt}: a line per cell and variant")
        for line, w in zip(lines, want):
            if isinstance(w, str):
                check_eq(line, w, f"{fmt}: the CPU cost's metric")
                continue
            m = re.fullmatch(rf"(.*?)(?: ({NUM})%)?", line)
            check_eq(m.group(1), w[0], f"{fmt}: the CPU cost's verdicts")
            if w[1] is None:
                check_eq(m.group(2), None, f"{fmt}: no change without a comparison")
            else:
                check_num(m.group(2), w[1], f"{fmt}: {w[0]}: the cost's change")
    log(f"ok: cpu: {len(cost)} cells' decisions alike in text and Markdown (HTML: headline)")


def check_failures(rep):
    """failures: per variant and cell how many runs failed, and why, in text, MD and HTML."""
    fails = rep.doc["failures"]
    check(fails, "the JSON has failures")
    html = rep.html.lines("headline")
    for f in fails:
        line = (f"{f['variant']} @ {rep.heading[f['cell']]}: {f['failed']} of {f['runs']} "
                f"failed: {f['reason']}")
        for fmt, t in (("text", rep.text), ("brief text", rep.brief), ("Markdown", rep.md),
                       ("HTML", "\n".join(html))):
            check(line in t, f"{fmt}: {line!r}")
        row = next(x for c in rep.doc["headline"] if c["cell"] == f["cell"] for x in c["rows"]
                   if x["variant"] == f["variant"])
        check_eq((row["failed"], row["fails"]), (f["failed"], line.split(": ", 1)[1]),
                 "JSON: the headline row's failures")
    log(f"ok: failures: {len(fails)} alike in text, Markdown, HTML")


def fixture(d, mode, netab, extra=()):
    db = os.path.join(d, mode + ".db")
    xid = run_cmd([FIXTURE, db, "matrix" if mode == "pairs" else mode]).stdout.strip()
    return [netab, "report", "--db", db, xid, *extra]


def body(netab):
    check(FIXTURE is not None, "usage: report_sections.py NETAB REPORT_FIXTURE")
    d = tempfile.mkdtemp(prefix="netab-report-sections-")
    try:
        covered = {}
        for mode, extra, rc, checks in (
                ("regress", (), 1, (check_details, check_brief_changes, check_tables,
                                    check_values, check_runs_verdict, check_environment,
                                    check_failures)),
                ("rich", (), 2, (check_details, check_brief_changes, check_tables, check_values,
                                 check_runs_verdict, check_environment, check_warnings,
                                 check_counters, check_cpu, check_failures)),
                ("matrix", ("--pairs", "all"), 1, (
                    check_details, check_brief_changes, check_tables, check_values,
                    check_pairs, check_effects, check_runs_verdict, check_environment,
                    check_warnings, check_cpu))):
            log(f"fixture {mode} {' '.join(extra)}")
            rep = Report(fixture(d, mode, netab, extra), rc, d)
            for c in checks:
                c(rep)
                covered.setdefault(c.__name__, []).append(mode)
        log("covered: " + "; ".join(f"{k} ({', '.join(v)})" for k, v in covered.items()))
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
