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
check "bad number names file and line" 2 "netab stats: bad.txt:7: 'abc' is not a number" \
    "$netab" stats base.txt bad.txt
check "empty file" 2 "empty.txt: no values" "$netab" stats empty.txt base.txt
check "single value" 2 "one.txt: only one value" "$netab" stats base.txt one.txt
check "unreadable file" 2 "cannot open missing.txt" "$netab" stats base.txt missing.txt
check "unknown option" 2 "unknown option '--frobnicate'" "$netab" stats --frobnicate base.txt
check "bad option value" 2 "--noise: 'lots'" "$netab" stats --noise lots base.txt slower.txt
check "bad confidence" 2 "--confidence" "$netab" stats --confidence 100 base.txt slower.txt
check "missing option value" 2 "needs a value" "$netab" stats base.txt --metric
check "bad format" 2 "--format: 'xml'" "$netab" stats --format xml base.txt
check "help" 0 "usage: netab stats" "$netab" stats --help
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
