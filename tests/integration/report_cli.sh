#!/bin/bash
# End-to-end checks of `netab report`: an experiment database built through
# the store API by report_fixture, every format, 72 columns, exit statuses
# (0 no regression, 1 deciding-metric regression, 2 usage / unknown ID /
# unreadable database).
# Usage: report_cli.sh PATH/TO/netab PATH/TO/report_fixture
set -u
. "$(dirname "$0")/lib.sh"
netab=${1:?usage: report_cli.sh NETAB FIXTURE}
fixture=${2:?usage: report_cli.sh NETAB FIXTURE}
need_exec "$netab" "$fixture"
need python3
tmp=$nb_tmp
unset NETAB_DB XDG_DATA_HOME
export HOME=$tmp/home

reg=$tmp/regress.db same=$tmp/same.db
run_netab "$fixture" "$reg" regress
expect_rc "report_fixture regress" 0 || exit 1
id=$(cat "$nb_out")
run_netab "$fixture" "$same" same
expect_rc "report_fixture same" 0 || exit 1
id2=$(cat "$nb_out")

check "help" 0 "usage: netab report" "$netab" report --help
check "no ID" 2 "which experiment" "$netab" report --db "$reg"
check "bad ID" 2 "ID:" "$netab" report --db "$reg" abc
check "extra operand" 2 "unexpected argument" "$netab" report --db "$reg" "$id" 5
check "bad format" 2 "--format" "$netab" report --db "$reg" --format pdf "$id"
check "bad metric" 2 "unknown metric 'bogus'" "$netab" report --db "$reg" --metric bogus "$id"
check "bad noise" 2 "--noise" "$netab" report --db "$reg" --noise -1 "$id"
check "bad confidence" 2 "--confidence" "$netab" report --db "$reg" --confidence 100 "$id"
check "unknown option" 2 "unknown option" "$netab" report --db "$reg" --frobnicate "$id"
check "missing database" 2 "" "$netab" report --db "$tmp/nope.db" 1
check "unknown experiment" 2 "no experiment 99" "$netab" report --db "$reg" 99
echo "not a database" >"$tmp/junk.db"
check "not a database" 2 "" "$netab" report --db "$tmp/junk.db" 1

check "regression: text, exit 1" 1 "REGRESSION" "$netab" report --db "$reg" "$id"
check "regression: verdict shown" 1 "regressed" "$netab" report --db "$reg" "$id"
check "env difference shown" 1 '/kernel: "6.1" -> "6.1-p"' "$netab" report --db "$reg" "$id"
check "no regression: exit 0" 0 "No deciding-metric comparison regressed" \
    "$netab" report --db "$same" "$id2"
check "NETAB_DB is the default" 0 "fixture" env NETAB_DB="$same" "$netab" report "$id2"
check "markdown" 1 "| variant |" "$netab" report --db "$reg" --format markdown "$id"
check "csv header" 1 "variant,cell,test,metric,unit" "$netab" report --db "$reg" --format csv "$id"
check "json" 1 '"report_version": 1' "$netab" report --db "$reg" --format json "$id"
check "metric choice decides" 0 "" "$netab" report --db "$reg" --metric cpu_local "$id"
# --baseline patched: base is now the one compared, 10 % faster, so nothing regresses.
check "--baseline flips the comparison" 0 "Variants: patched (baseline), base" \
    "$netab" report --db "$reg" --baseline patched "$id"
check "--baseline: base improved" 0 "Changes against patched:" \
    "$netab" report --db "$reg" --baseline patched "$id"
check "--baseline unknown" 2 "no variant 'nope' (variants: base, patched)" \
    "$netab" report --db "$reg" --baseline nope "$id"
check "--baseline empty" 2 "--baseline needs a variant name" \
    "$netab" report --db "$reg" --baseline "" "$id"
check "--pairs bad" 2 "--pairs: 'some' is not all or baseline" \
    "$netab" report --db "$reg" --pairs some "$id"
check "--pairs all, two variants" 1 "One pair: no correction is needed." \
    "$netab" report --db "$reg" --pairs all "$id"
check "--transpose: cells as rows" 1 "cell       " "$netab" report --db "$reg" --transpose "$id"
run_netab "$netab" report --db "$reg" --transpose "$id"
if expect_rc "--transpose text" 1; then
    rows=$(awk '/^Receive throughput/ {t = 1; next} t && /^$/ {exit} t' "$nb_out" | awk '{print $1}')
    if [ "$rows" = "$(printf 'cell\nstreams=1\nstreams=4')" ]; then
        pass "--transpose rows are the cells in order"
    else
        fail "--transpose rows: $rows"
    fi
fi

# Text never passes 72 columns; warm-ups (100x values) and the failed run are excluded.
run_netab "$netab" report --db "$reg" "$id"
expect_rc "text report for the column check" 1
long=$(awk 'length($0) > 72' "$nb_out")
if [ -n "$long" ]; then fail "lines over 72 columns:"; echo "$long"; else pass "72 columns"; fi
run_netab "$netab" report --db "$reg" --format json "$id"
if expect_rc "json report" 1; then
    python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["runs"]["warmup"] == 4 and d["runs"]["failed"] == 1, d["runs"]
for r in d["results"]:
    assert r["n"] == 5, r
    if r["metric"] == "throughput":
        assert r["median"] < 50000, r
' <"$nb_out" && pass "json exclusions" || fail "json exclusions"
fi
run_netab "$netab" report --db "$reg" --format csv "$id"
if expect_rc "csv report" 1; then
    python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), rows
' <"$nb_out" && pass "csv parses" || fail "csv parses"
fi
[ "$nb_fails" = 0 ] && echo "all report_cli checks passed"
nb_finish
