#!/bin/bash
# End-to-end checks of `netab experiment validate`: exit codes, the summary of
# a valid file and FILE:LINE:COL messages for broken ones.
# Usage: experiment_validate.sh PATH/TO/netab
set -u
. "$(dirname "$0")/lib.sh"
netab=${1:?usage: experiment_validate.sh NETAB}
root=$(cd "$(dirname "$0")/../.." && pwd)
data=$root/tests/unit/experiment/data
need_exec "$netab"
tmp=$nb_tmp
cd "$data" || exit 1
check "shipped example is valid" 0 "runs:         10 = (4 runs + 1 warm-up) x 2 variants x 1 cells" \
    "$netab" experiment validate "$root/examples/block-size.yaml"
check "shipped DUT example is valid" 0 "runs:         62 = (30 runs + 1 warm-up) x 2 variants x 1 cells" \
    "$netab" experiment validate "$root/examples/router-kernels.yaml"
check "shipped DUT example names its DUT" 0 "dut:          root@198.18.1.1 over ssh" \
    "$netab" experiment validate "$root/examples/router-kernels.yaml"
check "shipped several-DUTs example is valid" 0 "runs:         66 = (10 runs + 1 warm-up) x 2 variants x 3 cells" \
    "$netab" experiment validate "$root/examples/three-machines.yaml"
check "several DUTs are named" 0 "duts:         3 (486 = root@198.18.1.2, p3 = root@198.18.2.2, pe = root@198.18.3.2)" \
    "$netab" experiment validate "$root/examples/three-machines.yaml"
# 66 runs of 22 s on 3 DUTs in parallel: the longest DUT's 22 runs, 8m 04s.
check "parallel DUTs: the longest DUT's duration" 0 "duration:     at least 8m 04s" \
    "$netab" experiment validate "$root/examples/three-machines.yaml"
check "unknown DUT" 2 "bad_duts.yaml:16:10: variant 'a': unknown DUT 'p4' (the experiment's DUTs: p3, pe)" \
    "$netab" experiment validate bad_duts.yaml
check "dut and duts" 2 "bad_duts.yaml:4:3: the experiment has both 'dut' (line 2) and 'duts'" \
    "$netab" experiment validate bad_duts.yaml
# validate also checks this machine (experiment_preflight.py tests that); full.yaml's CPU
# settings depend on the machine, so the summary is checked on a copy without them.
sed '/^ *cpus:/d; /^ *max_freq_mhz:/d' full.yaml >"$tmp/full.yaml"
check "full example names its variants" 0 "variants:     2 (big, small)" \
    "$netab" experiment validate "$tmp/full.yaml"
check "full example counts cells" 0 "matrix cells: 4 (streams[2] x test[2])" \
    "$netab" experiment validate "$tmp/full.yaml"
check "full example plans runs" 0 "runs:         48 =" "$netab" experiment validate "$tmp/full.yaml"
check "unknown key with suggestion" 2 \
    "bad_top.yaml:3:1: unknown key 'rnus' in experiment (did you mean 'runs'?)" \
    "$netab" experiment validate bad_top.yaml
check "duplicate key" 2 "bad_top.yaml:4:1: duplicate key 'runs'" \
    "$netab" experiment validate bad_top.yaml
check "type error" 2 "bad_types.yaml:2:7: 'runs' must be an integer, not the string 'five'" \
    "$netab" experiment validate bad_types.yaml
check "every error is reported" 2 "bad_types.yaml:7:8: 'reset' must be" \
    "$netab" experiment validate bad_types.yaml
check "matrix error" 2 "bad_matrix.yaml:6:11: matrix axis 'length' is empty" \
    "$netab" experiment validate bad_matrix.yaml
check "syntax error" 2 "bad_syntax.yaml:4:2: YAML syntax error" \
    "$netab" experiment validate bad_syntax.yaml
check "missing file" 2 "nope.yaml: cannot open: No such file or directory" \
    "$netab" experiment validate nope.yaml
: >"$tmp/empty.yaml"
check "empty file" 2 "empty.yaml:1:1: the file is empty" "$netab" experiment validate "$tmp/empty.yaml"
head -c 4096 /dev/urandom >"$tmp/garbage.yaml"
check "binary garbage" 2 "garbage.yaml:" "$netab" experiment validate "$tmp/garbage.yaml"
# A variant whose opts would make every one of its runs fail is refused before anything runs.
bad_opts() { # variant opts -> a file in $tmp
    printf 'name: opts\nvariants:\n  - name: fine\n  - name: broken\n    opts: "%s"\n' "$1" \
        >"$tmp/opts.yaml"
}
bad_opts "-P 100000"
check "variant opts out of range" 2 "opts.yaml:4:5: variant 'broken': -P: '100000' is out of range" \
    "$netab" experiment validate "$tmp/opts.yaml"
bad_opts "--bogus"
check "variant opts unknown option" 2 "opts.yaml:4:5: variant 'broken': unknown option '--bogus'" \
    "$netab" experiment validate "$tmp/opts.yaml"
bad_opts "--time=abc"
check "variant opts bad value" 2 "variant 'broken': -t: " "$netab" experiment validate "$tmp/opts.yaml"
printf 'name: cells\ntest:\n  nodelay: true\nvariants:\n  - name: v\nmatrix:\n  test: [tcp_stream, udp_stream]\n' \
    >"$tmp/cells.yaml"
check "a variant invalid in one cell names the cell" 2 \
    "variant 'v' in cell test=udp_stream: -M, -N and -C apply to TCP tests" \
    "$netab" experiment validate "$tmp/cells.yaml"
# flows: and threads: (issue 30) are keys and axes checked as netab run checks --flows/--threads.
flows() { # test: mapping lines, matrix line -> $tmp/flows.yaml
    printf 'name: flows\ntest:\n  test: tcp_rr\n%s\nvariants:\n  - name: v\nmatrix:\n  %s\n' \
        "$1" "$2" >"$tmp/flows.yaml"
}
flows "  threads: 2" "flows: [1, 100, 1000]"
check "flows axis with threads" 0 "matrix cells: 3 (flows[3])" \
    "$netab" experiment validate "$tmp/flows.yaml"
flows "  threads: 0" "flows: [1, 100]"
check "threads out of range" 2 "flows.yaml:4:12: test: 'threads': '0' is out of range" \
    "$netab" experiment validate "$tmp/flows.yaml"
flows "  time: 1" "flows: [1, 100001]"
check "flows out of range" 2 "flows.yaml:8:14: matrix: 'flows': '100001' is out of range" \
    "$netab" experiment validate "$tmp/flows.yaml"
flows "  streams: 2" "flows: [10]"
check "flows with streams" 2 "variant 'v' in cell flows=10: -P and --flows cannot be combined" \
    "$netab" experiment validate "$tmp/flows.yaml"
flows "  threads: 2" "streams: [1, 2]"
check "threads without flows" 2 "variant 'v' in cell streams=1: --threads applies only with --flows" \
    "$netab" experiment validate "$tmp/flows.yaml"
check "unknown verb" 2 "unknown verb 'frobnicate'" "$netab" experiment frobnicate
check "no verb" 2 "usage: netab experiment" "$netab" experiment
check "validate needs a file" 2 "validate takes exactly one FILE" "$netab" experiment validate
check "help" 0 "validate FILE" "$netab" experiment --help
check "listed in netab --help" 0 "experiment" "$netab" --help
[ "$nb_fails" -eq 0 ] && echo "all experiment validate checks passed"
nb_finish
