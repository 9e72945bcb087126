#!/usr/bin/env python3
"""The cost of netab's counters in every test type, pinned and unpinned.

For each test type (tcp_stream; tcp_rr; udp_stream `-u -b 0 -l 1400`;
tcp_crr) and each placement (unpinned; `-A 0,1`), every round runs, in a
seeded random order, three modes of the same `netab run -t SECONDS`:

  default  what every run collects: per-CPU /proc/stat, kernel counter
           deltas, each end's threads' CPU time, context switches,
           migrations and page faults from /proc (no perf event);
  off      NETAB_NO_COUNTERS=1: none of it;
  perf     --perf: perf events as well (unpinned: on both ends' threads,
           with inherit; pinned: system-wide on the pinned CPUs);
  profile  --profile (only when asked: --modes default,off,profile): a
           sampled profile of the test's CPUs at 999 Hz (docs/profile.md).

It prints the median of the per-round ratios default/off and perf/off of
the test's own figure (Gbit/s, transactions/s, connections/s), which
cancels slow drift between rounds, against the target: default/off >= 0.99
in every test type and placement. What --perf costs is printed beside it.

netab's `end.perf.*.collection_us` is the collecting thread's own CPU time
at the window's opening and closing; it does not count what an attached
perf event costs the test threads at each context switch, which only the
throughput ratio sees.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

TESTS = {
    "tcp_stream": ([], "gbps"),
    "tcp_rr": (["--test", "tcp_rr"], "tps"),
    "udp_stream": (["-u", "-b", "0", "-l", "1400"], "gbps"),
    "tcp_crr": (["--test", "tcp_crr"], "cps"),
}
MODES = ("default", "off", "perf", "profile")


def figure(e, key):
    if key == "gbps":
        return e["receiver"]["bits_per_second"] / 1e9
    if key == "tps":
        return e["transactions_per_second"]
    return e["connections_per_second"]


def runner(args, test, pin, mode):
    extra, key = TESTS[test]

    def go():
        argv = [args.netab, "run", "-t", "%g" % args.seconds, "--json", "-i", "0"] + extra
        if pin:
            argv += ["-A", pin]
        if mode == "perf":
            argv.append("--perf")
        if mode == "profile":
            argv.append("--profile")
        if mode == "off":
            argv = ["env", "NETAB_NO_COUNTERS=1"] + argv
        d = B.load_json(B.run(argv, args.seconds, args.raw), "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        if (e["perf"]["local"] is not None) != (mode != "off"):
            raise B.ToolError("netab: mode %s but perf.local is %s" % (mode, e["perf"]["local"]))
        m = {"v": figure(e, key)}
        if mode != "off":
            m["collect_us"] = sum(e["perf"][s]["collection_us"] for s in ("local", "remote"))
            m["task_us"] = sum(e["perf"][s]["task_clock"] or 0 for s in ("local", "remote")) / 1e3
        return m
    return go


def ratios(res, a, b):
    return [x["v"] / y["v"] for x, y in zip(res[a], res[b]) if y["v"]]


def main():
    p = B.common_args(__doc__.splitlines()[0], rounds=8, seconds=2.0)
    p.add_argument("--tests", default=",".join(TESTS),
                   help="comma-separated test types (default %(default)s)")
    p.add_argument("--pins", default="none;0,1",
                   help="placements: 'none' or an -A value, separated by ';' "
                        "(default %(default)s)")
    p.add_argument("--modes", default="default,off,perf",
                   help="among %s (default %%(default)s)" % ",".join(MODES))
    args = B.finish_args(p.parse_args())
    tests = [t for t in args.tests.split(",") if t]
    for t in tests:
        if t not in TESTS:
            sys.exit("unknown test %r (known: %s)" % (t, ", ".join(TESTS)))
    pins = ["" if x == "none" else x for x in args.pins.split(";")]
    modes = [m for m in args.modes.split(",") if m]
    if "off" not in modes or any(m not in MODES for m in modes):
        sys.exit("--modes must include off and be among %s" % ", ".join(MODES))
    B.header(args, "counters_cost: netab default, no counters and --perf, every test type")
    summary, all_errs = [], {}
    for test in tests:
        for pin in pins:
            where = "-A %s" % pin if pin else "unpinned"
            print("\n## %s, %s" % (test, where))
            runners = [(m, runner(args, test, pin, m)) for m in modes]
            res, errs = B.alternate(args, runners, lambda m: "%.4g" % m["v"])
            all_errs.update({"%s %s %s" % (test, where, k): v for k, v in errs.items()})
            row = [test, where]
            for m in modes:
                if m == "off":
                    continue
                r = ratios(res, m, "off")
                print("per-round ratios %s/off: %s" % (m, " ".join("%.3f" % x for x in r)))
                row.append(B.fmt(statistics.median(r)) if r else "n/a")
                if m == "default" and r:
                    B.target("%s %s: default / off (median of per-round ratios)" % (test, where),
                             statistics.median(r), ">=", 0.99)
            cu = B.med(res, "default", "collect_us") if "default" in modes else None
            row.append(B.fmt(cu) if cu is not None else "")
            summary.append(row)
    print("\n# summary: median of per-round ratios to 'off' (%d rounds of %g s)" %
          (args.rounds, args.seconds))
    B.table(summary, ["test", "placement"] + ["%s/off" % m for m in modes if m != "off"] +
            ["collection us/run"])
    B.report_errors(all_errs)


if __name__ == "__main__":
    main()
