#!/usr/bin/env python3
"""The cost of netab's counters: TCP loopback throughput with and without them.

Each round runs, in a seeded random order, `netab run -t SECONDS` with every
counter collected (per-CPU /proc/stat, kernel counter deltas, perf counters on
both ends: the default) and with NETAB_NO_COUNTERS=1 (none of them), pinned
-A 0,1 by default so the scheduler's placement does not dominate the
difference. Prints both medians, the median of the per-round ratios
(collected / not collected) and the cost in percent, against the target of
under 1% for a 10 s TCP test.

The collection itself happens only when the window opens and closes (a few
/proc reads and perf_event_open calls per end); netab reports the CPU time
its threads spent on it (end.perf.*.collection_us), which this script sets
against the test threads' own CPU time (task_clock). What can cost during
the test besides is the perf software counters, which the kernel updates on
every context switch of the counted threads: only the throughput
comparison sees that, and on a shared machine it is dominated by noise.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402


def netab(args, counters):
    def go():
        argv = [args.netab, "run", "-t", "%g" % args.seconds, "--json", "-i", "0"]
        if args.pin:
            argv += ["-A", args.pin]
        if not counters:
            argv = ["env", "NETAB_NO_COUNTERS=1"] + argv
        d = B.load_json(B.run(argv, args.seconds, args.raw), "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        has = e["perf"]["local"] is not None
        if has != counters:
            raise B.ToolError("netab: counters %s but perf.local is %s" %
                              ("on" if counters else "off", e["perf"]["local"]))
        # The process's own CPU time per KiB (getrusage, both ends in this process): less
        # sensitive to neighbours than throughput, and it includes the kernel's perf bookkeeping
        # at each context switch of the counted threads.
        m = {"gbps": e["receiver"]["bits_per_second"] / 1e9,
             "sd": e["service_demand"]["local_us_per_kib"],
             "proc_sd": e["cpu"]["local"]["process_us"] / (e["receiver"]["bytes"] / 1024)}
        if counters:
            # CPU time both ends' threads spent collecting, as netab measures it itself.
            m["collect_us"] = (e["perf"]["local"]["collection_us"] +
                               e["perf"]["remote"]["collection_us"])
            m["task_us"] = (e["perf"]["local"]["task_clock"] + e["perf"]["remote"]["task_clock"]) / 1e3
        return m
    return go


def main():
    p = B.common_args(__doc__.splitlines()[0], rounds=7, seconds=10.0)
    p.add_argument("--pin", default="0,1", help="-A for both (default %(default)s; '' = none)")
    args = B.finish_args(p.parse_args())
    B.header(args, "counters_cost: netab with and without counter collection, TCP loopback")
    runners = [("counters on", netab(args, True)), ("counters off", netab(args, False))]
    res, errs = B.alternate(args, runners,
                            lambda m: "%7.2f Gbit/s  %.3f us/KiB  process %.3f us/KiB" %
                            (m["gbps"], m["sd"], m["proc_sd"]))
    print("\nmedians over %d rounds of %g s (-A %s)" % (args.rounds, args.seconds, args.pin))
    rows = []
    for name, _ in runners:
        sp = B.spread(res, name, "gbps")
        rows.append([name, str(len(res[name])), B.fmt(B.med(res, name, "gbps")),
                     "%s..%s" % (B.fmt(sp[0]), B.fmt(sp[1])) if sp else "",
                     B.fmt(B.med(res, name, "sd")), B.fmt(B.med(res, name, "proc_sd"))])
    B.table(rows, ["netab", "runs", "Gbit/s", "range", "us/KiB", "process us/KiB"])
    # Rounds pair the two runs a few seconds apart: their ratio cancels slow drift.
    pairs = [a["gbps"] / b["gbps"] for a, b in zip(res["counters on"], res["counters off"])]
    if pairs:
        r = statistics.median(pairs)
        print("\nper-round ratios on/off: " + " ".join("%.3f" % x for x in pairs))
        B.target("counters on / off  (Gbit/s, median of per-round ratios)", r, ">=", 0.99)
        B.info("cost of collection, percent of throughput", 100 * (1 - r))
        pp = [a["proc_sd"] / b["proc_sd"]
              for a, b in zip(res["counters on"], res["counters off"])]
        q = statistics.median(pp)
        print("per-round ratios of process us/KiB on/off: " + " ".join("%.3f" % x for x in pp))
        B.target("counters on / off  (process CPU us/KiB, median of per-round ratios)", q, "<=",
                 1.01)
    cu, tu = B.med(res, "counters on", "collect_us"), B.med(res, "counters on", "task_us")
    if cu is not None and tu:
        B.info("collection CPU time, both ends, us per run (median)", cu)
        B.target("collection CPU time / the test threads' CPU time, percent", 100 * cu / tu, "<=",
                 1.0)
    B.report_errors(errs)


if __name__ == "__main__":
    main()
