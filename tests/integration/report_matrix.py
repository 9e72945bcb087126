#!/usr/bin/env python3
"""How `netab report` lays out a matrix and compares its variants (issue 11).

A real loopback experiment, 2 variants x (test: tcp_stream, udp_stream) x
(streams: 1, 2), two runs each, whose shuffled plan visits the cells in
another order than the file lists them:
- text: every table's columns in matrix order, headed by the cells' values
  ("tcp_stream 1"), no legend, every line within 72 columns;
- --transpose: the cells as rows in matrix order, the variants as columns;
- --baseline b: b first and compared against, in text and JSON; an unknown
  name exits 2 naming the variants;
- Markdown: one table per metric headed by the cells' values;
- the 2x2 effects: four designs (variant x test in each streams, variant x
  streams in each test), whose estimates the test recomputes from the
  JSON's cell means.
A second experiment with three variants: --pairs all compares the three
pairs of each cell under a Bonferroni correction, stated in the text, with
p-values multiplied by 3 and intervals at 1 - 0.05 / 3. Finally `netab
compare --baseline` reorders the variants and refuses an unknown name.
"""

import math
import os
import re
import shutil
import sqlite3
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

MATRIX = """name: matrix
runs: 2
warmup: 0
seed: 5
test:
  time: 0.5
  interval: 0
matrix:
  test: [tcp_stream, udp_stream]
  streams: [1, 2]
variants:
  - name: a
    opts: "-l 16K"
  - name: b
    opts: "-l 8K"
"""

THREE = """name: three
runs: 2
warmup: 0
seed: 7
test:
  time: 0.3
  interval: 0
matrix:
  test: [tcp_stream, udp_stream]
variants:
  - name: a
    opts: "-l 16K"
  - name: b
    opts: "-l 8K"
  - name: c
    opts: "-l 4K"
"""

CELLS = ["tcp_stream 1", "tcp_stream 2", "udp_stream 1", "udp_stream 2"]
NAMES = ["test=tcp_stream,streams=1", "test=tcp_stream,streams=2",
         "test=udp_stream,streams=1", "test=udp_stream,streams=2"]


def report(netab, db, *args, expect_rc=(0, 1)):
    """The report; in text the whole one (--full), whose tables these checks read."""
    full = [] if "--format" in args else ["--full"]
    return run_cmd([netab, "report", "--db", db, *args, *full, "1"], expect_rc=expect_rc)


def tables(text):
    """The metric tables of a text report: {title: [lines]} up to the first blank line."""
    out, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        if line.endswith("is better)"):
            block = []
            for row in lines[i + 1:]:
                if not row:
                    break
                block.append(row)
            out[line] = block
    return out


def check_width(text, what):
    for i, line in enumerate(text.splitlines()):
        check(len(line) <= 72, f"{what}: line {i + 1} is wider than 72 columns", repr(line))


def test_layout(netab, db):
    con = sqlite3.connect(db)
    seen = []
    for (cell,) in con.execute("SELECT cell FROM plan WHERE experiment_id = 1 ORDER BY seq"):
        if cell not in seen:
            seen.append(cell)
    con.close()
    check(seen != NAMES and sorted(seen) == sorted(NAMES),
          "the plan visits the cells in another order than the matrix (else this proves nothing)",
          seen)

    text = report(netab, db).stdout
    check_width(text, "text report")
    tabs = tables(text)
    check("Receive throughput, Mbit/s (higher is better)" in tabs, "throughput table", text)
    for title, rows in tabs.items():
        head = rows[0]
        cols = [c for c in CELLS if c in head]
        check(len(cols) >= 2, f"{title}: headed by cell values", head)
        check_eq([head.index(c) for c in cols], sorted(head.index(c) for c in cols),
                 f"{title}: columns in matrix order")
        check(rows[1].startswith("a ") and rows[2].startswith("b "), f"{title}: variant rows",
              rows)
    head = tabs["Receive throughput, Mbit/s (higher is better)"][0]
    check_eq([c for c in (x.strip() for x in head[len("variant"):].split("  ")) if c], CELLS,
             "throughput table header: every cell, in matrix order")
    check("Cells:" not in text, "no legend when the values fit", text)
    log("ok: text columns in matrix order, headed by the cells' values, within 72 columns")

    tr = report(netab, db, "--transpose").stdout
    check_width(tr, "transposed report")
    rows = tables(tr)["Receive throughput, Mbit/s (higher is better)"]
    check_eq(rows[0].split(), ["cell", "a", "b"], "transposed header: the variants")
    check_eq([r[:12] for r in rows[1:]], CELLS, "transposed rows: the cells in matrix order")
    log("ok: --transpose")

    r = report(netab, db, "--baseline", "b")
    check("Variants: b (baseline), a" in r.stdout, "--baseline b comes first", r.stdout)
    check("Changes against b:" in r.stdout, "compared against b", r.stdout)
    doc = report(netab, db, "--baseline", "b", "--format", "json").doc
    check_eq(doc["baseline"], "b", "JSON baseline")
    check_eq(doc["variants"], ["b", "a"], "JSON variants")
    base = [x for x in doc["results"] if x["variant"] == "b"]
    check(all(x["comparison"] is None for x in base), "the baseline has no comparison", base)
    other = [x for x in doc["results"] if x["variant"] == "a" and x["comparison"]]
    check(other and all(x["comparison"]["baseline_n"] == 2 for x in other), "a against b", other)
    r = report(netab, db, "--baseline", "nope", expect_rc=2)
    check("no variant 'nope'" in r.stderr and "(variants: a, b)" in r.stderr,
          "unknown baseline names the variants", r.stderr)
    log("ok: --baseline")

    md = report(netab, db, "--format", "markdown").stdout
    check("| variant | tcp_stream 1 | tcp_stream 2 | udp_stream 1 | udp_stream 2 |" in md,
          "markdown header in matrix order", md)
    check(md.count("### Receive throughput") == 1, "one markdown table per metric", md)
    widest = max(len(cell) for line in md.splitlines() if line.startswith("| ")
                 for cell in line.split("|"))
    check(widest <= 40, "no over-wide markdown column", widest)
    check("### 2x2 effects" in md, "markdown effects section", md)
    md_tr = report(netab, db, "--format", "markdown", "--transpose").stdout
    check("| cell | a | b |" in md_tr and "| tcp_stream 1 |" in md_tr, "markdown --transpose",
          md_tr)
    log("ok: markdown")


def mean_of(doc, variant, cell, metric):
    for x in doc["results"]:
        if x["variant"] == variant and x["cell"] == cell and x["metric"] == metric:
            return x["mean"]
    raise AssertionError(f"no result {variant} {cell} {metric}")


def test_effects(netab, db):
    text = report(netab, db).stdout
    check("2x2 effects" in text, "effects section", text)
    check("variant (a, b) x streams (1, 2), test=tcp_stream, recv Mbit/s:" in text,
          "variant x streams design in tcp_stream", text)
    check("variant (a, b) x test (tcp_stream, udp_stream), streams=2, recv" in text,
          "variant x test design in streams=2", text)
    check("interaction" in text, "interaction row", text)
    doc = report(netab, db, "--format", "json").doc
    fx = doc["effects"]
    check_eq(sorted((d["factor_b"]["name"], d["slice"]) for d in fx),
             [("streams", "test=tcp_stream"), ("streams", "test=udp_stream"),
              ("test", "streams=1"), ("test", "streams=2")], "the four designs")
    for d in fx:
        cells = d["cells"]  # [a1b1, a1b2, a2b1, a2b2]
        m = [mean_of(doc, c["variant"], c["cell"], d["metric"]) for c in cells]
        check_eq([c["variant"] for c in cells], ["a", "a", "b", "b"], "factor A is the variant")
        inter = (m[3] - m[1]) - (m[2] - m[0])
        main_a = ((m[2] - m[0]) + (m[3] - m[1])) / 2
        main_b = ((m[1] - m[0]) + (m[3] - m[2])) / 2
        for name, want in (("interaction", inter), ("main_a", main_a), ("main_b", main_b)):
            e = d[name]
            check(math.isclose(e["estimate"], want, rel_tol=1e-9, abs_tol=1e-9),
                  f"{name} of {d['slice']} from the cell means", e, want)
            check(e["ci_low"] <= e["estimate"] <= e["ci_high"], f"{name} interval", e)
            check(0 <= e["p"] <= 1, f"{name} p", e)
            check(math.isclose(e["pct"], 100 * e["estimate"] / m[0], rel_tol=1e-9),
                  f"{name} in percent of the reference cell", e)
    log("ok: 2x2 effects recomputed from the cell means")


def test_pairs(netab, db):
    text = report(netab, db, "--pairs", "all").stdout
    check_width(text, "--pairs all")
    check("Bonferroni over the 3 pairs of each cell" in text, "correction stated", text)
    check("[98.3333% CI]" in text, "the tables' intervals use the corrected level", text)
    for pair in ("a -> b:", "a -> c:", "b -> c:"):
        check(text.count("  " + pair) == 2, f"pair {pair} in both cells", text)
    r = report(netab, db, "--pairs", "all", "--format", "json")
    doc = r.doc
    check_eq(doc["correction"]["method"], "bonferroni", "correction method")
    check_eq(doc["correction"]["pairs"], 3, "pairs per cell")
    check(math.isclose(doc["correction"]["comparison_confidence"], 1 - 0.05 / 3),
          "per-comparison confidence", doc["correction"])
    check_eq(len(doc["pairs"]), 6, "three pairs in each of two cells")
    for p in doc["pairs"]:
        check(math.isclose(p["p_bonferroni"], min(1, 3 * p["welch_p"])), "p multiplied by 3", p)
    check_eq(r.returncode, doc["exit_status"], "exit status as the JSON says")
    report(netab, db, "--pairs", "some", expect_rc=2)
    plain = report(netab, db, "--format", "json").doc
    check("pairs" not in plain and "correction" not in plain, "no pairs without --pairs all",
          list(plain))
    log("ok: --pairs all")


def test_compare_baseline(netab):
    argv = [netab, "compare", "--runs", "2", "--variant", "a", "--opts", "-l 16K", "--variant",
            "b", "--opts", "-l 8K", "--baseline", "b", "--json", "--", "-t", "0.2", "-i", "0"]
    doc = run_cmd(argv, expect_rc=(0, 1), timeout=60).doc
    check_eq([v["name"] for v in doc["variants"]], ["b", "a"], "compare --baseline b")
    argv[argv.index("b", argv.index("--baseline"))] = "zz"
    r = run_cmd(argv, expect_rc=2)
    check("no variant 'zz' (variants: a, b)" in r.stderr, "compare: unknown baseline", r.stderr)
    log("ok: compare --baseline")


def check_no_nan(netab, db):
    """Real runs (CPU near 0 or 100, loss 0) in every format: no "nan" or "inf" anywhere."""
    for args in ([], ["--full"], ["--pairs", "all", "--full"], ["--format", "markdown"],
                 ["--format", "csv"], ["--format", "json"], ["--format", "html"]):
        text = run_cmd([netab, "report", "--db", db, *args, "1"], expect_rc=(0, 1)).stdout
        # The SVG figures draw their text as glyphs; their ids are no shown text.
        text = re.sub(r"<svg.*?</svg>", "", text, flags=re.S)
        bad = re.findall(r"\b(nan|inf|infinity)\b", text, re.I)
        check(not bad, f"{os.path.basename(db)} {' '.join(args) or 'text'}: no nan or inf", bad[:5])
    log(f"ok: {os.path.basename(db)}: no nan or inf in any format")


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-report-matrix-")
    try:
        for name, text in (("matrix", MATRIX), ("three", THREE)):
            exp = os.path.join(d, name + ".yaml")
            with open(exp, "w") as f:
                f.write(text)
            run_cmd([netab, "experiment", "run", "--db", os.path.join(d, name + ".db"), exp],
                    timeout=120)
        test_layout(netab, os.path.join(d, "matrix.db"))
        test_effects(netab, os.path.join(d, "matrix.db"))
        test_pairs(netab, os.path.join(d, "three.db"))
        test_compare_baseline(netab)
        for name in ("matrix", "three"):
            check_no_nan(netab, os.path.join(d, name + ".db"))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    run_main(body)
