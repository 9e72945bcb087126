#!/bin/bash
# End-to-end checks of `netab runs` on a database it fills through the
# `import` verb with the checked-in result documents: list, show, export,
# default path resolution, and the error messages for bad databases.
# Usage: runs_cli.sh PATH/TO/netab
set -u
netab=${1:?usage: runs_cli.sh NETAB}
data=$(cd "$(dirname "$0")/../unit/store/data" && pwd)
[ -x "$netab" ] || { echo "SKIP: $netab is not executable"; exit 77; }
tmp=$(mktemp -d /tmp/netab-runs-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset NETAB_DB XDG_DATA_HOME
export HOME=$tmp/home
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
db=$tmp/a/b/results.db

check "help" 0 "usage: netab runs" "$netab" runs --help
check "no verb" 2 "which verb" "$netab" runs
check "unknown verb" 2 "unknown verb 'frob'" "$netab" runs frob --db "$db"
check "list on a missing database does not create it" 1 "no results database at $db" \
    "$netab" runs list --db "$db"
[ -e "$db" ] && { echo "FAIL: list created $db"; fails=$((fails + 1)); }
check "import tcp_stream" 0 "recorded run 1 in $db" "$netab" runs import "$data/tcp_stream.json" --db "$db"
check "import udp_stream from stdin" 0 "recorded run 2" \
    bash -c "\"$netab\" runs import - --db \"$db\" < \"$data/udp_stream.json\""
check "import tcp_rr" 0 "recorded run 3" "$netab" runs import "$data/tcp_rr.json" --db "$db" \
    --argv "netab run --test tcp_rr"
check "import rejects non-JSON" 2 "not a netab run --json document" \
    "$netab" runs import "$0" --db "$db"

check "list shows receiver Mbit/s of the TCP run" 0 "20998.27" "$netab" runs list --db "$db"
check "list shows the UDP loss column" 0 "RECV_Mbit/s" "$netab" runs list --db "$db"
out=$("$netab" runs list --db "$db" --json)
n=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), d[2]["latency_p99_us"], d[1]["lost_percent"])' <<<"$out")
if [ "$n" = "3 57.471 0.0" ]; then echo "ok: list --json"; else echo "FAIL: list --json: $n"; fails=$((fails + 1)); fi
check "list --experiment 0 (single runs)" 0 "20998.27" "$netab" runs list --db "$db" --experiment 0
check "list --experiment 5 is empty" 0 "(no runs recorded)" "$netab" runs list --db "$db" --experiment 5
check "show has the raw document" 0 '"jitter_ms"' "$netab" runs show 2 --db "$db"
check "show has intervals" 0 "intervals:" "$netab" runs show 2 --db "$db"
check "show keeps the command line" 0 "netab run --test tcp_rr" "$netab" runs show 3 --db "$db"
check "show --json" 0 '"result": {' "$netab" runs show 1 --json --db "$db"
check "show a missing run" 1 "no run 99" "$netab" runs show 99 --db "$db"
check "show needs an ID" 2 "which run" "$netab" runs show --db "$db"

check "export csv" 0 "id,experiment,seq,variant,cell,status" "$netab" runs export --format csv --db "$db"
rows=$("$netab" runs export --format csv --db "$db" | wc -l)
[ "$rows" = 4 ] && echo "ok: export csv has 3 rows" || { echo "FAIL: csv rows $rows"; fails=$((fails + 1)); }
check "export json to a file" 0 "" "$netab" runs export --format json -o "$tmp/out.json" --db "$db"
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d), d[0]["result"]["test"]["test"])' "$tmp/out.json")
[ "$n" = "3 tcp_stream" ] && echo "ok: export json" || { echo "FAIL: export json: $n"; fails=$((fails + 1)); }
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
check "not a database" 1 "not a SQLite database" "$netab" runs import "$data/tcp_stream.json" --db "$tmp/notes.txt"
[ "$(md5sum < "$tmp/notes.txt")" = "$sum" ] && echo "ok: notes untouched" || { echo "FAIL: notes changed"; fails=$((fails + 1)); }
if command -v sqlite3 >/dev/null; then
    cp "$db" "$tmp/newer.db"
    sqlite3 "$tmp/newer.db" 'PRAGMA user_version = 99' >/dev/null
    check "newer schema" 1 "newer than this netab understands" "$netab" runs list --db "$tmp/newer.db"
else
    python3 - "$db" "$tmp/newer.db" <<'PY'
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2]); c = sqlite3.connect(sys.argv[2]); c.execute("PRAGMA user_version = 99"); c.commit(); c.close()
PY
    check "newer schema" 1 "newer than this netab understands" "$netab" runs list --db "$tmp/newer.db"
fi
check "the original still lists" 0 "20998.27" "$netab" runs list --db "$db"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all runs_cli checks passed"
