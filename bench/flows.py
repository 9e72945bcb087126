#!/usr/bin/env python3
"""Many flows on loopback (issue 30): netab and its peers against bench/flows_bare.

The ceiling is bench/flows_bare: F connections over T epoll threads per end
in one process, tcp_rr (one transaction of --msg bytes each way in flight a
flow) and tcp_stream, at F in --flows-list (default 1,100,128,1000,10000;
a count whose open files do not fit under this process's hard RLIMIT_NOFILE
is left out and said so, unless --nofile raises it with prlimit). Beside it,
in the same alternating run:

  netab run --test tcp_rr -P 128 and netab run -P 128 (one thread a stream,
      the baseline issue 30 replaces), and, once netab run accepts --flows
      (found by asking it), netab run --flows F --threads T at every F;
  iperf3 -P 128 (stream only: iperf3 has no request/response test);
  sockperf ping-pong (--tcp, --msg bytes, round trip) against flows_bare rr
      at F=1, and sockperf throughput (--tcp -m 65000, counted by the
      sender) against flows_bare stream at F=1: sockperf drives one flow;
  netab run (one stream, no --flows) against bench/bare (one blocking
      send/recv pair), so that issue 30's single-stream target (>= 0.97)
      is judged in the same alternating run as the many-flow ones
      (--no-single leaves the pair out).

Every figure comes with its spread across flows where the tool reports one
(min, median, max, flows that got nothing, Jain's fairness index) and every
process's peak resident set (VmHWM). Prints medians and the ratios against
the bare loop.
"""
import os
import re
import resource
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import rr as RR  # noqa: E402  (sockperf's output parser)

PEER_P = 128
SOCKPERF_TP_MSG = 65000


def fd_need(flows, threads):
    """Open files flows_bare needs (its fit_nofile(): 2 a flow, 4 a thread pair, 32)."""
    return 2 * flows + 4 * threads + 32


def across(vals):
    """min, median, max, zero flows and Jain's index of per-flow counts."""
    if not vals:
        return {}
    sq = sum(v * v for v in vals)
    return {"fmin": min(vals), "fmed": statistics.median(vals), "fmax": max(vals),
            "zero": sum(1 for v in vals if v == 0),
            "jain": sum(vals) ** 2 / (len(vals) * sq) if sq else 0.0}


def bare(args, test, flows):
    def go():
        argv = [args.flows_bare, "--test", test, "--flows", str(flows), "--threads",
                str(args.threads), "-t", "%g" % args.seconds]
        if test == "rr":
            argv += ["--req-size", str(args.msg), "--resp-size", str(args.msg)]
        if args.nofile:
            argv = ["prlimit", "--nofile=%d:%d" % (args.nofile, args.nofile), "--"] + argv
        out, _, rss = B.run_rss(argv, args.seconds, args.raw)
        kv = dict(tok.split("=", 1) for tok in out.split() if "=" in tok)
        try:
            m = {"fmin": int(kv["per_flow_min"]), "fmed": float(kv["per_flow_median"]),
                 "fmax": int(kv["per_flow_max"]), "zero": int(kv["zero_flows"]),
                 "jain": float(kv["jain"]), "rss": rss}
            if test == "rr":
                m["rate"] = float(kv["transactions_per_second"])
            else:
                m["rate"] = float(kv["bits_per_second"]) / 1e9
        except (KeyError, ValueError):
            raise B.ToolError("flows_bare: cannot parse %r" % out.strip()[:300])
        return m
    return go


def single(args, tool):
    """One tcp_stream: netab run with no -P or --flows (the thread-per-stream
    engine) or bench/bare's one sender/receiver pair; Gbit/s received."""
    def go():
        if tool == "bare":
            out, _, rss = B.run_rss([args.bare, "-t", "%g" % args.seconds], args.seconds,
                                    args.raw)
            kv = dict(tok.split("=", 1) for tok in out.split() if "=" in tok)
            try:
                return {"rate": int(kv["bytes"]) * 8 / float(kv["seconds"]) / 1e9, "rss": rss}
            except (KeyError, ValueError, ZeroDivisionError):
                raise B.ToolError("bare: cannot parse %r" % out.strip()[:200])
        out, _, rss = B.run_rss([args.netab, "run", "-t", "%g" % args.seconds, "--json", "-i",
                                 "0"], args.seconds, args.raw)
        d = B.load_json(out, "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        return {"rate": d["end"]["receiver"]["bits_per_second"] / 1e9, "rss": rss}
    return go


def netab_accepts_flows(netab):
    """True when `netab run` knows --flows and --threads: an unknown option exits 2
    before --help is reached, a known one lets --help exit 0."""
    try:
        p = subprocess.run([netab, "run", "--flows", "1", "--threads", "1", "--help"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0 and "unknown option" not in p.stderr


def flows_spread(end, test):
    """The spread across flows of a --flows run from its end.flows (docs/json.md): the
    client's transactions per flow (tcp_rr) or the bytes each connection delivered
    (tcp_stream). The streams array is empty without --per-flow, so this is the only
    per-flow figure a plain --flows run has."""
    fl = end.get("flows")
    if not isinstance(fl, dict):
        raise B.ToolError("netab --flows: the document has no end.flows")
    sp = fl.get("transactions", {}).get("client") if test == "tcp_rr" else fl.get("bytes")
    try:
        return {"fmin": sp["min"], "fmed": sp["median"], "fmax": sp["max"],
                "zero": sp["flows_with_nothing"],
                # null when no flow got anything: Jain's index is then undefined, shown n/a.
                "jain": sp["fairness"]}
    except (KeyError, TypeError):
        raise B.ToolError("netab --flows: end.flows lacks the spread: %r" % (sp,))


def netab(args, test, parallel=None, flows=None):
    def go():
        argv = [args.netab, "run", "--test", test, "-t", "%g" % args.seconds, "--json", "-i", "0"]
        if flows is not None:
            argv += ["--flows", str(flows), "--threads", str(args.threads)]
        else:
            argv += ["-P", str(parallel)]
        if test == "tcp_rr":
            argv += ["--req-size", str(args.msg), "--resp-size", str(args.msg)]
        out, _, rss = B.run_rss(argv, args.seconds, args.raw)
        d = B.load_json(out, "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        if test == "tcp_rr":
            m = {"rate": e["transactions_per_second"]}
        else:
            m = {"rate": e["receiver"]["bytes"] * 8 / e["receiver"]["seconds"] / 1e9}
        if flows is not None:
            m.update(flows_spread(e, test))
        elif test == "tcp_rr":
            # Each stream's receiver counts request bytes: transactions x request size.
            m.update(across([s["receiver"]["bytes"] // args.msg for s in d.get("streams") or []]))
        else:
            m.update(across([s["receiver"]["bytes"] for s in d.get("streams") or []]))
        m["rss"] = rss  # client and its in-process server together
        return m
    return go


def iperf3(args):
    def go():
        port = B.free_port()
        with B.Server(["iperf3", "-s", "-p", str(port)], port, args.raw) as srv:
            out, _, rss = B.run_rss(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-P",
                                     str(PEER_P), "-t", "%g" % args.seconds, "-J"],
                                    args.seconds, args.raw)
            srv_rss = B.vm_hwm_kib(srv.proc.pid)
            srv.stop()
        d = B.load_json(out, "iperf3")
        if d.get("error"):
            raise B.ToolError("iperf3: %s" % d["error"])
        r = d["end"]["sum_received"]
        m = {"rate": r["bytes"] * 8 / r["seconds"] / 1e9, "rss": rss, "srv_rss": srv_rss}
        m.update(across([s["receiver"]["bytes"] for s in d["end"].get("streams") or []]))
        return m
    return go


def sockperf(args, mode):
    def go():
        port = B.free_port()
        with B.Server(["sockperf", "sr", "--tcp", "-i", "127.0.0.1", "-p", str(port)], port,
                      args.raw) as srv:
            argv = ["sockperf", mode, "--tcp", "-i", "127.0.0.1", "-p", str(port),
                    "-t", "%d" % max(1, round(args.seconds))]
            argv += ["-m", str(args.msg), "--full-rtt"] if mode == "pp" else \
                ["-m", str(SOCKPERF_TP_MSG)]
            out, _, rss = B.run_rss(argv, args.seconds, args.raw)
            srv_rss = B.vm_hwm_kib(srv.proc.pid)
            srv.stop()
        if mode == "pp":
            rate = RR.parse_sockperf(out)["tps"]
        else:
            clean = re.sub(r"\x1b\[[0-9;]*m", "", out)
            bw = re.search(r"BandWidth is [0-9.]+ MBps \(([0-9.]+) Mbps\)", clean)
            if not bw:
                raise B.ToolError("sockperf tp: no BandWidth line in %r" % clean.strip()[-300:])
            rate = float(bw.group(1)) / 1e3
        return {"rate": rate, "rss": rss, "srv_rss": srv_rss}
    return go


def fitting_flows(args):
    """The flow counts flows_bare can open here, and a note for each left out."""
    hard = args.nofile or resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    fit, notes = [], []
    for f in args.flows_list:
        need = fd_need(f, args.threads)
        if hard != resource.RLIM_INFINITY and need > hard:
            most = (hard - fd_need(0, args.threads)) // 2
            notes.append("F=%d left out: flows_bare needs %d open files in one process, the hard "
                         "limit is %d; at most F=%d fits (--nofile N raises the limit with "
                         "prlimit, which needs CAP_SYS_RESOURCE)" % (f, need, hard, most))
        else:
            fit.append(f)
    return fit, notes


def build_runners(args, fit, with_flows):
    runners = []
    for f in fit:
        runners.append(("bare rr F=%d" % f, bare(args, "rr", f)))
        runners.append(("bare stream F=%d" % f, bare(args, "stream", f)))
    runners += [("netab rr -P %d" % PEER_P, netab(args, "tcp_rr", parallel=PEER_P)),
                ("netab stream -P %d" % PEER_P, netab(args, "tcp_stream", parallel=PEER_P)),
                ("iperf3 -P %d" % PEER_P, iperf3(args))]
    if args.sockperf:
        runners += [("sockperf pp", sockperf(args, "pp")), ("sockperf tp", sockperf(args, "tp"))]
    if args.single:
        runners += [("bare stream single", single(args, "bare")),
                    ("netab stream single", single(args, "netab"))]
    if with_flows:
        for f in fit:
            runners.append(("netab rr F=%d" % f, netab(args, "tcp_rr", flows=f)))
            runners.append(("netab stream F=%d" % f, netab(args, "tcp_stream", flows=f)))
    return runners


def show(m):
    s = "%12s" % B.fmt(m["rate"])
    if m.get("jain") is not None:
        s += "  per flow %s/%s/%s  zero %d  jain %.4f" % (
            B.fmt(m["fmin"]), B.fmt(m["fmed"]), B.fmt(m["fmax"]), m["zero"], m["jain"])
    s += "  rss %s KiB" % B.fmt(m["rss"])
    if m.get("srv_rss") is not None:
        s += " (server %s KiB)" % B.fmt(m["srv_rss"])
    return s


def print_tables(args, runners, res):
    mib = lambda v: "%.1f" % (v / 1024.0) if v is not None else "n/a"
    for kind, unit, keys in (("request/response", "trans/s", ("rr", "sockperf pp")),
                             ("stream", "Gbit/s", ("stream", "iperf3", "sockperf tp"))):
        print("\n%s: medians over %d rounds of %g s (per-flow figures: medians of each "
              "round's min, median, max)" % (kind, args.rounds, args.seconds))
        rows = []
        for name, _ in runners:
            if not any(k in name for k in keys):
                continue
            med = lambda k: B.med(res, name, k)
            sp = B.spread(res, name, "rate")
            rows.append([name, str(len(res[name])), B.fmt(med("rate")),
                         "%s..%s" % (B.fmt(sp[0]), B.fmt(sp[1])) if sp else "",
                         B.fmt(med("fmin")), B.fmt(med("fmed")), B.fmt(med("fmax")),
                         B.fmt(med("zero")),
                         "%.4f" % med("jain") if med("jain") is not None else "n/a",
                         mib(med("rss")), mib(med("srv_rss"))])
        B.table(rows, ["tool", "runs", unit, "range", "flow min", "flow median", "flow max",
                       "zero", "Jain", "RSS MiB", "server RSS MiB"])


def print_ratios(res, fit, with_flows, with_sockperf):
    r = lambda a, b: B.ratio(B.med(res, a, "rate"), B.med(res, b, "rate"))
    p = PEER_P
    print("\nratios (medians) against the bare loop:")
    for kind in ("rr", "stream"):
        if with_flows:
            for f in fit:
                label = "netab %s F=%d / bare %s F=%d" % (kind, f, kind, f)
                if f == 1000:
                    B.target(label, r("netab %s F=%d" % (kind, f), "bare %s F=%d" % (kind, f)),
                             ">=", 0.95)
                else:
                    B.info(label, r("netab %s F=%d" % (kind, f), "bare %s F=%d" % (kind, f)))
        for f in (p, 1000):
            if f in fit:
                B.info("netab %s -P %d / bare %s F=%d" % (kind, p, kind, f),
                       r("netab %s -P %d" % (kind, p), "bare %s F=%d" % (kind, f)))
    for f in (p, 1000):
        if f in fit:
            B.info("iperf3 -P %d / bare stream F=%d" % (p, f),
                   r("iperf3 -P %d" % p, "bare stream F=%d" % f))
    if 1 in fit and with_sockperf:
        B.info("sockperf pp / bare rr F=1", r("sockperf pp", "bare rr F=1"))
        B.info("sockperf tp (sender count) / bare stream F=1", r("sockperf tp", "bare stream F=1"))
    if "netab stream single" in res:
        B.target("netab stream single / bench/bare (one stream)",
                 r("netab stream single", "bare stream single"), ">=", 0.97)


def main():
    p = B.common_args(__doc__.splitlines()[0], rounds=3, seconds=3.0)
    p.add_argument("--flows-list", default="1,100,128,1000,10000",
                   help="flow counts for the bare loop (and netab --flows) (default %(default)s)")
    p.add_argument("--threads", type=int, default=2,
                   help="event-loop threads per end (default %(default)s)")
    p.add_argument("--msg", type=int, default=64,
                   help="request and response bytes of every rr test (default %(default)s, as "
                        "bench/rr.py; sockperf's smallest is 14)")
    p.add_argument("--nofile", type=int, default=None, metavar="N",
                   help="run flows_bare under prlimit --nofile=N:N so that larger F fit "
                        "(raising the hard limit needs CAP_SYS_RESOURCE)")
    p.add_argument("--no-sockperf", dest="sockperf", action="store_false",
                   help="leave sockperf out")
    p.add_argument("--no-single", dest="single", action="store_false",
                   help="leave out the single-stream pair (netab run vs bench/bare)")
    args = B.finish_args(p.parse_args())
    args.flows_bare = os.path.join(args.build, "bench", "flows_bare")
    args.bare = os.path.join(args.build, "bench", "bare")
    try:
        args.flows_list = [int(x) for x in args.flows_list.split(",") if x]
    except ValueError:
        sys.exit("--flows-list must be integers separated by commas")
    if not args.flows_list or min(args.flows_list) < 1 or not 1 <= args.threads <= 256:
        sys.exit("--flows-list needs at least one flow count >= 1, --threads 1..256")
    if not 14 <= args.msg <= 65536:
        sys.exit("--msg must be 14..65536")
    for exe in (args.netab, args.flows_bare, args.bare):
        if not os.access(exe, os.X_OK):
            sys.exit("%s missing: build first (meson setup build && ninja -C build)" % exe)
    if args.sockperf and subprocess.run(["sh", "-c", "command -v sockperf"],
                                        stdout=subprocess.DEVNULL).returncode:
        print("# sockperf not installed (apt-get install sockperf): left out")
        args.sockperf = False

    fit, notes = fitting_flows(args)
    with_flows = netab_accepts_flows(args.netab)
    B.header(args, "flows: F flows over %d threads per end, tcp_rr (%d B) and tcp_stream, "
             "loopback" % (args.threads, args.msg))
    print("# netab run --flows: %s" % ("accepted, netab --flows F runs at every F" if with_flows
                                       else "not accepted by this netab: -P %d only" % PEER_P))
    for n in notes:
        print("# " + n)
    sys.stdout.flush()
    runners = build_runners(args, fit, with_flows)
    res, errs = B.alternate(args, runners, show)
    print_tables(args, runners, res)
    print_ratios(res, fit, with_flows, args.sockperf)
    B.report_errors(errs)


if __name__ == "__main__":
    main()
