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
check "env difference shown (--full)" 1 '/kernel: "6.1" -> "6.1-p"' \
    "$netab" report --db "$reg" --full "$id"
check "env difference counted by default" 1 "Environment: 1 difference from base" \
    "$netab" report --db "$reg" "$id"
check "--sections environment" 1 '/kernel: "6.1" -> "6.1-p"' \
    "$netab" report --db "$reg" --sections environment "$id"
check "--sections unknown" 2 "--sections: no section 'bogus' (sections: headline," \
    "$netab" report --db "$reg" --sections headline,bogus "$id"
check "--full and --sections" 2 "give --full or --sections once" \
    "$netab" report --db "$reg" --full --sections headline "$id"
check "default starts with the headline" 1 "cell       variant  recv Mbit/s" \
    "$netab" report --db "$reg" "$id"
check "no regression: exit 0" 0 "No deciding-metric comparison regressed" \
    "$netab" report --db "$same" "$id2"
check "NETAB_DB is the default" 0 "fixture" env NETAB_DB="$same" "$netab" report "$id2"
check "markdown" 1 "| variant |" "$netab" report --db "$reg" --format markdown "$id"
# --sections holds for markdown too: the sections asked for, and nothing of the others.
check "markdown --sections environment" 1 "### Environment differences from base" \
    "$netab" report --db "$reg" --format markdown --sections environment "$id"
if grep -qE "^### (Headline|Runs|Warnings)" "$nb_out"; then
    fail "markdown --sections environment printed other sections"
    nb_show
else
    pass "markdown --sections environment prints only that section"
fi
check "markdown --sections runs" 1 "### Runs" \
    "$netab" report --db "$reg" --format markdown --sections runs "$id"
if grep -qE "^### (Headline|Environment)" "$nb_out"; then
    fail "markdown --sections runs printed other sections"
    nb_show
else
    pass "markdown --sections runs prints only that section"
fi
check "csv --sections warnings is refused, naming it" 2 "--sections warnings: the CSV is one table" \
    "$netab" report --db "$reg" --format csv --sections headline,warnings "$id"
check "html --sections counters is refused, naming it" 2 \
    "--sections counters: the HTML page has no such section" \
    "$netab" report --db "$reg" --format html --sections counters "$id"
check "--full with json is every section" 1 '"report_version": 1' \
    "$netab" report --db "$reg" --format json --full "$id"
check "csv header" 1 "variant,cell,test,metric,unit" "$netab" report --db "$reg" --format csv "$id"
check "json" 1 '"report_version": 1' "$netab" report --db "$reg" --format json "$id"
check "metric choice decides" 0 "" "$netab" report --db "$reg" --metric cpu_local "$id"
# --baseline patched: base is now the one compared, 10 % faster, so nothing regresses.
check "--baseline flips the comparison" 0 "Variants: patched (baseline), base" \
    "$netab" report --db "$reg" --baseline patched "$id"
check "--baseline: base improved" 0 "Changes against patched:" \
    "$netab" report --db "$reg" --baseline patched --full "$id"
check "--baseline unknown" 2 "no variant 'nope' (variants: base, patched)" \
    "$netab" report --db "$reg" --baseline nope "$id"
check "--baseline empty" 2 "--baseline: the value must not be empty" \
    "$netab" report --db "$reg" --baseline "" "$id"
check "--pairs bad" 2 "--pairs: 'some' is not all or baseline" \
    "$netab" report --db "$reg" --pairs some "$id"
check "--pairs all, two variants" 1 "One pair: no correction is needed." \
    "$netab" report --db "$reg" --pairs all --sections pairs "$id"
check "--transpose: cells as rows" 1 "cell       " "$netab" report --db "$reg" --transpose --full "$id"
run_netab "$netab" report --db "$reg" --transpose --sections tables "$id"
if expect_rc "--transpose text" 1; then
    rows=$(awk '/^Receive throughput/ {t = 1; next} t && /^$/ {exit} t' "$nb_out" | awk '{print $1}')
    if [ "$rows" = "$(printf 'cell\nstreams=1\nstreams=4')" ]; then
        pass "--transpose rows are the cells in order"
    else
        fail "--transpose rows: $rows"
    fi
fi

# Text never passes 72 columns; warm-ups (100x values) and the failed run are excluded.
for how in --full --sections=headline,verdict ""; do
    run_netab "$netab" report --db "$reg" $how "$id"
    expect_rc "text report $how for the column check" 1
    long=$(awk 'length($0) > 72' "$nb_out")
    if [ -n "$long" ]; then fail "$how: lines over 72 columns:"; echo "$long"; else pass "72 columns $how"; fi
done
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
# Build identities: one kernel release on both sides, different builds (report_fixture identity).
ident=$tmp/identity.db
run_netab "$fixture" "$ident" identity
expect_rc "report_fixture identity" 0 || exit 1
id3=$(cat "$nb_out")
run_netab "$netab" report --db "$ident" --full "$id3"
if expect_rc "identity report" 0; then
    # The text wraps at 72 columns; the sentence is checked with its lines joined.
    python3 -c '
import sys
text = " ".join(sys.stdin.read().split())
for want in ["patched: local: same kernel release 6.1.0-18-amd64, different build IDs: aa11aa11 vs bb22bb22",
             "patched: remote: same kernel release 6.2.0-1, module virtio_net has different srcversions: SRC1 vs SRC2",
             "/identity/build_id: \"aa11aa11\" -> \"bb22bb22\"",
             "/remote_identity/module/srcversion: \"SRC1\" -> \"SRC2\""]:
    assert want in text, want
' <"$nb_out" && pass "identity: text report says one release, different builds" \
        || fail "identity: text report says one release, different builds"
fi
run_netab "$netab" report --db "$ident" --format json "$id3"
if expect_rc "identity json report" 0; then
    python3 -c '
import json, sys
d = json.load(sys.stdin)
notes = d["env_differences"][0]["identity_notes"]
assert notes == ["local: same kernel release 6.1.0-18-amd64, different build IDs: aa11aa11 vs bb22bb22",
                 "remote: same kernel release 6.2.0-1, module virtio_net has different srcversions: SRC1 vs SRC2"], notes
' <"$nb_out" && pass "identity: json identity_notes" || fail "identity: json identity_notes"
fi
check "identity: markdown" 0 "different build IDs: aa11aa11 vs bb22bb22" \
    "$netab" report --db "$ident" --format markdown "$id3"
check "identity: html" 0 "different build IDs: aa11aa11 vs bb22bb22" \
    "$netab" report --db "$ident" --format html "$id3"
# The same release and build on both sides: no sentence.
run_netab "$netab" report --db "$same" --format json "$id2"
if expect_rc "same json report" 0; then
    python3 -c '
import json, sys
d = json.load(sys.stdin)
assert all(e["identity_notes"] == [] for e in d["env_differences"]), d["env_differences"]
' <"$nb_out" && pass "no identity notes without identities" || fail "no identity notes without identities"
fi
# runs list/export: warm-up flag, round and both identities.
run_netab "$netab" runs list --db "$ident" --json
if expect_rc "identity runs list" 0; then
    python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert [r["warmup"] for r in rows[:4]] == [True] * 4 and rows[4]["warmup"] is False, rows[:5]
assert [r["round"] for r in rows[:6]] == [0, 0, 0, 0, 1, 1], [r["round"] for r in rows]
assert rows[0]["identity"]["local"]["build_id"] == "aa11aa11", rows[0]
assert rows[1]["identity"]["local"]["build_id"] == "bb22bb22", rows[1]
assert rows[1]["identity"]["remote"]["module"]["srcversion"] == "SRC2", rows[1]
' <"$nb_out" && pass "runs list --json: warmup, round, identity" \
        || fail "runs list --json: warmup, round, identity"
fi
check "runs list text: WU and RND" 0 " WU RND " "$netab" runs list --db "$ident"
check "runs export csv: identity columns" 0 "warmup,round,local_release,local_build_id" \
    "$netab" runs export --db "$ident" --format csv
[ "$nb_fails" = 0 ] && echo "all report_cli checks passed"
nb_finish
