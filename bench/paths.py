#!/usr/bin/env python3
"""Send and receive paths on loopback: netab's against bare loops of the same system calls, and iperf3's.

Issue 32 makes the kernel paths developers change options of `netab run`
(docs/paths.md). For each path P each round runs, in a seeded random order,
`netab run P` (one tcp_stream) and `bench/bare -f --path P` (one sender and
receiver thread making the same system calls with the same depths, nothing
else), and iperf3 where it has the option: `iperf3` beside the copy,
`iperf3 -Z` beside `-Z` (each against a fresh `iperf3 -s -1`). Also
`--fq-rate 1G` for netab and iperf3, where the figure is the rate kept.

CPU per KiB received, two ways for every tool:
  /proc/stat  system-wide busy time around the client (netperf's service
              demand): includes softirq work and every neighbour;
  process     user + system time of the tool's own processes (getrusage of
              the reaped children: netab, bare, iperf3 client and server).
netab's own figures (end.service_demand.local_us_per_kib and
end.cpu.local.process_us_per_kib) are shown beside them as a cross-check.
"""
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

# name: (netab's options, bare's options, iperf3's options or None)
PATHS = {
    "copy": ([], ["--path", "copy"], []),
    "-Z": (["-Z"], ["--path", "sendfile"], ["-Z"]),
    "--splice": (["--splice"], ["--path", "splice"], None),
    "--msg-zerocopy": (["--msg-zerocopy"], ["--path", "msg-zerocopy"], None),
    "--io-uring": (["--io-uring"], ["--path", "io-uring"], None),
    "--io-uring=zc": (["--io-uring=zc"], ["--path", "io-uring-zc"], None),
    "--skip-rx-copy": (["--skip-rx-copy"], ["--skip-rx-copy"], None),
}
DEFAULT_PATHS = "copy,-Z,--splice,--msg-zerocopy,--io-uring,--io-uring=zc,--skip-rx-copy"


def children_cpu_s():
    """User + system seconds of this script's reaped children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def per_kib(cpu_s, rx):
    return cpu_s * 1e6 / (rx / 1024.0) if rx > 0 else None


def measured(fn):
    """Wraps a run in /proc/stat and rusage samples; fn returns (rx_bytes, seconds, extra)."""
    c0, before = children_cpu_s(), B.cpu_ticks()
    rx, secs, extra = fn()
    after, c1 = B.cpu_ticks(), children_cpu_s()
    m = {"gbps": rx * 8 / secs / 1e9 if secs > 0 else None,
         "sd": B.service_demand(before, after, rx), "proc": per_kib(c1 - c0, rx)}
    m.update(extra)
    return m


def kernel_note(e):
    """What netab's JSON says the kernel did on the path, briefly."""
    loc = (e.get("path") or {}).get("local") or {}
    zc = loc.get("msg_zerocopy")
    if zc:
        return "zc %d/%d copied" % (zc["copied"], zc["completions"])
    uring = ((e.get("rx_path") or {}).get("local") or {}).get("io_uring")
    if uring and uring.get("zc_notifications") is not None:
        return "zc %s/%s copied" % (uring.get("zc_copied"), uring["zc_notifications"])
    return ""


def netab(args, opts):
    def go():
        argv = [args.netab, "run", "-t", "%g" % args.seconds, "--json", "-i", "0"] + opts
        d = B.load_json(B.run(argv, args.seconds, args.raw), "netab")
        if d.get("error"):
            raise B.ToolError("netab: %s" % d["error"])
        e = d["end"]
        own_sd = (e.get("service_demand") or {}).get("local_us_per_kib")
        own_proc = ((e.get("cpu") or {}).get("local") or {}).get("process_us_per_kib")
        return e["receiver"]["bytes"], e["receiver"]["seconds"], {
            "own_sd": own_sd, "own_proc": own_proc, "note": kernel_note(e)}
    return lambda: measured(go)


def bare(args, opts):
    def go():
        # -f: a written buffer, as netab's (else copy and io_uring send the kernel's zero page).
        out = B.run([args.bare, "-f", "-t", "%g" % args.seconds] + opts, args.seconds, args.raw)
        kv = dict(tok.split("=", 1) for tok in out.split() if "=" in tok)
        try:
            rx, secs = int(kv["bytes"]), float(kv["seconds"])
        except (KeyError, ValueError):
            raise B.ToolError("bare: cannot parse %r" % out.strip()[:200])
        note = ""
        if "zc_completions" in kv:
            note = "zc %s/%s copied" % (kv["zc_copied"], kv["zc_completions"])
        return rx, secs, {"note": note}
    return lambda: measured(go)


def iperf3(args, opts):
    def go():
        port = B.free_port()
        with B.Server(["iperf3", "-s", "-1", "-p", str(port)], port, args.raw) as srv:
            # /proc/stat around the client only (the server idles until then); the
            # server's own CPU enters the process figure once it is reaped.
            before = B.cpu_ticks()
            out = B.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "%g" % args.seconds,
                         "-J"] + opts, args.seconds, args.raw)
            after = B.cpu_ticks()
            srv.stop(grace=2.0)
        d = B.load_json(out, "iperf3")
        if d.get("error"):
            raise B.ToolError("iperf3: %s" % d["error"])
        r = d["end"]["sum_received"]
        return r["bytes"], r["seconds"], before, after

    def wrapped():
        c0 = children_cpu_s()
        rx, secs, before, after = go()
        return {"gbps": rx * 8 / secs / 1e9, "sd": B.service_demand(before, after, rx),
                "proc": per_kib(children_cpu_s() - c0, rx), "note": ""}
    return wrapped


def main():
    p = B.common_args(__doc__.splitlines()[0], rounds=3, seconds=3.0)
    p.add_argument("--paths", default=DEFAULT_PATHS,
                   help="comma-separated, of %s (default %%(default)s)" % ", ".join(PATHS))
    p.add_argument("--fq-rate", default="1G",
                   help="the --fq-rate run's rate, netab and iperf3 (default %(default)s; "
                        "'none' leaves it out)")
    args = B.finish_args(p.parse_args())
    paths = [x for x in args.paths.split(",") if x]
    bad = [x for x in paths if x not in PATHS]
    if bad:
        sys.exit("unknown path(s) %s; known: %s" % (", ".join(bad), ", ".join(PATHS)))
    B.header(args, "paths: tcp_stream send/receive paths, loopback")

    runners = []
    for name in paths:
        n_opts, b_opts, i_opts = PATHS[name]
        runners += [("netab " + name, netab(args, n_opts)), ("bare " + name, bare(args, b_opts))]
        if i_opts is not None:
            runners.append(("iperf3 " + name, iperf3(args, i_opts)))
    fq = args.fq_rate != "none"
    if fq:
        runners += [("netab --fq-rate", netab(args, ["--fq-rate", args.fq_rate])),
                    ("iperf3 --fq-rate", iperf3(args, ["--fq-rate", args.fq_rate]))]

    def show(m):
        s = "%7.2f Gbit/s  %.3f us/KiB  process %.3f" % (
            m["gbps"], m["sd"] or float("nan"), m["proc"] or float("nan"))
        if m.get("own_proc") is not None:
            s += "  (netab's own %.3f, process %.3f)" % (m["own_sd"] or float("nan"),
                                                         m["own_proc"])
        return s + ("  " + m["note"] if m.get("note") else "")

    res, errs = B.alternate(args, runners, show)

    print("\nmedians over %d rounds of %g s (min..max in brackets); us/KiB = CPU per KiB received"
          % (args.rounds, args.seconds))
    rows = []
    for name, _ in runners:
        g, sp = B.med(res, name, "gbps"), B.spread(res, name, "gbps")
        notes = [m["note"] for m in res[name] if m.get("note")]
        rows.append([name, str(len(res[name])), B.fmt(g),
                     "%s..%s" % (B.fmt(sp[0]), B.fmt(sp[1])) if sp else "",
                     B.fmt(B.med(res, name, "sd")), B.fmt(B.med(res, name, "proc")),
                     B.fmt(B.med(res, name, "own_sd")), B.fmt(B.med(res, name, "own_proc")),
                     notes[-1] if notes else ""])
    B.table(rows, ["tool path", "runs", "Gbit/s", "range", "us/KiB /proc/stat",
                   "us/KiB process", "netab's own /proc/stat", "netab's own process",
                   "kernel (last run)"])

    med = lambda n, k: B.med(res, n, k)
    print("\nratios netab / bare per path (medians): Gbit/s, us/KiB /proc/stat, us/KiB process")
    rows = []
    for name in paths:
        a, b = "netab " + name, "bare " + name
        rows.append([name] + [B.fmt(B.ratio(med(a, k), med(b, k))) for k in ("gbps", "sd", "proc")])
    B.table(rows, ["path", "Gbit/s", "/proc/stat", "process"])

    print("\neach path against the copy of the same tool (medians): Gbit/s, us/KiB process")
    rows = []
    for name in paths:
        row = [name]
        for tool in ("netab", "bare"):
            row += [B.fmt(B.ratio(med("%s %s" % (tool, name), k), med(tool + " copy", k)))
                    for k in ("gbps", "proc")]
        rows.append(row)
    B.table(rows, ["path", "netab Gbit/s", "netab process", "bare Gbit/s", "bare process"])

    print("\nnetab / iperf3 (medians):")
    for name in paths:
        if PATHS[name][2] is not None:
            a, i = "netab " + name, "iperf3 " + name
            B.info("%s  (Gbit/s)" % name, B.ratio(med(a, "gbps"), med(i, "gbps")))
            B.info("%s  (us/KiB process)" % name, B.ratio(med(a, "proc"), med(i, "proc")))
    if fq:
        print("\n--fq-rate %s: the rate each kept (Gbit/s, medians): netab %s, iperf3 %s" % (
            args.fq_rate, B.fmt(med("netab --fq-rate", "gbps")),
            B.fmt(med("iperf3 --fq-rate", "gbps"))))
    B.report_errors(errs)


if __name__ == "__main__":
    main()
