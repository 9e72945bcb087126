#!/usr/bin/env python3
"""A 2 x 2 design over builds: variants' factors: (issue 29, item 5).

A real loopback experiment of four variants, each a combination of two
factors of two levels (size: -l 8K or -l 64K; nodelay: off or -N), over a
matrix axis streams: [1, 2], three measured runs each:
- the JSON report has the declared design first, once in each cell
  (slice streams=1, streams=2), factor A size (small, big), factor B
  nodelay (off, on), cells a1b1, a1b2, a2b1, a2b2 = a, b, c, d;
- every measured run's value is read from the store (runs.receiver_bps) and
  matches the report's values; from them this test recomputes each cell's
  mean and variance, each main effect (mean of the high level's two cells
  minus mean of the low level's), the interaction ((a2b2 - a1b2) - (a2b1 -
  a1b1)), the Welch standard error, Welch-Satterthwaite degrees of freedom,
  the 95 % interval (Student t quantile computed here from the regularized
  incomplete beta function) and the percentages, all to 1e-9;
- the variant x axis designs are still there after the declared ones;
- text, Markdown and HTML show those same numbers (to their printed
  precision), under the heading "size (small, big) x nodelay (off, on),
  streams=1, recv Mbit/s";
- a file whose factors are not a 2 x 2 is refused by `experiment run`
  with exit status 2 naming the problem, and nothing is stored.
"""

import html
import math
import os
import re
import shutil
import sqlite3
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

EXPERIMENT = """name: factors
runs: 3
warmup: 0
seed: 29
test:
  time: 0.3
  interval: 0
matrix:
  streams: [1, 2]
variants:
  - {name: a, opts: "-l 8K", factors: {size: small, nodelay: "off"}}
  - {name: b, opts: "-l 8K -N", factors: {size: small, nodelay: "on"}}
  - {name: c, opts: "-l 64K", factors: {size: big, nodelay: "off"}}
  - {name: d, opts: "-l 64K -N", factors: {size: big, nodelay: "on"}}
"""

# Three levels of size: refused before anything runs.
THREE_LEVELS = EXPERIMENT.replace('opts: "-l 64K -N", factors: {size: big',
                                  'opts: "-l 64K -N", factors: {size: huge')

CELLS = ["streams=1", "streams=2"]
ROWS = ("main_a", "main_b", "interaction")


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (its continued fraction, Lentz)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - betainc(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    tiny = 1e-300

    def step(num, c, d):
        d = 1 + num * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + num / c
        return (c if abs(c) > tiny else tiny), d

    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        c, d = step(m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), c, d)
        h *= c * d
        c, d = step(-(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)), c, d)
        h *= c * d
        if abs(c * d - 1) < 1e-16:
            break
    return front * h / a


def t_cdf(t, df):
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2, 0.5, x)
    return 1 - tail if t > 0 else tail


def t_quantile(p, df):
    """The Student t quantile by bisection on t_cdf."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def close(a, b, what):
    check(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), what, a, b)


def store_values(db):
    """{(variant, cell): [Mbit/s in run order]} of the measured runs, from the store itself."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT variant, cell, receiver_bps FROM runs WHERE status = 'ok' "
                           "ORDER BY seq").fetchall()
    finally:
        con.close()
    out = {}
    for variant, cell, bps in rows:
        out.setdefault((variant, cell), []).append(bps / 1e6)
    return out


def expected(values, w):
    """The contrast sum(w * mean) of four cells with its Welch SE, df and 95 % interval."""
    est = var = den = 0.0
    for wi, v in zip(w, values):
        n = len(v)
        mean = sum(v) / n
        s2 = sum((x - mean) ** 2 for x in v) / (n - 1)
        part = wi * wi * s2 / n
        est += wi * mean
        var += part
        den += part * part / (n - 1)
    se = math.sqrt(var)
    df = var * var / den
    q = t_quantile(0.975, df)
    return est, se, df, est - q * se, est + q * se


def test_json(netab, db):
    doc = run_cmd([netab, "report", "--db", db, "--format", "json", "1"], expect_rc=(0, 1)).doc
    fx = doc["effects"]
    declared = [d for d in fx if d.get("design") == "factors"]
    check_eq([d["slice"] for d in declared], CELLS, "the declared design once in each cell")
    check_eq(fx[:2], declared, "the declared design comes first")
    check(len(fx) > 2 and all(d["design"] == "variant_axis" for d in fx[2:]),
          "variant x axis designs after it", [d.get("design") for d in fx])
    stored = store_values(db)
    results = {(x["variant"], x["cell"], x["metric"]): x for x in doc["results"]}
    for d in declared:
        check_eq(d["factor_a"], {"name": "size", "levels": ["small", "big"]}, "factor A")
        check_eq(d["factor_b"], {"name": "nodelay", "levels": ["off", "on"]}, "factor B")
        check_eq(d["metric"], "throughput", "the deciding metric")
        check_eq([c["variant"] for c in d["cells"]], ["a", "b", "c", "d"], "a1b1 a1b2 a2b1 a2b2")
        values = []
        for c in d["cells"]:
            v = stored[(c["variant"], c["cell"])]
            check_eq(len(v), 3, f"three measured runs of {c['variant']} in {c['cell']}")
            got = results[(c["variant"], d["slice"], "throughput")]["values"]
            check_eq(len(got), 3, "the report counts the three runs")
            for x, y in zip(v, got):
                check(math.isclose(x, y, rel_tol=1e-12), "the report's value is the run's", x, y)
            mean = sum(v) / 3
            close(c["mean"], mean, f"{c['variant']} {c['cell']} mean")
            close(c["variance"], sum((x - mean) ** 2 for x in v) / 2, "cell variance")
            values.append(v)
        weights = {"main_a": (-0.5, -0.5, 0.5, 0.5), "main_b": (-0.5, 0.5, -0.5, 0.5),
                   "interaction": (1, -1, -1, 1)}
        ref = sum(values[0]) / 3
        for row in ROWS:
            est, se, df, lo, hi = expected(values, weights[row])
            e = d[row]
            what = f"{d['slice']} {row}"
            close(e["estimate"], est, what + " estimate")
            close(e["se"], se, what + " standard error")
            close(e["df"], df, what + " Welch-Satterthwaite df")
            close(e["ci_low"], lo, what + " interval low")
            close(e["ci_high"], hi, what + " interval high")
            close(e["pct"], 100 * est / ref, what + " percent of a1b1")
            close(e["pct_ci_low"], 100 * lo / ref, what + " percent interval low")
            close(2 * (1 - t_cdf(abs(est) / se, df)), e["p"], what + " p")
    log("ok: JSON effects of the declared design recomputed from the stored runs")
    return declared


def agrees(token, value, what):
    """A printed number equals value to the precision it is printed with."""
    token = token.replace("%", "")
    mant, _, exp = token.lower().partition("e")
    decimals = len(mant.partition(".")[2])
    tol = 0.5 * 10 ** (int(exp or 0) - decimals)
    check(abs(float(token) - value) <= tol * (1 + 1e-9) + 1e-12, what, token, value)


def test_text(netab, db, declared):
    text = run_cmd([netab, "report", "--db", db, "--sections", "effects", "1"],
                   expect_rc=(0, 1)).stdout
    line = re.compile(r"^  (\S+)\s+([-+]\S+) \[([-+]\S+), ([-+]\S+)\]\s+([-+]\S+)% "
                      r"\[([-+]\S+), ([-+]\S+)\]\s+p=(\S+)$")
    for d in declared:
        head = f"size (small, big) x nodelay (off, on), {d['slice']}, recv Mbit/s:"
        lines = text.splitlines()
        check(head in lines, "text heading of the design", head, text)
        at = lines.index(head)
        for k, row in enumerate(ROWS):
            m = line.match(lines[at + 1 + k])
            check(m, "an effect row", lines[at + 1 + k])
            check_eq(m.group(1), ("size", "nodelay", "interaction")[k], "row name")
            e = d[row]
            for g, key in zip(range(2, 9), ("estimate", "ci_low", "ci_high", "pct", "pct_ci_low",
                                            "pct_ci_high", "p")):
                agrees(m.group(g), e[key], f"text {d['slice']} {row} {key}")
    log("ok: text shows the JSON's numbers")


def md_rows(md, declared):
    """{(slice, row): (estimate cell, percent cell, p)} of the Markdown tables."""
    out = {}
    lines = md.splitlines()
    for d in declared:
        head = f"**size (small, big) x nodelay (off, on), {d['slice']}, recv Mbit/s**"
        check(head in lines, "markdown heading of the design", head, md)
        at = lines.index(head)
        check_eq(lines[at + 2], "| effect | estimate [CI] | % of reference [CI] | p |",
                 "markdown table head")
        for k, row in enumerate(ROWS):
            cells = [c.strip() for c in lines[at + 4 + k].strip("|").split("|")]
            check_eq(cells[0], ("size", "nodelay", "interaction")[k], "markdown row name")
            out[(d["slice"], row)] = cells[1:]
    return out


def test_markdown_html(netab, db, declared):
    md = run_cmd([netab, "report", "--db", db, "--format", "markdown", "--sections", "effects",
                  "1"], expect_rc=(0, 1)).stdout
    rows = md_rows(md, declared)
    num = re.compile(r"[-+]?[0-9.]+(?:e[-+]?[0-9]+)?")
    for d in declared:
        for row in ROWS:
            est, pct, p = rows[(d["slice"], row)]
            e = d[row]
            for tok, key in zip(num.findall(est), ("estimate", "ci_low", "ci_high")):
                agrees(tok, e[key], f"markdown {d['slice']} {row} {key}")
            for tok, key in zip(num.findall(pct), ("pct", "pct_ci_low", "pct_ci_high")):
                agrees(tok, e[key], f"markdown {d['slice']} {row} {key}")
            agrees(p, e["p"], f"markdown {d['slice']} {row} p")
    page = run_cmd([netab, "report", "--db", db, "--format", "html", "1"],
                   expect_rc=(0, 1)).stdout
    for i, d in enumerate(declared):
        at = page.index(f'<table class="effects" data-design="{i}">')
        table = page[at:page.index("</table>", at)]
        check(html.escape(f"size (small, big) x nodelay (off, on), {d['slice']}, recv Mbit/s")
              in table, "HTML caption", table)
        for row in ROWS:
            est, pct, _ = rows[(d["slice"], row)]
            tr = re.search(rf'<tr data-effect="{row}">.*?</tr>', table, re.S)
            check(tr and est in tr.group(0) and html.escape(pct) in tr.group(0),
                  f"HTML {d['slice']} {row} as Markdown prints it", tr and tr.group(0), est)
    log("ok: Markdown and HTML show the JSON's numbers")


def test_refused(netab, d):
    exp = os.path.join(d, "three.yaml")
    with open(exp, "w") as f:
        f.write(THREE_LEVELS)
    db = os.path.join(d, "three.db")
    r = run_cmd([netab, "experiment", "run", "--db", db, exp], expect_rc=2)
    check("factors: 'size' has 3 levels (small, big, huge); a 2 x 2 design needs exactly two "
          "levels of each factor" in r.stderr, "three levels refused, named", r.stderr)
    check(not os.path.exists(db), "nothing stored for a refused file", db)
    log("ok: a design that is not 2 x 2 is refused")


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-report-factors-")
    try:
        exp = os.path.join(d, "factors.yaml")
        with open(exp, "w") as f:
            f.write(EXPERIMENT)
        db = os.path.join(d, "factors.db")
        run_cmd([netab, "experiment", "run", "--db", db, exp], timeout=120)
        declared = test_json(netab, db)
        test_text(netab, db, declared)
        test_markdown_html(netab, db, declared)
        test_refused(netab, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    run_main(body)
