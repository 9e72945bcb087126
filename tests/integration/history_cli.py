#!/usr/bin/env python3
"""netab history: change points of a CSV series and of stored experiments.

A seeded CSV of 60 points (1 % noise) with a -5 % shift at point 40 gives one
change point at index 40 (+-1) with its interval; a flat CSV gives none (exit
0); a bad line is refused naming the line. Twelve stored `netab compare
--cmd` experiments whose variant 'b' drops from 1000 to 900 after the
eighth, split over two stores, give one change at the ninth experiment for
'b' and none for the flat 'a', also merged from both stores in time order;
the figure is a PNG with the segment means drawn in red.
"""

import json
import os
import random
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main
from png_read import count_pixels, read_png


def write_csv(path, shift, seed):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        f.write("label,value\n")
        for i in range(60):
            v = 1000 * (1 + (shift if i >= 40 else 0)) * (1 + rnd.gauss(0, 0.01))
            f.write(f"night-{i + 1},{v:.3f}\n")


def case_csv(netab, tmp):
    log("case: --csv with a -5% shift at point 40 of 60")
    path = os.path.join(tmp, "shift.csv")
    write_csv(path, -0.05, 1)
    r = run_cmd([netab, "history", "--csv", path, "--json"], expect_rc=1)
    doc = json.loads(r.stdout)
    cps = doc["series"][0]["change_points"]
    check_eq(len(cps), 1, "one change point")
    check(39 <= cps[0]["index"] <= 41, "at point 40 +-1", cps[0])
    check(cps[0]["change_ci_low_pct"] < -5 < cps[0]["change_ci_high_pct"] or
          abs(cps[0]["change_pct"] + 5) < 1, "a change of about -5 %", cps[0])
    check_eq(cps[0]["label"], f"night-{cps[0]['index'] + 1}", "the label of the first point after")
    png = os.path.join(tmp, "shift.png")
    r = run_cmd([netab, "history", "--csv", path, "--plot", png], expect_rc=1)
    check("night-" in r.stdout and "-5." in r.stdout, "the text table shows the change", r.stdout)
    w, h, rows = read_png(png)
    red = count_pixels(rows, lambda p: p[0] > 180 and p[1] < 90 and p[2] < 60)
    check(red > 200, f"the segment means are drawn ({red} red pixels)")

    log("case: a flat CSV has no change point")
    flat = os.path.join(tmp, "flat.csv")
    write_csv(flat, 0, 2)
    r = run_cmd([netab, "history", "--csv", flat, "--json"], expect_rc=0)
    check_eq(json.loads(r.stdout)["series"][0]["change_points"], [], "no change point")

    log("case: bad input")
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("a,1\nb,zz\n")
    r = run_cmd([netab, "history", "--csv", bad], expect_rc=2)
    check("bad.csv:2:" in r.stderr and "'zz'" in r.stderr, "names the line and value", r.stderr)
    r = run_cmd([netab, "history", "--by", "week"], expect_rc=2)
    check("--by" in r.stderr, "names the option", r.stderr)


def record(netab, db, k, value_b):
    """Experiment k: variants a (1000) and b (value_b), two runs each, by --cmd."""
    rnd = random.Random(k)
    va, vb = 1000 + rnd.uniform(-3, 3), value_b + rnd.uniform(-3, 3)
    run_cmd([netab, "compare", "--db", db, "--runs", "2", "--seed", str(k), "--metric-json", "v",
             "--cmd", "printf '{\"v\": %s}\\n'", "--variant", "a", "--opts", f"{va:.2f}",
             "--variant", "b", "--opts", f"{vb:.2f}", "--json"], expect_rc=(0, 1))


def case_stores(netab, tmp):
    log("case: 12 stored experiments over two stores, b drops after the 8th")
    dbs = [os.path.join(tmp, "one.db"), os.path.join(tmp, "two.db")]
    for k in range(12):
        record(netab, dbs[k % 2], k, 1000 if k < 8 else 900)
    common = [netab, "history", "--db", dbs[0], "--db", dbs[1], "--metric", "v",
              "--min-segment", "3", "--json"]
    r = run_cmd(common + ["--variant", "b"], expect_rc=1)
    doc = json.loads(r.stdout)
    s = doc["series"][0]
    check_eq(s["variant"], "b", "the variant")
    check_eq(len(s["points"]), 12, "a point per experiment")
    check_eq([p["runs"] for p in s["points"]], [2] * 12, "two runs per point")
    check_eq(len(s["change_points"]), 1, "one change point")
    cp = s["change_points"][0]
    check_eq(cp["index"], 8, "at the ninth experiment")
    check(abs(cp["change_pct"] + 10) < 1.5, "a change of about -10 %", cp)
    # Experiments alternate between the stores: db2#1 follows db1#1 in time.
    check(s["points"][0]["label"].startswith("db1#1 ") and
          s["points"][1]["label"].startswith("db2#1 "), "labels in time order", s["points"][:2])
    r = run_cmd(common + ["--variant", "a"], expect_rc=0)
    check_eq(json.loads(r.stdout)["series"][0]["change_points"], [], "a is flat")
    r = run_cmd([netab, "history", "--db", dbs[0], "--metric", "v", "--min-segment", "2"],
                expect_rc=(0, 1))
    check("variant 'a'" in r.stdout and "variant 'b'" in r.stdout, "every variant", r.stdout)
    log("case: --by kernel: every run was on this kernel, so one point of all of them")
    r = run_cmd(common + ["--variant", "b", "--by", "kernel"], expect_rc=0)
    pts = json.loads(r.stdout)["series"][0]["points"]
    check_eq([(p["label"], p["runs"]) for p in pts], [(os.uname().release, 24)],
             "one point: the kernel, 24 runs")
    check(abs(pts[0]["value"] - (8 * 1000 + 4 * 900) / 12) < 3, "the mean of every run", pts)
    r = run_cmd([netab, "history", "--db", dbs[0], "--variant", "zz"], expect_rc=2)
    check("'zz'" in r.stderr, "an unknown variant is named", r.stderr)


def body(netab):
    with tempfile.TemporaryDirectory(prefix="netab-history-") as tmp:
        case_csv(netab, tmp)
        case_stores(netab, tmp)


run_main(body)
