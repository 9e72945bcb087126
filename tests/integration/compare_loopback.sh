#!/bin/bash
# End-to-end checks of `netab compare` on loopback: a clearly slower variant
# regresses (exit 1), identical variants do not (exit 0), a variant whose runs
# all fail is reported with the reason (exit 2), --cmd with --metric-regex,
# and the JSON contract. Usage: compare_loopback.sh PATH/TO/netab
set -u
. "$(dirname "$0")/lib.sh"
netab=${1:?usage: compare_loopback.sh NETAB}
need_exec "$netab"
need python3
# 512-byte sends cost a system call per 512 bytes: on loopback that is several
# times slower than 128 KiB sends, far beyond any noise.
check "smaller blocks regress" 1 "regressed" \
    "$netab" compare --runs 5 --seed 1 --variant big --opts '-l 128K' \
    --variant small --opts '-l 512' -- -t 0.5
check "identical variants do not" 0 "exit status 0" \
    "$netab" compare --runs 3 --seed 1 --noise 25 --variant a --variant b -- -t 0.3 -l 128K
check "a variant that cannot run is refused before anything runs" 2 \
    "variant 'bad': -P: '0' is out of range" \
    "$netab" compare --runs 2 --seed 1 --variant a --variant bad --opts '-P 0' -- -t 0.2
check "an unknown option in a variant is named" 2 "variant 'bad': unknown option '--bogus'" \
    "$netab" compare --runs 2 --seed 1 --variant a --variant bad --opts '--bogus' -- -t 0.2
check "an option after -- is checked for every variant" 2 "variant 'a': -t: " \
    "$netab" compare --runs 2 --seed 1 --variant a --variant b -- --time=abc
check "a failing variant is reported with its reason" 2 "no-such-cc" \
    "$netab" compare --runs 2 --seed 1 --variant a --variant bad --opts '-C no-such-cc' -- -t 0.2
check "a variant failing alike twice stops compare early, exit 2" 2 \
    "stopped early: variant 'bad': its first two runs failed alike" \
    "$netab" compare --runs 2 --seed 1 --variant a --variant bad --opts '-C no-such-cc' -- -t 0.2
check "external command, regex metric" 1 "'y' regressed in value" \
    "$netab" compare --runs 3 --seed 1 --variant x --cmd 'echo value 100' \
    --variant y --cmd 'echo value 50' --metric-regex 'value ([0-9]+)'
check "external command, lower is better" 0 "verdict: improved" \
    "$netab" compare --runs 3 --seed 1 --lower-is-better --variant x --cmd 'echo value 100' \
    --variant y --cmd 'echo value 50' --metric-regex 'value ([0-9]+)'
check "external command, JSON metric, common words appended" 0 "within noise" \
    "$netab" compare --runs 3 --seed 1 --metric-json r.v --cmd 'printf "{\"r\":{\"v\":%s}}"' \
    --variant p --variant q -- 7
check "hooks run around each run, in order" 0 "" bash -c '
    log=$(mktemp) && trap "rm -f $log" EXIT &&
    "$0" compare --runs 2 --seed 3 --prepare "echo prepare >>$log" \
        --variant a --setup "echo setup-a >>$log" --teardown "echo teardown-a >>$log" \
        --cmd "echo value 1" --variant b --cmd "echo value 1" --metric-regex "value ([0-9]+)" \
        >/dev/null
    [ "$(grep -c setup-a $log)" = 2 ] && [ "$(grep -c teardown-a $log)" = 2 ] &&
    [ "$(grep -c prepare $log)" = 4 ] && grep -A2 setup-a $log | head -3 | tr "\n" " " |
    grep -q "setup-a prepare teardown-a"' "$netab"
check "a failing setup fails the run, not the campaign" 2 "setup failed: exit status 1" \
    "$netab" compare --runs 2 --seed 1 --variant a --cmd 'echo value 1' \
    --variant b --setup 'exit 1' --cmd 'echo value 1' --metric-regex 'value ([0-9]+)'
check "a hanging run is killed at --timeout" 2 "timed out after 0.5 s" \
    "$netab" compare --runs 2 --seed 1 --timeout 0.5 --variant a --cmd 'echo value 1' \
    --variant b --cmd 'sleep 20; echo value 1' --metric-regex 'value ([0-9]+)'
check "adaptive: target reached early on constant values" 0 "target reached" \
    "$netab" compare --runs 2 --until-ci 5 --max-runs 20 --seed 1 --variant x \
    --cmd 'echo value 100' --variant y --cmd 'echo value 100' --metric-regex 'value ([0-9]+)'
# Both variants draw from one spread-out sequence (a counter shared through a file), so
# neither is better and the 0.001% target cannot be met; deterministic for the seed.
counter=$(mktemp)
spread='n=$(($(cat '"$counter"' 2>/dev/null || echo 0) + 1)); echo $n >'"$counter"'; echo value $((100 + n * 37 % 23))'
check "adaptive: says when the target is not reached" 0 "TARGET NOT REACHED" \
    "$netab" compare --runs 5 --until-ci 0.001 --max-runs 6 --seed 1 --variant x \
    --cmd "$spread" --variant y --cmd "$spread" --metric-regex 'value ([0-9]+)'
rm -f "$counter"
check "usage error exits 2" 2 "at least two variants" "$netab" compare --variant a
run_netab "$netab" compare --json --runs 3 --warmup 1 --seed 5 --variant a \
    --cmd 'echo value 100' --variant b --cmd 'echo value 90' --metric-regex 'value ([0-9]+)'
if expect_rc "netab compare --json for the contract" 1; then
    out=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["seed"] == 5 and d["exit_status"] == 1, d["exit_status"]
runs = d["runs"]
assert len(runs) == 8, len(runs)
assert all(r["warmup"] for r in runs[:2]) and not any(r["warmup"] for r in runs[2:])
for k in ("variant", "round", "seq", "status", "metrics", "error"):
    assert all(k in r for r in runs), k
for rnd in range(1, 5):
    assert sorted(r["variant"] for r in runs if r["round"] == rnd) == ["a", "b"]
m = d["metrics"][0]
assert m["decides"] and m["stats"]["comparisons"][0]["verdict"] == "regressed"
assert m["stats"]["sets"][0]["n"] == 3
print("contract ok")' <"$nb_out" 2>&1)
    if [ "$out" = "contract ok" ]; then pass "json contract"; else fail "json contract: $out"; fi
fi
nb_finish
