#!/usr/bin/env python3
"""TCP bulk throughput on loopback: netab vs bare, iperf3 and iperf2.

Each round runs, in a seeded random order: netab (1 stream), netab -P 2,
iperf3, iperf2, bare, bare -P 2 (and bare -f with --bare-f), each for --seconds. For every run it also
samples /proc/stat around the client and reports system-wide service demand
(busy CPU us per KiB received, netperf's definition), the same way for every
tool; netab's own end.service_demand.local_us_per_kib is shown next to it.
Prints medians and the ratios the throughput issue targets.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402


def measured(fn):
    """Wraps a run in /proc/stat samples; fn returns (rx_bytes, seconds, extra)."""
    before = B.cpu_ticks()
    rx, secs, extra = fn()
    after = B.cpu_ticks()
    m = {"gbps": rx * 8 / secs / 1e9 if secs > 0 else None,
         "sd": B.service_demand(before, after, rx)}
    m.update(extra)
    return m


def netab(args, parallel, pin=None):
    def go():
        argv = [args.netab, "run", "-t", "%g" % args.seconds, "--json", "-i", "0"]
        if pin:
            argv += ["-A", pin]
        if parallel > 1:
            argv += ["-P", str(parallel)]
        d = B.load_json(B.run(argv, args.seconds, args.raw), "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        rx = e["receiver"]["bytes"]
        sd = (e.get("service_demand") or {}).get("local_us_per_kib")
        return rx, e["receiver"]["seconds"], {"own_sd": sd}
    return lambda: measured(go)


def iperf3(args, pin=None):
    def go():
        port = B.free_port()
        with B.Server(["iperf3", "-s", "-1", "-p", str(port)], port, args.raw) as srv:
            # Sample CPU around the client only (server idle until then).
            before = B.cpu_ticks()
            out = B.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "%g" % args.seconds,
                         "-J"] + (["-A", pin] if pin else []), args.seconds, args.raw)
            after = B.cpu_ticks()
            srv.stop(grace=2.0)
        d = B.load_json(out, "iperf3")
        if d.get("error"):
            raise B.ToolError("iperf3: %s" % d["error"])
        r = d["end"]["sum_received"]
        return r["bytes"], r["seconds"], before, after
    def wrapped():
        rx, secs, before, after = go()
        return {"gbps": rx * 8 / secs / 1e9, "sd": B.service_demand(before, after, rx)}
    return wrapped


def iperf2(args):
    def wrapped():
        port = B.free_port()
        with B.Server(["iperf", "-s", "-p", str(port), "-y", "C"], port, args.raw) as srv:
            before = B.cpu_ticks()
            cli = B.run(["iperf", "-c", "127.0.0.1", "-p", str(port), "-t", "%g" % args.seconds,
                         "-y", "C"], args.seconds, args.raw)
            after = B.cpu_ticks()
            # The server prints its CSV line when the connection ends.
            srv_out = ""
            for _ in range(40):
                srv_out = srv.output()
                if srv_out.strip():
                    break
                time.sleep(0.05)
            srv.stop()
        rx, secs = parse_iperf2_csv(srv_out)
        if rx is None:  # fall back to the client's (sender) count
            rx, secs = parse_iperf2_csv(cli)
            if rx is None:
                raise B.ToolError("iperf2: no CSV report")
        return {"gbps": rx * 8 / secs / 1e9, "sd": B.service_demand(before, after, rx)}
    return wrapped


def parse_iperf2_csv(text):
    """iperf2 -y C: time,src,sport,dst,dport,id,start-end,bytes,bits_per_second."""
    for line in text.splitlines():
        f = line.strip().split(",")
        if len(f) >= 9 and "-" in f[6]:
            try:
                a, b = f[6].split("-")
                return int(f[7]), float(b) - float(a)
            except ValueError:
                continue
    return None, None


def bare(args, pairs, fill=False):
    def go():
        out = B.run([args.bare, "-t", "%g" % args.seconds, "-P", str(pairs)] +
                    (["-f"] if fill else []), args.seconds, args.raw)
        kv = dict(tok.split("=", 1) for tok in out.split() if "=" in tok)
        try:
            return int(kv["bytes"]), float(kv["seconds"]), {}
        except (KeyError, ValueError):
            raise B.ToolError("bare: cannot parse %r" % out.strip()[:200])
    return lambda: measured(go)


def main():
    p = B.common_args(__doc__.splitlines()[0])
    p.add_argument("--pinned", action="store_true",
                   help="also run netab and iperf3 pinned: sender CPU 0, receiver CPU 1")
    p.add_argument("--bare-f", action="store_true",
                   help="also run bare -f, which sends from a written buffer as netab does "
                        "(plain bare sends from never-written calloc pages: the zero page)")
    args = B.finish_args(p.parse_args())
    B.header(args, "tcp_stream: TCP throughput, loopback")
    runners = [("netab", netab(args, 1)), ("netab -P 2", netab(args, 2)),
               ("iperf3", iperf3(args)), ("iperf2", iperf2(args)),
               ("bare", bare(args, 1)), ("bare -P 2", bare(args, 2))]
    if args.pinned:
        # Sender on CPU 0, receiver on CPU 1 for both tools: takes the scheduler's placement
        # (which makes unpinned single-stream runs bimodal on small VMs) out of the comparison.
        runners += [("netab -A 0,1", netab(args, 1, "0,1")), ("iperf3 -A 0,1", iperf3(args, "0,1"))]
    if args.bare_f:
        runners.append(("bare -f", bare(args, 1, fill=True)))

    def show(m):
        s = "%7.2f Gbit/s  %.3f us/KiB" % (m["gbps"], m["sd"] or float("nan"))
        if m.get("own_sd") is not None:
            s += "  (netab's own %.3f)" % m["own_sd"]
        return s

    res, errs = B.alternate(args, runners, show)

    print("\nmedians over %d rounds of %g s (min..max in brackets)" % (args.rounds, args.seconds))
    rows = []
    for name, _ in runners:
        g, sp = B.med(res, name, "gbps"), B.spread(res, name, "gbps")
        rows.append([name, str(len(res[name])), B.fmt(g),
                     "%s..%s" % (B.fmt(sp[0]), B.fmt(sp[1])) if sp else "",
                     B.fmt(B.med(res, name, "sd")), B.fmt(B.med(res, name, "own_sd"))])
    B.table(rows, ["tool", "runs", "Gbit/s", "range", "us/KiB (/proc/stat)", "us/KiB (netab's own)"])

    g = lambda n: B.med(res, n, "gbps")
    sd = lambda n: B.med(res, n, "sd")
    print("\nratios (medians):")
    B.target("netab / bare  (Gbit/s)", B.ratio(g("netab"), g("bare")), ">=", 0.97)
    B.target("netab / iperf3  (Gbit/s)", B.ratio(g("netab"), g("iperf3")), ">=", 1.2)
    B.target("netab -P 2 / bare -P 2  (Gbit/s)", B.ratio(g("netab -P 2"), g("bare -P 2")), ">=", 0.95)
    B.target("netab / iperf3  (service demand, us/KiB)", B.ratio(sd("netab"), sd("iperf3")), "<=", 1.0)
    B.info("netab / iperf2  (Gbit/s)", B.ratio(g("netab"), g("iperf2")))
    if args.bare_f:
        B.info("netab / bare -f  (Gbit/s)", B.ratio(g("netab"), g("bare -f")))
        B.info("bare -f / bare  (Gbit/s)", B.ratio(g("bare -f"), g("bare")))
    if args.pinned:
        B.info("netab -A 0,1 / iperf3 -A 0,1  (Gbit/s)",
               B.ratio(g("netab -A 0,1"), g("iperf3 -A 0,1")))
        B.info("netab -A 0,1 / iperf3 -A 0,1  (service demand)",
               B.ratio(sd("netab -A 0,1"), sd("iperf3 -A 0,1")))
    B.report_errors(errs)


if __name__ == "__main__":
    main()
