#!/usr/bin/env python3
"""Request/response and connection rate on loopback.

tcp_rr: netab --test tcp_rr (64-byte request and response, one transaction in
flight) vs sockperf ping-pong (sockperf sr --tcp / sockperf pp --tcp -m 64).
sockperf reports half the round trip ("latency") unless --full-rtt is given;
this script passes --full-rtt so both tools are compared on the round trip,
and derives sockperf's transactions/s as 1e6 / avg round trip us (= 1e6 /
(2 x avg one-way latency)); the message count over its valid duration is
shown as a cross-check. Targets: netab tps >= sockperf's, netab p50 <= 1.05 x
sockperf's.

tcp_crr: netab --test tcp_crr vs bench/crr_bare (1-byte request and response,
connect/request/response/close): connections/s, target >= 0.9 x crr_bare.

Each round runs all four in a seeded random order.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

MSG = 64


def netab_rr(args):
    def go():
        out = B.run([args.netab, "run", "--test", "tcp_rr", "--req-size", str(MSG),
                     "--resp-size", str(MSG), "-t", "%g" % args.seconds, "--json", "-i", "0"],
                    args.seconds, args.raw)
        d = B.load_json(out, "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        lat = e["latency_us"]
        return {"tps": e["transactions_per_second"], "p50": lat["p50"], "p99": lat["p99"],
                "avg": lat["mean"]}
    return go


def parse_sockperf(text):
    """Returns avg, p50, p99 round trip (us) and the counted messages/s."""
    clean = re.sub(r"\x1b\[[0-9;]*m", "", text)
    m = re.search(r"avg-(rtt|latency)=([0-9.]+)", clean)
    if not m:
        raise B.ToolError("sockperf: no avg-rtt/avg-latency in output: %r" % clean.strip()[-300:])
    k = 1.0 if m.group(1) == "rtt" else 2.0  # "latency" is half a round trip
    pct = {}
    for p, v in re.findall(r"percentile\s+([0-9.]+)\s*=\s*([0-9.]+)", clean):
        pct[float(p)] = float(v) * k
    counted = None
    v = re.search(r"\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=(\d+); "
                  r"ReceivedMessages=(\d+)", clean)
    if v and float(v.group(1)) > 0:
        counted = int(v.group(3)) / float(v.group(1))
    avg = float(m.group(2)) * k
    return {"tps": 1e6 / avg if avg > 0 else None, "p50": pct.get(50.0), "p99": pct.get(99.0),
            "avg": avg, "counted_tps": counted}


def sockperf(args):
    def go():
        port = B.free_port()
        with B.Server(["sockperf", "sr", "--tcp", "-i", "127.0.0.1", "-p", str(port)], port,
                      args.raw) as srv:
            out = B.run(["sockperf", "pp", "--tcp", "-i", "127.0.0.1", "-p", str(port),
                         "-t", "%d" % max(1, round(args.seconds)), "-m", str(MSG), "--full-rtt"],
                        args.seconds, args.raw)
            srv.stop()
        return parse_sockperf(out)
    return go


def time_wait():
    """TIME_WAIT sockets on the host now (/proc/net/sockstat "tw")."""
    try:
        for line in open("/proc/net/sockstat"):
            if line.startswith("TCP:"):
                f = line.split()
                return int(f[f.index("tw") + 1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def settle(args):
    """Each crr run leaves ~rate x seconds TIME_WAIT sockets for 60 s, and
    they slow the next run's connect(); with --crr-settle S, waits (at most
    S seconds) until fewer than 1000 remain. Returns the count at the start."""
    deadline = time.monotonic() + args.crr_settle
    tw = time_wait()
    while tw is not None and tw >= 1000 and time.monotonic() < deadline:
        time.sleep(1.0)
        tw = time_wait()
    return tw


def netab_crr(args):
    def go():
        tw = settle(args)
        out = B.run([args.netab, "run", "--test", "tcp_crr", "-t", "%g" % args.seconds,
                     "--json", "-i", "0"], args.seconds, args.raw)
        d = B.load_json(out, "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        return {"cps": e["connections_per_second"], "failed": (e.get("errors") or {}).get("connect"),
                "p50": e["latency_us"]["p50"], "tw": tw}
    return go


def crr_bare(args):
    def go():
        tw = settle(args)
        out, err = B.run([args.crr_bare, "-t", "%g" % args.seconds], args.seconds, args.raw,
                         with_stderr=True)
        m = re.search(r"connections_per_second=([0-9.]+)", out)
        if not m:
            raise B.ToolError("crr_bare: cannot parse %r" % out.strip()[:200])
        f = re.search(r"(\d+) connections failed", err)
        return {"cps": float(m.group(1)), "failed": int(f.group(1)) if f else 0, "p50": None,
                "tw": tw}
    return go


def main():
    p = B.common_args(__doc__.splitlines()[0])
    p.add_argument("--crr-settle", type=float, default=0.0,
                   help="before each tcp_crr run, wait up to this many seconds for TIME_WAIT "
                        "sockets to drop below 1000 (default %(default)s; 65 lets them drain)")
    args = B.finish_args(p.parse_args())
    if not 0 <= args.crr_settle <= 300:
        sys.exit("--crr-settle must be 0..300")
    B.header(args, "rr: tcp_rr (%d B) vs sockperf ping-pong, tcp_crr vs crr_bare, loopback" % MSG)
    runners = [("netab tcp_rr", netab_rr(args)), ("sockperf pp", sockperf(args)),
               ("netab tcp_crr", netab_crr(args)), ("crr_bare", crr_bare(args))]

    def show(m):
        if "tps" in m:
            s = "%9.0f trans/s  p50 %.1f us  p99 %.1f us  avg %.1f us" % (
                m["tps"], m["p50"] or float("nan"), m["p99"] or float("nan"), m["avg"])
            if m.get("counted_tps"):
                s += "  (counted %.0f/s)" % m["counted_tps"]
            return s
        return "%9.0f conn/s  failed %s  (TIME_WAIT at start: %s)" % (m["cps"], m["failed"],
                                                                      m["tw"])

    res, errs = B.alternate(args, runners, show)
    med = lambda n, k: B.med(res, n, k)

    print("\ntcp_rr medians over %d rounds of %g s (round trip, us)" % (args.rounds, args.seconds))
    rows = [[n, str(len(res[n])), B.fmt(med(n, "tps")), B.fmt(med(n, "counted_tps")),
             B.fmt(med(n, "p50")), B.fmt(med(n, "p99")), B.fmt(med(n, "avg"))]
            for n in ("netab tcp_rr", "sockperf pp")]
    B.table(rows, ["tool", "runs", "trans/s", "counted/s", "p50 us", "p99 us", "avg us"])
    print("\ntcp_crr medians")
    rows = [[n, str(len(res[n])), B.fmt(med(n, "cps")), B.fmt(med(n, "failed")), B.fmt(med(n, "tw"))]
            for n in ("netab tcp_crr", "crr_bare")]
    B.table(rows, ["tool", "runs", "conn/s", "failed connects", "TIME_WAIT at start"])

    print("\nratios (medians):")
    B.target("netab / sockperf  tcp_rr trans/s",
             B.ratio(med("netab tcp_rr", "tps"), med("sockperf pp", "tps")), ">=", 1.0)
    B.target("netab / sockperf  tcp_rr p50 round trip",
             B.ratio(med("netab tcp_rr", "p50"), med("sockperf pp", "p50")), "<=", 1.05)
    B.target("netab / crr_bare  tcp_crr conn/s",
             B.ratio(med("netab tcp_crr", "cps"), med("crr_bare", "cps")), ">=", 0.9)
    B.report_errors(errs)


if __name__ == "__main__":
    main()
