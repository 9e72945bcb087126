#!/bin/bash
# End-to-end checks of `netab stats` on the files in tests/unit/stats/data:
# verdicts, exit codes, JSON fields and file:line error messages.
# Usage: stats_cli.sh PATH/TO/netab
set -u
netab=${1:?usage: stats_cli.sh NETAB}
data=$(cd "$(dirname "$0")/../unit/stats/data" && pwd)
[ -x "$netab" ] || { echo "SKIP: $netab is not executable"; exit 77; }
fails=0
check() { # description, expected exit code, expected text (grep -F), command...
    local what=$1 want_rc=$2 want_text=$3
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want_rc" ]; then
        echo "FAIL: $what: exit $rc, wanted $want_rc"; echo "$out" | head -20; fails=$((fails + 1)); return
    fi
    if [ -n "$want_text" ] && ! grep -qF -- "$want_text" <<<"$out"; then
        echo "FAIL: $what: output lacks '$want_text'"; echo "$out" | head -20; fails=$((fails + 1)); return
    fi
    echo "ok: $what"
}
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
# Inputs are capped (64 MiB) and binary files refused: /dev/zero ends within a second, not never.
check "/dev/zero is refused at once" 2 "/dev/zero is a binary file" timeout 1 "$netab" stats /dev/zero base.txt
check "a binary file is refused" 2 "is a binary file (a NUL byte at offset 3)" \
    "$netab" stats <(printf '1\n2\0\n3\n') base.txt
check "input over 64 MiB is refused" 2 "larger than 64 MiB" \
    "$netab" stats <(head -c $((64 * 1024 * 1024 + 1)) /dev/zero | tr '\0' '\n') base.txt
check "bad option value" 2 "--noise: 'lots'" "$netab" stats --noise lots base.txt slower.txt
check "bad confidence" 2 "--confidence" "$netab" stats --confidence 100 base.txt slower.txt
check "missing option value" 2 "needs a value" "$netab" stats base.txt --metric
check "bad format" 2 "--format: 'xml'" "$netab" stats --format xml base.txt
check "help" 0 "usage: netab stats" "$netab" stats --help
if command -v python3 >/dev/null && python3 -c 'import json' 2>/dev/null; then
    out=$("$netab" stats --json base.txt slower.txt | python3 -c '
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
print("contract ok")' 2>&1)
    if [ "$out" = "contract ok" ]; then echo "ok: json contract"; else echo "FAIL: json contract: $out"; fails=$((fails + 1)); fi
fi
[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
