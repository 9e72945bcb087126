#!/usr/bin/env python3
"""UDP as fast as possible on loopback: netab vs iperf3 vs a bare loop.

One stream, -b 0 (no pacing), for each datagram size in --sizes (default
1400 and 64 bytes). Each round runs every (tool, size) once in a seeded random
order: netab, iperf3, and bench/udp_bare (sendmmsg/recvmmsg batches of 64, the
ceiling). Reports the receiver's goodput and datagrams/s (received bytes /
datagram size, so lost datagrams never count), loss, and the ratios
netab/iperf3 (target >= 2) and netab/bare (target >= 0.95). With --bare-T,
also udp_bare -T, whose receiver takes each datagram's kernel arrival time
and source address as netab's must (for jitter and to count foreign
datagrams): bare -T / bare is the kernel's share of the cost of measuring.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

TARGET = 2.0


def metrics(rx_bytes, secs, size, sent_pkts, before, after):
    pkts = rx_bytes / size
    return {"mbps": rx_bytes * 8 / secs / 1e6, "pps": pkts / secs,
            "loss": 100.0 * (1 - pkts / sent_pkts) if sent_pkts else None,
            "sd": B.service_demand(before, after, rx_bytes)}


def netab(args, size, offload=False):
    def go():
        argv = [args.netab, "run", "-u", "-b", "0", "-l", str(size), "-t", "%g" % args.seconds,
                "--json", "-i", "0"] + (["--gso", "--gro"] if offload else [])
        before = B.cpu_ticks()
        out = B.run(argv, args.seconds, args.raw)
        after = B.cpu_ticks()
        d = B.load_json(out, "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        return metrics(e["receiver"]["bytes"], e["receiver"]["seconds"], size,
                       e["sender"].get("packets"), before, after)
    return go


def iperf3(args, size):
    def go():
        port = B.free_port()
        with B.Server(["iperf3", "-s", "-1", "-p", str(port)], port, args.raw) as srv:
            before = B.cpu_ticks()
            out = B.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-u", "-b", "0",
                         "-l", str(size), "-t", "%g" % args.seconds, "-J"], args.seconds, args.raw)
            after = B.cpu_ticks()
            srv.stop(grace=2.0)
        d = B.load_json(out, "iperf3")
        if d.get("error"):
            raise B.ToolError("iperf3: %s" % d["error"])
        e = d["end"]
        r = e.get("sum_received") or e["sum"]
        s = e.get("sum_sent") or e["sum"]
        return metrics(r["bytes"], r["seconds"], size, s.get("packets"), before, after)
    return go


def bare(args, size, measured=False):
    def go():
        before = B.cpu_ticks()
        out = B.run([args.udp_bare, "-t", "%g" % args.seconds, "-l", str(size)] +
                    (["-T"] if measured else []), args.seconds, args.raw)
        after = B.cpu_ticks()
        f = dict(kv.split("=") for kv in out.split()[1:])
        return metrics(int(f["bytes"]), float(f["seconds"]), size, int(f["sent"]), before, after)
    return go


def main():
    p = B.common_args(__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1400,64", help="datagram sizes (default %(default)s)")
    p.add_argument("--bare-T", action="store_true",
                   help="also run udp_bare -T (the kernel's arrival times and source addresses "
                        "that netab's receiver needs), to show the kernel's share of the gap")
    args = B.finish_args(p.parse_args())
    args.udp_bare = os.path.join(args.build, "bench", "udp_bare")
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    if any(not 24 <= s <= 65507 for s in sizes):
        sys.exit("sizes must be 24..65507 (netab needs >= 24 bytes for its header)")
    B.header(args, "udp_stream: UDP -b 0, loopback, sizes %s" % args.sizes)
    runners = []
    for s in sizes:
        runners += [("netab %d" % s, netab(args, s)), ("iperf3 %d" % s, iperf3(args, s)),
                    ("bare %d" % s, bare(args, s))]
        if args.bare_T:
            runners.append(("bare -T %d" % s, bare(args, s, measured=True)))
        if s >= 1000:
            # Segmentation offloads (UDP_SEGMENT / UDP_GRO): shown, not part of the target.
            runners.append(("netab gso %d" % s, netab(args, s, offload=True)))

    def show(m):
        return "%9.1f Mbit/s  %10.0f pkt/s  loss %5.2f%%  %.2f us/KiB" % (
            m["mbps"], m["pps"], m["loss"] if m["loss"] is not None else float("nan"),
            m["sd"] or float("nan"))

    res, errs = B.alternate(args, runners, show)

    print("\nmedians over %d rounds of %g s (receiver side)" % (args.rounds, args.seconds))
    rows = []
    for name, _ in runners:
        rows.append([name, str(len(res[name])), B.fmt(B.med(res, name, "mbps")),
                     B.fmt(B.med(res, name, "pps")), B.fmt(B.med(res, name, "loss")),
                     B.fmt(B.med(res, name, "sd"))])
    B.table(rows, ["tool size", "runs", "goodput Mbit/s", "datagrams/s", "loss %",
                   "us/KiB (/proc/stat)"])
    print("\nratios (medians):")
    for s in sizes:
        for key, what in (("mbps", "goodput"), ("pps", "datagrams/s")):
            B.target("netab / iperf3  %d B  %s" % (s, what),
                     B.ratio(B.med(res, "netab %d" % s, key), B.med(res, "iperf3 %d" % s, key)),
                     ">=", TARGET)
            B.target("netab / bare  %d B  %s" % (s, what),
                     B.ratio(B.med(res, "netab %d" % s, key), B.med(res, "bare %d" % s, key)),
                     ">=", 0.95)
    for s in sizes:
        if ("bare -T %d" % s) in res:
            print("  bare -T / bare  %d B  datagrams/s  %s   (no target: the kernel's cost of "
                  "measuring)" % (s, B.fmt(B.ratio(B.med(res, "bare -T %d" % s, "pps"),
                                                   B.med(res, "bare %d" % s, "pps")))))
            print("  netab / bare -T  %d B  datagrams/s  %s   (no target)" % (
                s, B.fmt(B.ratio(B.med(res, "netab %d" % s, "pps"),
                                 B.med(res, "bare -T %d" % s, "pps")))))
    for s in sizes:
        if ("netab gso %d" % s) in res:
            print("  netab --gso --gro / iperf3  %d B  goodput      %s   (no target)" % (
                s, B.fmt(B.ratio(B.med(res, "netab gso %d" % s, "mbps"),
                                 B.med(res, "iperf3 %d" % s, "mbps")))))
    B.report_errors(errs)


if __name__ == "__main__":
    main()
