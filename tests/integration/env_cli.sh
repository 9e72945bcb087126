#!/bin/bash
# netab env: the snapshot names this kernel and the interface asked for, and
# bad input (an unknown interface, an address no interface has, a stray
# argument) is a clear error with exit status 2.
set -u
NETAB=$1
fails=0
check() { # what, expected status, command...
    local what=$1 want=$2
    shift 2
    "$@" >/tmp/env_cli.$$ 2>&1
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want: $(head -c 300 /tmp/env_cli.$$)"
        fails=$((fails + 1))
    else
        echo "ok: $what"
    fi
}
trap 'rm -f /tmp/env_cli.$$' EXIT

check "lo by address" 0 "$NETAB" env --addr 127.0.0.1 --json
python3 - "$(uname -r)" /tmp/env_cli.$$ <<'PY' || fails=$((fails + 1))
import json, sys
env = json.load(open(sys.argv[2]))["environment"]
assert env["kernel"] == sys.argv[1], (env["kernel"], sys.argv[1])
assert env["interface"]["name"] == "lo" and env["interface"]["mtu"] == 65536, env["interface"]
print("ok: kernel and interface facts")
PY
check "unknown interface" 2 "$NETAB" env --iface nosuch0
grep -q "nosuch0" /tmp/env_cli.$$ || { echo "FAIL: the error names the interface"; fails=$((fails + 1)); }
check "malformed address" 2 "$NETAB" env --addr not-an-address
check "stray argument" 2 "$NETAB" env extra
check "help" 0 "$NETAB" env --help
[ "$fails" = 0 ] && echo "env_cli: all checks passed"
exit $((fails > 0))
