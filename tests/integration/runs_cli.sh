#!/bin/bash
# End-to-end checks of `netab runs` on a database it fills through the
# `import` verb with the checked-in result documents: list, show, export,
# default path resolution, and the error messages for bad databases.
# Usage: runs_cli.sh PATH/TO/netab
set -u
. "$(dirname "$0")/lib.sh"
netab=${1:?usage: runs_cli.sh NETAB}
data=$(cd "$(dirname "$0")/../unit/store/data" && pwd)
need_exec "$netab"
need python3 md5sum
tmp=$nb_tmp
unset NETAB_DB XDG_DATA_HOME
export HOME=$tmp/home
db=$tmp/a/b/results.db

check "help" 0 "usage: netab runs" "$netab" runs --help
check "no verb" 2 "which verb" "$netab" runs
check "unknown verb" 2 "unknown verb 'frob'" "$netab" runs frob --db "$db"
check "list on a missing database does not create it" 2 "no results database at $db" \
    "$netab" runs list --db "$db"
[ -e "$db" ] && fail "list created $db"
check "import tcp_stream" 0 "recorded run 1 in $db" "$netab" runs import "$data/tcp_stream.json" --db "$db"
check "import udp_stream from stdin" 0 "recorded run 2" \
    bash -c "\"$netab\" runs import - --db \"$db\" < \"$data/udp_stream.json\""
check "import tcp_rr" 0 "recorded run 3" "$netab" runs import "$data/tcp_rr.json" --db "$db" \
    --argv "netab run --test tcp_rr"
check "import rejects non-JSON" 2 "not a netab run --json document" \
    "$netab" runs import "$0" --db "$db"

check "list shows receiver Mbit/s of the TCP run" 0 "20998.27" "$netab" runs list --db "$db"
check "list shows the UDP loss column" 0 "RECV_Mbit/s" "$netab" runs list --db "$db"
run_netab "$netab" runs list --db "$db" --json
expect_rc "list --json" 0
n=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), d[2]["latency_p99_us"], d[1]["lost_percent"])' <"$nb_out")
if [ "$n" = "3 57.471 0.0" ]; then pass "list --json"; else fail "list --json: $n"; fi
check "list --experiment 0 (single runs)" 0 "20998.27" "$netab" runs list --db "$db" --experiment 0
check "list --experiment 5 is empty" 0 "(no runs recorded)" "$netab" runs list --db "$db" --experiment 5
check "show has the raw document" 0 '"jitter_ms"' "$netab" runs show 2 --db "$db"
check "show has intervals" 0 "intervals:" "$netab" runs show 2 --db "$db"
check "show keeps the command line" 0 "netab run --test tcp_rr" "$netab" runs show 3 --db "$db"
check "show --json" 0 '"result": {' "$netab" runs show 1 --json --db "$db"
check "show a missing run" 2 "no run 99" "$netab" runs show 99 --db "$db"
check "show needs an ID" 2 "which run" "$netab" runs show --db "$db"

check "export csv" 0 "id,experiment,seq,variant,cell,status" "$netab" runs export --format csv --db "$db"
run_netab "$netab" runs export --format csv --db "$db"
expect_rc "export csv" 0
rows=$(wc -l <"$nb_out")
[ "$rows" = 4 ] && pass "export csv has 3 rows" || fail "csv rows $rows"
check "export json to a file" 0 "" "$netab" runs export --format json -o "$tmp/out.json" --db "$db"
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d), d[0]["result"]["test"]["test"])' "$tmp/out.json")
[ "$n" = "3 tcp_stream" ] && pass "export json" || fail "export json: $n"
check "export needs a format" 2 "--format" "$netab" runs export --db "$db"
check "export rejects xml" 2 "neither csv nor json" "$netab" runs export --format xml --db "$db"

# Where the database lives: NETAB_DB, then XDG_DATA_HOME, then ~/.local/share.
check "NETAB_DB" 0 "20998.27" env NETAB_DB="$db" "$netab" runs list
check "XDG_DATA_HOME" 0 "recorded run 1 in $tmp/xdg/netab/results.db" \
    env XDG_DATA_HOME="$tmp/xdg" "$netab" runs import "$data/tcp_stream.json"
check "HOME default" 0 "recorded run 1 in $tmp/home/.local/share/netab/results.db" \
    "$netab" runs import "$data/tcp_stream.json"
check "experiments (none yet)" 0 "(no experiments recorded)" "$netab" runs experiments --db "$db"

# Files that are not ours are refused and left alone.
printf 'my notes\n%.0s' $(seq 200) > "$tmp/notes.txt"
sum=$(md5sum < "$tmp/notes.txt")
check "not a database" 2 "not a SQLite database" "$netab" runs import "$data/tcp_stream.json" --db "$tmp/notes.txt"
[ "$(md5sum < "$tmp/notes.txt")" = "$sum" ] && pass "notes untouched" || fail "notes changed"
python3 - "$db" "$tmp/newer.db" <<'PY' || fail "cannot make a copy with a newer schema"
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2]); c = sqlite3.connect(sys.argv[2]); c.execute("PRAGMA user_version = 99"); c.commit(); c.close()
PY
check "newer schema" 2 "newer than this netab understands" "$netab" runs list --db "$tmp/newer.db"
check "the original still lists" 0 "20998.27" "$netab" runs list --db "$db"

[ "$nb_fails" = 0 ] && echo "all runs_cli checks passed"
nb_finish
