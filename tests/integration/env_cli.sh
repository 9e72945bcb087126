#!/bin/bash
# netab env: the snapshot names this kernel and the interface asked for, and
# bad input (an unknown interface, an address no interface has, a stray
# argument) is a clear error with exit status 2.
set -u
. "$(dirname "$0")/lib.sh"
NETAB=${1:?usage: env_cli.sh NETAB}
need_exec "$NETAB"
need python3

check "lo by address" 0 "" "$NETAB" env --addr 127.0.0.1 --json
python3 - "$(uname -r)" "$nb_out" <<'PY' || fail "kernel and interface facts"
import json, sys
env = json.load(open(sys.argv[2]))["environment"]
assert env["kernel"] == sys.argv[1], (env["kernel"], sys.argv[1])
assert env["interface"]["name"] == "lo" and env["interface"]["mtu"] == 65536, env["interface"]
print("ok: kernel and interface facts")
PY
check "unknown interface" 2 "" "$NETAB" env --iface nosuch0
grep -q "nosuch0" "$nb_err" || fail "the error names the interface"
check "malformed address" 2 "" "$NETAB" env --addr not-an-address
check "stray argument" 2 "" "$NETAB" env extra
check "help" 0 "" "$NETAB" env --help
[ "$nb_fails" = 0 ] && echo "env_cli: all checks passed"
nb_finish
