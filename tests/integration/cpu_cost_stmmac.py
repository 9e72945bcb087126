#!/usr/bin/env python3
"""The stmmac case (issue 17): link-bound at the same throughput, one variant costlier per byte.

Two namespaces joined by a veth pair, the client's side capped at 1 Gbit/s by
tbf; variants `-l 128K` and `-l 4K`, 5 runs each, as an experiment (then
`netab report`) and as `netab compare`, with no --metric. A bounded CPU
burner (a Python busy loop with a time limit, stopped when the runs end)
makes other processes' CPU time a real share of /proc/stat's busy time, as
on any shared host. Checks, in the default text and JSON output of both:
- the pollution is said: other processes' share at or above the threshold,
  the system-wide figure named as polluted;
- CPU cost is decided on the process figure (local_process_demand), named;
- the verdicts read "throughput within noise" and "CPU cost regressed".
The process figure's verdict is also recomputed from the JSON values.

Needs root and network namespaces; skips (77) with the reason otherwise.
Namespaces (and the veth pair and qdisc with them) are removed on exit, also
on failure; the burner is stopped in a finally clause.
"""

import os
import signal
import sys
import tempfile

from netab_helpers import (NetnsPair, Server, check, check_eq, log, require_root_netns, run_cmd,
                           run_main, start)

THRESHOLD = 25.0  # METRIC_POLLUTED_PCT, docs/json.md "CPU cost"
BURN_S = 240      # the burner's own bound; it is stopped as soon as the runs end

EXPERIMENT = """name: stmmac
runs: 5
warmup: 0
seed: 17
test:
  test: tcp_stream
  time: 2
  interval: 0
  server: {server}
  port: {port}
variants:
  - name: big
    opts: "-l 128K"
  - name: small
    opts: "-l 4K"
"""


def burner():
    """A CPU burner bounded in time: other processes' share of /proc/stat's busy time."""
    # Niced: its time is other processes' time in /proc/stat all the same (user + nice), but it
    # yields the CPUs to the test, which must stay link-bound.
    code = ("import os, time\n"
            "os.nice(19)\n"
            f"t = time.monotonic() + {BURN_S}\n"
            "while time.monotonic() < t:\n"
            "    pass\n")
    return start([sys.executable, "-c", code])


def stop(p):
    p.send(signal.SIGTERM)
    p.finish(expect_rc=(0, -signal.SIGTERM))


def check_report(netab, db):
    text = run_cmd([netab, "report", "--db", db, "1"], expect_rc=(0, 1)).stdout
    log(text)
    lines = [x for x in text.splitlines() if "CPU cost" in x or x.startswith("    ")]
    check("CPU cost against big" in text, "the report has its CPU cost section", text)
    check("small @ default: throughput within noise, CPU cost regressed" in text,
          "report: 'throughput within noise, CPU cost regressed'", lines)
    check("on loc proc us/KiB: the system-wide loc us/KiB is polluted" in " ".join(
        text.split()), "report: decided on the process figure, the system-wide one polluted",
        lines)
    doc = run_cmd([netab, "report", "--db", db, "--format", "json", "1"], expect_rc=(0, 1)).doc
    cost = doc["cpu_cost"]
    check_eq(len(cost), 1, "one cell with a CPU cost")
    k = cost[0]
    check_eq(k["metric"], "local_process_demand", "report JSON: the deciding CPU cost figure")
    check_eq(k["system_metric"], "local_demand", "report JSON: the system-wide figure")
    check(k["polluted"] and k["others_pct"] >= THRESHOLD, "report JSON: polluted", k)
    check_eq(k["verdicts"], [{"variant": "small", "verdict": "regressed",
                              "rel_change_pct": k["verdicts"][0]["rel_change_pct"]}],
             "report JSON: CPU cost regressed")
    res = {(x["variant"], x["metric"]): x for x in doc["results"]}
    check_eq(res[("small", "local_process_demand")]["comparison"]["verdict"], "regressed",
             "the process figure's own comparison")
    check_eq(res[("small", "throughput")]["comparison"]["verdict"], "within noise",
             "throughput within noise")
    log(f"ok: report: others {k['others_pct']:.0f}% of busy CPU, CPU cost regressed by "
        f"{k['verdicts'][0]['rel_change_pct']:+.1f}% on the process figure")


def check_compare(netab, ns, srv, db):
    args = [netab, "compare", "--db", db, "--runs", "5", "--seed", "17", "--variant", "big",
            "--opts", "-l 128K", "--variant", "small", "--opts", "-l 4K", "--", "-c", srv.bind,
            "-p", str(srv.port), "-t", "2", "-i", "0"]
    text = run_cmd(args, netns=ns, expect_rc=(0, 1)).stdout
    tail = [x for x in text.splitlines() if x.startswith(("result:", "summary:", "CPU cost"))]
    log("\n".join(tail))
    check("summary: small vs big: throughput within noise, CPU cost regressed" in text,
          "compare: 'throughput within noise, CPU cost regressed'", tail)
    check("CPU cost is decided on local_process_demand: the system-wide figure local_demand is "
          "polluted" in text, "compare: decided on the process figure, polluted named", tail)
    log("ok: compare")


def body(netab):
    require_root_netns()
    with NetnsPair("cc") as net, tempfile.TemporaryDirectory() as d:
        net.tbf(net.ns_b, net.dev_b, rate="1gbit", burst="256kb", latency="50ms")
        with Server(netab, netns=net.ns_a, bind=net.addr_a) as srv:
            exp = os.path.join(d, "stmmac.yaml")
            with open(exp, "w") as f:
                f.write(EXPERIMENT.format(server=srv.bind, port=srv.port))
            db = os.path.join(d, "r.db")
            b = burner()
            try:
                run_cmd([netab, "experiment", "run", "--db", db, exp], netns=net.ns_b,
                        timeout=200)
            finally:
                stop(b)
            check_report(netab, db)
            b = burner()
            try:
                check_compare(netab, net.ns_b, srv, os.path.join(d, "c.db"))
            finally:
                stop(b)
            check(srv.alive(), "server died")


if __name__ == "__main__":
    run_main(body)
