#!/usr/bin/env python3
"""netab's iperf3 client against iperf3's own, both driving one `iperf3 -s` on loopback.

Issue 30 puts the iperf3 client's control loop on the event loop (no 5 ms tick);
it asks that `netab run --iperf3 -c` stay at >= 0.97 x iperf3's own client and
that the receiver's bytes still equal the iperf3 server's. Each round runs, in a
seeded random order: `netab run -c 127.0.0.1 --iperf3` and `iperf3 -c`, each
against a fresh `iperf3 -s -1 -J`, for --seconds, TCP (1 stream) and, with --reverse,
-R as well. The figure is what the iperf3 server received (its own JSON), so both
clients are measured by the same program; netab's receiver bytes must equal it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402


def server_received(text):
    """The iperf3 server's sum_received bytes and seconds, from its -J document."""
    d = B.load_json(text, "iperf3 -s")
    if d.get("error"):
        raise B.ToolError("iperf3 -s: %s" % d["error"])
    r = d["end"]["sum_received"]
    return r["bytes"], r["seconds"]


def client(args, tool, reverse):
    def go():
        port = B.free_port()
        with B.Server(["iperf3", "-s", "-1", "-J", "-p", str(port)], port, args.raw) as srv:
            if tool == "netab":
                argv = [args.netab, "run", "-c", "127.0.0.1", "-p", str(port), "--iperf3",
                        "-t", "%g" % args.seconds, "--json", "-i", "0"]
            else:
                argv = ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "%g" % args.seconds,
                        "-J"]
            out = B.run(argv + (["-R"] if reverse else []), args.seconds, args.raw)
            srv_out = srv.stop(grace=3.0)
        m = {}
        if not reverse:
            rx, secs = server_received(srv_out)
            m["gbps"] = rx * 8 / secs / 1e9
        if tool == "netab":
            d = B.load_json(out, "netab")
            if d.get("error"):
                raise B.ToolError("netab: %s" % d["error"])
            own = d["end"]["receiver"]["bytes"]
            if reverse:
                m["gbps"] = own * 8 / d["end"]["receiver"]["seconds"] / 1e9
            elif own != rx:
                raise B.ToolError("netab's receiver counted %d bytes, iperf3 -s %d" % (own, rx))
        elif reverse:
            d = B.load_json(out, "iperf3")
            r = d["end"]["sum_received"]
            m["gbps"] = r["bytes"] * 8 / r["seconds"] / 1e9
        return m
    return go


def main():
    p = B.common_args(__doc__.splitlines()[0])
    p.add_argument("--reverse", action="store_true", help="also -R (the server sends)")
    args = B.finish_args(p.parse_args())
    B.header(args, "iperf3 client: netab --iperf3 vs iperf3 -c, against iperf3 -s, loopback")
    runners = [("netab --iperf3", client(args, "netab", False)),
               ("iperf3 -c", client(args, "iperf3", False))]
    if args.reverse:
        runners += [("netab --iperf3 -R", client(args, "netab", True)),
                    ("iperf3 -c -R", client(args, "iperf3", True))]
    res, errs = B.alternate(args, runners, lambda m: "%7.2f Gbit/s" % m["gbps"])
    print("\nmedians over %d rounds of %g s (min..max in brackets)" % (args.rounds, args.seconds))
    rows = []
    for name, _ in runners:
        sp = B.spread(res, name, "gbps")
        rows.append([name, str(len(res[name])), B.fmt(B.med(res, name, "gbps")),
                     "%s..%s" % (B.fmt(sp[0]), B.fmt(sp[1])) if sp else ""])
    B.table(rows, ["client", "runs", "Gbit/s", "range"])
    g = lambda n: B.med(res, n, "gbps")  # noqa: E731
    print("\nratios (medians):")
    B.target("netab --iperf3 / iperf3 -c  (Gbit/s)", B.ratio(g("netab --iperf3"), g("iperf3 -c")),
             ">=", 0.97)
    if args.reverse:
        B.target("netab --iperf3 -R / iperf3 -c -R  (Gbit/s)",
                 B.ratio(g("netab --iperf3 -R"), g("iperf3 -c -R")), ">=", 0.97)
    B.report_errors(errs)


if __name__ == "__main__":
    main()
