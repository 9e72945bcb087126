#!/bin/bash
# End-to-end checks of `netab stats` on the files in tests/unit/stats/data:
# verdicts, exit codes, JSON fields and file:line error messages.
# Usage: stats_cli.sh PATH/TO/netab
set -u
. "$(dirname "$0")/lib.sh"
netab=${1:?usage: stats_cli.sh NETAB}
data=$(cd "$(dirname "$0")/../unit/stats/data" && pwd)
need_exec "$netab"
need python3
cd "$data" || exit 1
check "regression found" 0 "verdict: regressed" "$netab" stats base.txt slower.txt
check "regression fails with --fail-on-regression" 1 "verdict: regressed" \
    "$netab" stats --fail-on-regression base.txt slower.txt
check "lower is better turns it into an improvement" 0 "verdict: improved" \
    "$netab" stats --lower-is-better --fail-on-regression base.txt slower.txt
check "same data within noise" 0 "verdict: within noise" "$netab" stats base.txt same.txt
check "stdin as baseline" 0 "verdict: regressed" "$netab" stats - slower.txt <base.txt
check "json verdict" 0 '"verdict": "regressed"' "$netab" stats --json base.txt slower.txt
check "json has mannwhitney_p" 0 '"mannwhitney_p":' "$netab" stats --json base.txt slower.txt
check "csv header" 0 "baseline,other,diff,diff_ci_low" "$netab" stats --csv base.txt slower.txt
check "bad number names file and line" 2 "netab stats: bad.txt:7: '12abc' is not a number" \
    "$netab" stats base.txt bad.txt
# A word where a number is expected is a failed run (docs/stats.md, "Failed runs"), but a line of
# words only is a header, refused as before, and one that starts like a number is no failure.
check "failure word counted" 0 "failed 2 of 15 runs, not in the figures: -EINTR x2" \
    "$netab" stats aim9_off.txt aim9_on.txt
check "header refused" 2 ":1: 'x' is not a number, and the line holds no number" \
    "$netab" stats base.txt <(printf 'x y\n1\n2\n')
check "empty file" 2 "empty.txt: no values" "$netab" stats empty.txt base.txt
check "single value" 2 "one.txt: only one value" "$netab" stats base.txt one.txt
check "unreadable file" 2 "cannot open missing.txt" "$netab" stats base.txt missing.txt
check "unknown option" 2 "unknown option '--frobnicate'" "$netab" stats --frobnicate base.txt
# Inputs are capped (64 MiB) and binary files refused: /dev/zero ends, not never (the timeout
# only tells a hang, exit 124, from the refusal; it is no speed limit).
check "/dev/zero is refused" 2 "/dev/zero is a binary file" timeout 30 "$netab" stats /dev/zero base.txt
check "a binary file is refused" 2 "is a binary file (a NUL byte at offset 3)" \
    "$netab" stats <(printf '1\n2\0\n3\n') base.txt
check "input over 64 MiB is refused" 2 "larger than 64 MiB" \
    "$netab" stats <(head -c $((64 * 1024 * 1024 + 1)) /dev/zero | tr '\0' '\n') base.txt
check "bad option value" 2 "--noise: 'lots'" "$netab" stats --noise lots base.txt slower.txt
check "bad confidence" 2 "--confidence" "$netab" stats --confidence 100 base.txt slower.txt
check "missing option value" 2 "needs a value" "$netab" stats base.txt --metric
check "bad format" 2 "--format: 'xml'" "$netab" stats --format xml base.txt
check "help" 0 "usage: netab stats" "$netab" stats --help
# Issue 10, section 5: the inputs where a figure used to be wrong.
check "baseline crossing zero is decided on the difference" 0 "verdict: regressed" \
    "$netab" stats zero_cross_base.txt zero_cross_other.txt
check "baseline crossing zero says ratios are undefined" 0 "ratios undefined: the baseline's 95% interval" \
    "$netab" stats zero_cross_base.txt zero_cross_other.txt
check "exactly -1% is within a 1% floor" 0 "verdict: within noise" \
    "$netab" stats --fail-on-regression const100.txt const99.txt
check "99.9% on two values" 0 "(Fieller)" "$netab" stats --confidence 99.9 two_base.txt two_other.txt
check "values near 1e154" 0 "p = 0.00395" "$netab" stats huge_base.txt huge_other.txt
check "subnormal values" 0 "p = 0.00395" "$netab" stats subnormal_base.txt subnormal_other.txt
for pair in "zero_cross_base.txt zero_cross_other.txt" "huge_base.txt huge_other.txt" \
    "subnormal_base.txt subnormal_other.txt" "const100.txt const99.txt"; do
    for fmt in "" --csv; do
        # shellcheck disable=SC2086
        run_netab "$netab" stats $fmt $pair
        expect_rc "stats ${fmt:-(text)} $pair" 0 || continue
        if cat "$nb_out" "$nb_err" | grep -qiwE 'nan|-nan|inf|18446744073709551615'; then
            fail "$pair (${fmt:-text}): the report shows nan, inf or a wrapped count"
            nb_show
        else
            pass "$pair (${fmt:-text}): no nan, inf or wrapped count"
        fi
    done
done
printf '1e308\n1.1e308\n' >"$nb_tmp/far_a.txt"
printf -- '-1e308\n-1.1e308\n' >"$nb_tmp/far_b.txt"
check "values too far apart are refused" 2 "too far apart to compare in double precision" \
    "$netab" stats "$nb_tmp/far_a.txt" "$nb_tmp/far_b.txt"
check "one column per file" 0 "columns.txt:3 vs x columns.txt:2 (baseline)" \
    "$netab" stats --column 2 columns.txt --column 3 columns.txt
check "one --column applies to every file" 0 "mean   diff  +0 [-1.153, +1.153]" \
    "$netab" stats columns.txt columns.txt --column 3
check "a trailing --column among several is refused" 2 "--column 3 follows the last file" \
    "$netab" stats --column 2 columns.txt columns.txt --column 3
run_netab "$netab" stats --json base.txt slower.txt
if expect_rc "netab stats --json for the contract" 0; then
    out=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
s = ["name", "n", "mean", "median", "stddev", "min", "max", "mean_ci_low", "mean_ci_high"]
c = ["baseline", "other", "diff", "diff_ci_low", "diff_ci_high", "diff_pct", "ratio",
     "ratio_ci_low", "ratio_ci_high", "welch_p", "mannwhitney_p", "verdict", "warnings"]
assert all(k in d["sets"][0] for k in s), "set fields"
assert all(k in d["comparisons"][0] for k in c), "comparison fields"
cmp, a, b = d["comparisons"][0], d["sets"][0], d["sets"][1]
assert abs(cmp["diff"] - (b["mean"] - a["mean"])) < 1e-9, "diff is other - baseline"
assert cmp["ratio_ci_low"] < cmp["ratio"] < cmp["ratio_ci_high"]
print("contract ok")' <"$nb_out" 2>&1)
    if [ "$out" = "contract ok" ]; then pass "json contract"; else fail "json contract: $out"; fi
fi
nb_finish
