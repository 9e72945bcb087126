#!/usr/bin/env python3
"""`netab stats`: failed runs are data (issue 29).

The AIM9 thread publishes its runs as sorted columns, failed runs written as
-EINTR (tests/unit/stats/data/aim9_columns.txt holds the thread's 15 rows).
`netab stats` reads them, exits 0, counts the two failures of that
set by their word in the text, JSON and CSV, and gives exactly the figures
of the same numbers without the failures: the failures are never compared
as numbers. Read by --column from the one file or from one file per column,
the figures are the same.
"""
import json
import os

import netab_helpers as h

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "stats", "data")
COLS = os.path.join(DATA, "aim9_columns.txt")
OFF = os.path.join(DATA, "aim9_off.txt")
ON = os.path.join(DATA, "aim9_on.txt")
ON_NUMBERS = os.path.join(DATA, "aim9_on_numbers.txt")


def figures(doc):
    """Every figure of the document but the names, columns and failures, compared exactly."""
    sets = [{k: v for k, v in s.items() if k not in ("name", "metric", "failed", "failures", "warnings")}
            for s in doc["sets"]]
    cmps = [{k: v for k, v in m.items() if k not in ("baseline", "other", "warnings")}
            for m in doc["comparisons"]]
    return json.dumps({"sets": sets, "comparisons": cmps}, sort_keys=True)


def test(netab, c):
    failed = h.netab_cmd(netab, "stats", "--json", f"off={OFF}", f"on={ON}").doc
    alone = h.netab_cmd(netab, "stats", "--json", f"off={OFF}", f"on={ON_NUMBERS}").doc
    cols = h.netab_cmd(netab, "stats", "--json", "--column", "2", f"off={COLS}",
                       "--column", "3", f"on={COLS}").doc
    on = failed["sets"][1]
    c.check(on["failed"] == 2 and on["failures"] == [{"word": "-EINTR", "count": 2}]
            and on["n"] == 13, "the set counts 2 failures, listed as -EINTR x2",
            json.dumps(on["failures"]) + f" failed {on['failed']} n {on['n']}")
    c.check(failed["sets"][0]["failed"] == 0 and failed["sets"][0]["failures"] == [],
            "the set without failures says 0", str(failed["sets"][0]["failures"]))
    c.check(alone["sets"][1]["failed"] == 0, "the numbers alone have no failure")
    m, a = failed["comparisons"][0], alone["comparisons"][0]
    for k in ("welch_p", "welch_t", "welch_df", "diff", "diff_ci_low", "diff_ci_high",
              "mannwhitney_p"):
        c.check(m[k] == a[k], f"{k} is that of the numbers alone", f"{m[k]!r} vs {a[k]!r}")
    for k in ("mean", "mean_ci_low", "mean_ci_high", "median"):
        c.check(on[k] == alone["sets"][1][k], f"the set's {k} is that of the numbers alone",
                f"{on[k]!r} vs {alone['sets'][1][k]!r}")
    c.check(figures(failed) == figures(alone), "every figure is that of the numbers alone")
    c.check(figures(cols) == figures(alone) and cols["sets"][1]["failed"] == 2,
            "--column on the published columns gives the same figures and failures")

    text = h.netab_cmd(netab, "stats", "--no-plot", f"off={OFF}", f"on={ON}").stdout
    c.check(text.count("failed 2 of 15 runs, not in the figures: -EINTR x2") == 1
            and text.count("failed ") == 1, "the text says it once, under the set", text)
    csv = h.netab_cmd(netab, "stats", "--csv", f"off={OFF}", f"on={ON}").stdout
    lines = csv.splitlines()
    c.check(lines[0].endswith(",outliers,failed,failures") and lines[1].endswith(",0,")
            and lines[2].endswith(",2,'-EINTR x2"), "the CSV has failed and failures (a"
            " leading '-' guarded for spreadsheets)", csv)


if __name__ == "__main__":
    h.main(test)
