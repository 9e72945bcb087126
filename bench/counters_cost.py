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
           sampled profile at 999 Hz in the test's scope, the default
           (netab's threads, and the softirq work and idle share of the
           test's CPUs; docs/profile.md);
  profile_system  --profile --profile-scope system (only when asked): every
           task on the test's CPUs, as perf record -a. Its ratio to off
           beside profile's is what each scope costs the test.
  tcpinfo  -i 0.1 (only when asked, with notcpinfo: --modes tcpinfo,notcpinfo):
           the congestion state per interval, TCP_INFO of each of the
           client's connections read by its control thread every 0.1 s;
  notcpinfo  the same -i 0.1 with NETAB_NO_TCPINFO=1: no reading. Its
           ratio tcpinfo/notcpinfo is the reading's cost (target >= 0.99).

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
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

TESTS = {
    "tcp_stream": ([], "gbps"),
    "tcp_rr": (["--test", "tcp_rr"], "tps"),
    "udp_stream": (["-u", "-b", "0", "-l", "1400"], "gbps"),
    "tcp_crr": (["--test", "tcp_crr"], "cps"),
}
MODES = ("default", "off", "perf", "profile", "profile_system", "tcpinfo", "notcpinfo")
# Each mode's baseline: the ratio printed and held to its target is mode/baseline.
BASE = {"default": "off", "perf": "off", "profile": "off", "profile_system": "off",
        "tcpinfo": "notcpinfo"}


def figure(e, key):
    if key == "gbps":
        return e["receiver"]["bits_per_second"] / 1e9
    if key == "tps":
        return e["transactions_per_second"]
    return e["connections_per_second"]


def runner(args, test, pin, mode):
    extra, key = TESTS[test]

    def go():
        ival = "0.1" if mode in ("tcpinfo", "notcpinfo") else "0"
        argv = [args.netab, "run", "-t", "%g" % args.seconds, "--json", "-i", ival] + extra
        if pin:
            argv += ["-A", pin]
        if mode == "perf":
            argv.append("--perf")
        if mode == "profile":
            argv.append("--profile")
        if mode == "profile_system":
            argv += ["--profile", "--profile-scope", "system"]
        if mode == "off":
            argv = ["env", "NETAB_NO_COUNTERS=1"] + argv
        if mode == "notcpinfo":
            argv = ["env", "NETAB_NO_TCPINFO=1"] + argv
        d = B.load_json(B.run(argv, args.seconds, args.raw), "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        if (e["perf"]["local"] is not None) != (mode != "off"):
            raise B.ToolError("netab: mode %s but perf.local is %s" % (mode, e["perf"]["local"]))
        if mode in ("tcpinfo", "notcpinfo") and test in ("tcp_stream", "tcp_rr"):
            read = all("tcp" in iv for iv in d["intervals"]) and d["intervals"]
            if bool(read) != (mode == "tcpinfo"):
                raise B.ToolError("netab: mode %s but intervals[].tcp %s" %
                                  (mode, "present" if read else "absent"))
        if mode.startswith("profile"):
            prof = e["profile"]["local"]
            want = "system" if mode == "profile_system" else "test"
            if prof.get("why") or prof.get("scope") != want:
                raise B.ToolError("netab: mode %s but the profile is %s" %
                                  (mode, prof.get("why") or prof.get("scope")))
        m = {"v": figure(e, key)}
        if mode != "off":
            m["collect_us"] = sum(e["perf"][s]["collection_us"] for s in ("local", "remote"))
            m["task_us"] = sum(e["perf"][s]["task_clock"] or 0 for s in ("local", "remote")) / 1e3
        return m
    return go


def tcpinfo_read_us(batches=5, calls=20000):
    """One getsockopt(TCP_INFO) on a connected loopback socket, in microseconds: the median
    batch's mean, Python's call overhead included (an upper bound on what netab's C pays)."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    c = socket.create_connection(lst.getsockname())
    a, _ = lst.accept()
    c.sendall(b"x" * 65536)
    a.recv(65536)
    per = []
    for _ in range(batches):
        t0 = time.thread_time_ns()
        for _ in range(calls):
            c.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
        per.append((time.thread_time_ns() - t0) / calls / 1e3)
    for x in (a, c, lst):
        x.close()
    return statistics.median(per)


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
    if any(m not in MODES for m in modes) or any(BASE[m] not in modes for m in modes if m in BASE):
        sys.exit("--modes must be among %s, each with its baseline (%s)" %
                 (", ".join(MODES), ", ".join("%s: %s" % kv for kv in BASE.items())))
    B.header(args, "counters_cost: netab's collection modes against their baselines (%s)" % ",".join(modes))
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
                if m not in BASE:
                    continue
                r = ratios(res, m, BASE[m])
                print("per-round ratios %s/%s: %s" % (m, BASE[m], " ".join("%.3f" % x for x in r)))
                row.append(B.fmt(statistics.median(r)) if r else "n/a")
                if m in ("default", "tcpinfo") and r:
                    B.target("%s %s: %s / %s (median of per-round ratios)" %
                             (test, where, m, BASE[m]), statistics.median(r), ">=", 0.99)
            cu = B.med(res, "default", "collect_us") if "default" in modes else None
            row.append(B.fmt(cu) if cu is not None else "")
            summary.append(row)
    print("\n# summary: median of per-round ratios to each mode's baseline (%d rounds of %g s)" %
          (args.rounds, args.seconds))
    B.table(summary, ["test", "placement"] + ["%s/%s" % (m, BASE[m]) for m in modes if m in BASE] +
            ["collection us/run"])
    if "tcpinfo" in modes:
        # The throughput ratio drowns in a shared machine's noise; the reading's CPU does not.
        us = tcpinfo_read_us()
        print("\nTCP_INFO read: %.2f us of CPU each (Python's getsockopt, an upper bound); "
              "-i 0.1 with 1 connection: %.4f%% of one CPU; --flows 1000 at -i 1: %.2f%%" %
              (us, 10 * us / 1e4, 1000 * us / 1e4))
    B.report_errors(all_errs)


if __name__ == "__main__":
    main()
