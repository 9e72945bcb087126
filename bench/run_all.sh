#!/bin/bash
# Runs every netab figure (tcp_stream, udp_stream, rr, flows) with their defaults,
# one after another, and keeps the printed tables and every tool's raw output
# under bench/out/<timestamp>/ (gitignored).
#
#   bench/run_all.sh [BUILD_DIR] [extra args for every script, e.g. -r 3 -t 2 --seed 7]
#
# BUILD_DIR defaults to build-b (meson setup build-b && ninja -C build-b).
# Run it on a quiet machine: the figures compare tools run side by side, but a
# busy host still adds noise, and /proc/stat service demand counts every
# process on the host.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-b}
[ $# -gt 0 ] && shift
case $build in /*) ;; *) build=$PWD/$build ;; esac
for b in "$build/netab" "$build/bench/bare" "$build/bench/crr_bare" "$build/bench/flows_bare"; do
    [ -x "$b" ] || { echo "run_all: $b missing; build first: meson setup build-b && ninja -C build-b" >&2; exit 2; }
done
out=$here/out/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "run_all: writing to $out"
{
    echo "date: $(date -Is)"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "kernel: $(uname -r)"
    echo "netab: $(git -C "$root" rev-parse --short HEAD 2>/dev/null) $("$build/netab" --version 2>/dev/null | head -1)"
    echo "iperf3: $(iperf3 --version 2>&1 | head -1)"
    echo "iperf2: $(iperf -v 2>&1 | head -1)"
    echo "sockperf: $(sockperf --version 2>&1 | head -1)"
    echo "loadavg: $(cat /proc/loadavg)"
} > "$out/machine.txt"
cat "$out/machine.txt"
status=0
for s in tcp_stream udp_stream rr flows iperf3_client; do
    echo
    echo "=== $s"
    # Each script bounds itself (every child has a timeout); this is a last resort.
    timeout 3600 python3 "$here/$s.py" --build "$build" --raw "$out/$s.raw.txt" "$@" \
        2>&1 | tee "$out/$s.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || { echo "run_all: $s exited $rc" >&2; status=1; }
done
echo
echo "run_all: results in $out"
exit $status
