#!/usr/bin/env python3
"""netab rrul's idle probe round trip beside irtt's (and ping's), on one namespace path.

The path of tests/integration/rrul_netns.py: client, router and server
namespaces, the router forwarding (no bottleneck: the idle phase has no
load, so nothing queues). irtt (Debian's isochronous round-trip tester, the
open-loop kind of probe netab's rrul sends) runs `irtt client -i 1/RATE -d
SECONDS` against an `irtt server` in the server namespace; netab runs
`netab run -c SERVER --test rrul --probe-rate RATE -t 1 --load-flows 1
--json` against a `netab server` there and its figure is end.rrul.idle
(docs/json.md, "rrul"): p50, p99 and mean round trip, µs. ping -i 0.01
gives the kernel's own round trip on the same path. Each round runs the
three in a seeded random order; the ratios are of the medians over the
rounds. irtt's round trip leaves out the server's processing time (it
timestamps receive and send); netab's and ping's include it.

Until netab has `--test rrul` (issue 31), the irtt and ping rounds still run
and are printed, and the script then exits 1 saying so. Needs root.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

PID = os.getpid()
NS_C, NS_R, NS_S = ("nbrrul-%s-%d" % (x, PID) for x in "crs")
DEVS = {"c": "rb%dc" % (PID % 100000), "rc": "rb%drc" % (PID % 100000),
        "rs": "rb%drs" % (PID % 100000), "s": "rb%ds" % (PID % 100000)}
ADDR_C, ADDR_RC, ADDR_RS, ADDR_S = "198.18.1.2", "198.18.1.1", "198.18.2.1", "198.18.2.2"
NETAB_PORT, IRTT_PORT = 5301, 2112


def sh(*argv):
    subprocess.run(list(argv), check=True, stdin=subprocess.DEVNULL, timeout=30,
                   stdout=subprocess.DEVNULL)


def in_ns(ns, argv):
    return ["ip", "netns", "exec", ns] + list(argv)


def make_path():
    for ns in (NS_C, NS_R, NS_S):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    sh("ip", "link", "add", DEVS["c"], "netns", NS_C, "type", "veth", "peer", "name", DEVS["rc"],
       "netns", NS_R)
    sh("ip", "link", "add", DEVS["s"], "netns", NS_S, "type", "veth", "peer", "name", DEVS["rs"],
       "netns", NS_R)
    for ns, dev, addr in ((NS_C, "c", ADDR_C), (NS_R, "rc", ADDR_RC), (NS_R, "rs", ADDR_RS),
                          (NS_S, "s", ADDR_S)):
        sh("ip", "-n", ns, "addr", "add", addr + "/24", "dev", DEVS[dev])
        sh("ip", "-n", ns, "link", "set", DEVS[dev], "up")
    sh("ip", "-n", NS_C, "route", "add", "default", "via", ADDR_RC)
    sh("ip", "-n", NS_S, "route", "add", "default", "via", ADDR_RS)
    sh(*in_ns(NS_R, ["sysctl", "-qw", "net.ipv4.ip_forward=1"]))
    sh(*in_ns(NS_C, ["ping", "-c", "1", "-W", "5", ADDR_S]))


def remove_path():
    for ns in (NS_C, NS_R, NS_S):
        subprocess.run(["ip", "netns", "del", ns], stdin=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)


def irtt(args):
    def go():
        out = B.run(in_ns(NS_C, ["irtt", "client", "-i", "%gms" % (1000.0 / args.rate), "-d",
                                 "%gs" % args.seconds, "-Q", "-o", "-",
                                 "%s:%d" % (ADDR_S, IRTT_PORT)]), args.seconds, args.raw)
        s = B.load_json(out, "irtt")["stats"]
        rtt = s["rtt"]
        if not rtt.get("n"):
            raise B.ToolError("irtt: no round trip (%s%% lost)" % s.get("packet_loss_percent"))
        return {"p50": rtt["median"] / 1e3, "mean": rtt["mean"] / 1e3, "p99": None,
                "n": rtt["n"], "lost": s.get("packet_loss_percent")}
    return go


def ping(args):
    def go():
        n = max(10, int(args.seconds * 100))
        out = B.run(in_ns(NS_C, ["ping", "-n", "-c", str(n), "-i", "0.01", ADDR_S]), n / 100.0,
                    args.raw)
        rtts = sorted(float(x) * 1e3 for x in re.findall(r"time=([0-9.]+) ms", out))
        if not rtts:
            raise B.ToolError("ping: no answer")
        return {"p50": rtts[len(rtts) // 2], "mean": sum(rtts) / len(rtts),
                "p99": rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))], "n": len(rtts),
                "lost": 100.0 * (n - len(rtts)) / n}
    return go


def netab_idle(args):
    def go():
        out = B.run(in_ns(NS_C, [args.netab, "run", "-c", ADDR_S, "-p", str(NETAB_PORT),
                                 "--test", "rrul", "--probe-rate", "%g" % args.rate, "-t", "1",
                                 "--load-flows", "1", "-i", "0", "--json"]),
                    args.seconds + 10, args.raw)
        d = B.load_json(out, "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        idle = d["end"]["rrul"]["idle"]
        if idle.get("p50_us") is None:
            raise B.ToolError("netab: no idle probe answered")
        return {"p50": idle["p50_us"], "mean": idle["mean_us"], "p99": idle["p99_us"],
                "n": idle["probes_received"], "lost": idle["loss_percent"]}
    return go


def has_rrul(netab):
    p = subprocess.run([netab, "run", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True, timeout=30)
    return re.search(r"\brrul\b", p.stdout) is not None


def main():
    p = B.common_args(__doc__.splitlines()[0], rounds=5, seconds=2.0)
    p.add_argument("--rate", type=float, default=100.0,
                   help="probes per second, both tools (default %(default)s)")
    args = B.finish_args(p.parse_args())
    if os.geteuid() != 0:
        sys.exit("rrul_idle: needs root (network namespaces)")
    rrul = has_rrul(args.netab)
    B.header(args, "rrul_idle: netab rrul idle probes vs irtt vs ping, client-router-server "
             "namespaces, %g probes/s" % args.rate)
    make_path()
    try:
        with B.Server(in_ns(NS_S, ["irtt", "server", "-b", "%s:%d" % (ADDR_S, IRTT_PORT)]),
                      IRTT_PORT, args.raw, wait_listen=False), \
             B.Server(in_ns(NS_S, [args.netab, "server", "-B", ADDR_S, "-p", str(NETAB_PORT)]),
                      NETAB_PORT, args.raw, wait_listen=False):
            runners = [("irtt", irtt(args)), ("ping", ping(args))]
            if rrul:
                runners.append(("netab rrul idle", netab_idle(args)))
            show = lambda m: "p50 %.1f us  mean %.1f us  (%d answers, %.2f%% lost)" % (
                m["p50"], m["mean"], m["n"], m["lost"] or 0.0)
            res, errs = B.alternate(args, runners, show)
    finally:
        remove_path()
    med = lambda n, k: B.med(res, n, k)
    print("\nidle round trip, medians over %d rounds (us)" % args.rounds)
    names = [n for n, _ in runners]
    B.table([[n, str(len(res[n])), B.fmt(med(n, "p50")), B.fmt(med(n, "mean")),
              B.fmt(med(n, "p99"))] for n in names],
            ["tool", "runs", "p50 us", "mean us", "p99 us"])
    if not rrul:
        print("\nnetab has no --test rrul yet (issue 31): only irtt and ping were measured")
        B.report_errors(errs)
        sys.exit(1)
    print("\nratios (medians):")
    B.info("netab / irtt  idle p50 round trip", B.ratio(med("netab rrul idle", "p50"),
                                                         med("irtt", "p50")))
    B.info("netab / ping  idle p50 round trip", B.ratio(med("netab rrul idle", "p50"),
                                                         med("ping", "p50")))
    B.target("netab idle p50 <= 3 x ping's + 200 us (rrul_netns's bound), as a ratio to the bound",
             B.ratio(med("netab rrul idle", "p50"), 3 * med("ping", "p50") + 200), "<=", 1.0)
    B.report_errors(errs)


if __name__ == "__main__":
    main()
