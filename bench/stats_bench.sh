#!/bin/bash
# Times `netab stats` on two seeded files of 1,000,000 numbers each.
# Usage: bench/stats_bench.sh [PATH/TO/netab] [RUNS]
# Prints each run's wall time, the median, and the resample counts netab used.
set -eu
netab=${1:-build-stats/netab}
runs=${2:-7}
out=${TMPDIR:-/tmp}/netab-stats-bench
mkdir -p "$out"
# awk's srand/rand is seeded, so the files are the same on every run; the
# Box-Muller transform gives normal values (mean 940, sd 12 and 939, sd 12).
gen() {
    awk -v seed="$1" -v mu="$2" 'BEGIN { srand(seed); pi = atan2(0, -1);
        for (i = 0; i < 1000000; i++) {
            u = rand(); v = rand(); if (u < 1e-12) u = 1e-12;
            printf "%.4f\n", mu + 12 * sqrt(-2 * log(u)) * cos(2 * pi * v) } }' >"$3"
}
[ -s "$out/a.txt" ] || gen 1 940 "$out/a.txt"
[ -s "$out/b.txt" ] || gen 2 939 "$out/b.txt"
times=()
for i in $(seq "$runs"); do
    s=$(date +%s.%N)
    "$netab" stats --no-plot "$out/a.txt" "$out/b.txt" >"$out/report.txt"
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    times+=("$t")
    printf 'run %d: %.3f s\n' "$i" "$t"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
    print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
printf 'median of %d runs: %.3f s for 2 x 1,000,000 values\n' "$runs" "$median"
"$netab" stats --json "$out/a.txt" "$out/b.txt" | grep -E '"(median_resamples|ratio_resamples|ratio_method)"' |
    sort | uniq -c | sed 's/^/resamples used: /'
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
