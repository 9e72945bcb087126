#!/usr/bin/env python3
"""The stmmac case (issue 17): link-bound at the same throughput, one variant costlier per byte.

Two namespaces joined by a veth pair, the client's side capped at 1 Gbit/s by
tbf; variants `-l 128K` and `-l 1K`, 5 runs each, as an experiment (then
`netab report`) and as `netab compare`, with no --metric. A bounded CPU
burner (a Python busy loop with a time limit, stopped when the runs end)
makes other processes' CPU time a real share of /proc/stat's busy time, as
on any shared host. Checks, in the default text and JSON output of both:
- the pollution is said: other processes' share at or above the threshold,
  the system-wide figure named as polluted;
- CPU cost is decided on the process figure (local_process_demand), named;
- the verdicts read "throughput within noise" and "CPU cost regressed".
The process figure's own comparison in the JSON results is checked too.

Why 1K and not the issue's 4K: on this 2-CPU VM the client's process CPU
per KiB grows by only about 16% from -l 128K to -l 4K, with a run-to-run
CV near 15% under the burner (measured: 0.234 vs 0.271 us/KiB over 5 runs
each), so 5 runs prove it only some of the time; from -l 128K to -l 1K it
grows by about 100% (0.22 vs 0.45 us/KiB) at the same 955 Mbit/s, which 5
runs always resolve. The mechanism under test (pollution detected, the
process figure deciding, the wording) is the same.

Each run omits its first second (slow start and tbf's first burst are not
the steady state the case is about) and counts 3 s. The case is link-bound: the tbf cap, not the CPU, must bound throughput.
On this shared 2-CPU host other sessions' builds and tests queue a dozen
runnable tasks, and a run starved for a fraction of a second falls below
the cap, so the test's own processes (server, runner and runs) get a higher
priority (nice -20), and the burner the lowest: what other processes take
stays in /proc/stat all the same, so the pollution is as real as before.

The sanitizer build runs the experiment and its report only: the compare
judges the same runs by the same code (src/lib/judge) and took 40 s.

Needs root and network namespaces; skips (77) with the reason otherwise.
Namespaces (and the veth pair and qdisc with them) are removed on exit, also
on failure; the burner is stopped in a finally clause.
"""

import json
import os
import signal
import sys
import tempfile

from netab_helpers import NetnsPair, Server, log, main, require_root_netns, run_cmd, sanitized, start

THRESHOLD = 25.0  # JUDGE_POLLUTED_PCT, docs/json.md "CPU cost"
BURN_S = 240      # the burner's own bound; it is stopped as soon as the runs end
# The noise floor of the throughput verdicts, in percent. Both variants sit at tbf's cap, but a
# 3 s run still differs from the next by up to about 1% (tbf's burst, a run's start): with the
# default floor of 1% an interval such as -0.19% [-1.04%, +0.20%] (seen in a quiet CI-like run)
# is "no difference proven". The case is "the same throughput", and 2% is the floor a user of a
# capped link would give; it leaves the CPU cost verdict (+100% and more) untouched.
NOISE = "2"

EXPERIMENT = """name: stmmac
runs: 5
warmup: 0
seed: 17
test:
  test: tcp_stream
  time: 3
  omit: 1
  interval: 0
  server: {server}
  port: {port}
variants:
  - name: big
    opts: "-l 128K"
  - name: small
    opts: "-l 1K"
"""


# tbf's bucket. This host is a VM whose hypervisor takes CPU time from it ("steal" in /proc/stat,
# measured at 5-18% in some minutes and near 0 in others). While a vCPU waits, nobody sends, and
# with a 256 KB bucket (2 ms at 1 Gbit/s) that time is lost to the link: runs of the sanitizer
# build then fell from 956 to 827-920 Mbit/s at random, and 5 runs no longer proved "the same
# throughput" (CI saw it). A 4 MB bucket (34 ms) lets the sender catch up after such a pause, as a
# real NIC's ring and the switch's buffer do; the average over a run is still capped at 1 Gbit/s
# (the first second, which the bucket's first burst falls in, is omitted). Measured over 20 runs of
# each variant with the sanitizer build and the burner: 956.1-956.9 Mbit/s at up to 12.7% steal.
BURST = "4mb"

PRIORITY = -20  # the test's processes: above the other sessions' builds (nice 0)


def favoured(argv):
    """argv run at PRIORITY (nice(1), which execs it: the harness still sees netab's pid)."""
    return ["nice", "-n", str(PRIORITY)] + argv


def favour(pid):
    """Every thread of pid at PRIORITY; threads it creates later inherit it."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.setpriority(os.PRIO_PROCESS, int(tid), PRIORITY)


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


def log_runs(netab, db):
    """Each run's throughput and the hypervisor's steal on either end, for a failure's reader."""
    runs = json.loads(run_cmd([netab, "runs", "list", "--db", db, "--experiment", "1",
                               "--json"]).stdout)
    for r in runs:
        doc = run_cmd([netab, "runs", "show", str(r["id"]), "--db", db, "--json"]).doc
        cpu = ((doc.get("result") or {}).get("end") or {}).get("cpu") or {}
        fig = [[(cpu.get(k) or {}).get(f) or 0 for f in ("steal_pct", "total_pct", "process_pct")]
               for k in ("local", "remote")]
        log(f"  run {r['id']} {r['variant']}: {(r.get('receiver_bps') or 0) / 1e6:.1f} Mbit/s; "
            "steal, CPUs busy, netab process: "
            + "; ".join(f"{end} {a:.1f}%, {b:.1f}%, {p:.0f}% of a CPU"
                        for end, (a, b, p) in zip(("local", "remote"), fig)))


def check_report(c, netab, db):
    log_runs(netab, db)
    brief = run_cmd([netab, "report", "--db", db, "--noise", NOISE, "1"],
                    expect_rc=(0, 1)).stdout
    log(brief)
    # The default report names the CPU cost's figure once, under the headline; the per-cell
    # section is in --full.
    c.check("CPU cost against" not in brief, "default report: no per-cell CPU cost section")
    c.check("decided on loc proc us/KiB; the system-wide loc us/KiB is polluted"
            in " ".join(brief.split()), "default report: one line names the deciding figure")
    text = run_cmd([netab, "report", "--db", db, "--noise", NOISE, "--full", "1"],
                   expect_rc=(0, 1)).stdout
    flat = " ".join(text.split())
    c.check("CPU cost against big" in text, "report --full: a CPU cost section")
    c.check("small @ default: throughput within noise, CPU cost regressed" in flat,
            "report: 'throughput within noise, CPU cost regressed'")
    c.check("default: decided on loc proc us/KiB; the system-wide loc us/KiB is polluted" in flat,
            "report: decided on the process figure, the system-wide one said to be polluted")
    doc = run_cmd([netab, "report", "--db", db, "--noise", NOISE, "--format", "json",
                   "1"], expect_rc=(0, 1)).doc
    cost = doc["cpu_cost"]
    if not c.check(len(cost) == 1, "report JSON: one cell with a CPU cost", cost):
        return
    k = cost[0]
    c.check(k["metric"] == "local_process_demand", "report JSON: decided on the process figure",
            k["metric"])
    c.check(k["system_metric"] == "local_demand", "report JSON: the system-wide figure named",
            k["system_metric"])
    c.check(k["polluted"] and k["others_pct"] >= THRESHOLD,
            f"report JSON: polluted (others at least {THRESHOLD}% of busy CPU)", k["others_pct"])
    c.check([v["verdict"] for v in k["verdicts"]] == ["regressed"],
            "report JSON: CPU cost regressed", k["verdicts"])
    res = {(x["variant"], x["metric"]): x for x in doc["results"]}
    c.check(res[("small", "local_process_demand")]["comparison"]["verdict"] == "regressed",
            "report JSON: the process figure's own comparison regressed")
    c.check(res[("small", "throughput")]["comparison"]["verdict"] == "within noise",
            "report JSON: throughput within noise",
            res[("small", "throughput")]["comparison"]["verdict"])


def run_compare(netab, ns, srv, db):
    args = [netab, "compare", "--db", db, "--runs", "5", "--seed", "17", "--noise", NOISE,
            "--variant", "big",
            "--opts", "-l 128K", "--variant", "small", "--opts", "-l 1K", "--", "-c", srv.bind,
            "-p", str(srv.port), "-t", "3", "-O", "1", "-i", "0"]
    text = run_cmd(favoured(args), netns=ns, expect_rc=(0, 1), timeout=200).stdout
    tail = [x for x in text.splitlines() if x.startswith(("result:", "summary:", "CPU cost"))]
    log("\n".join(tail))
    return text


def check_compare(c, text):
    c.check("summary: small vs big: throughput within noise, CPU cost regressed" in text,
            "compare: 'throughput within noise, CPU cost regressed'")
    # The judgement's one sentence (judge_cost_sentence()), as the report says it.
    c.check("CPU cost is decided on local_process_demand; the system-wide local_demand "
            "is polluted" in text, "compare: decided on the process figure, polluted named")


def throughput_verdict(netab, db):
    doc = run_cmd([netab, "report", "--db", db, "--noise", NOISE, "--format", "json", "1"],
                  expect_rc=(0, 1)).doc
    return {(x["variant"], x["metric"]): x for x in doc["results"]}[
        ("small", "throughput")]["comparison"]["verdict"]


def burning(fn):
    """fn() while the burner runs; the burner is stopped however fn ends."""
    b = burner()
    try:
        return fn()
    finally:
        stop(b)


# A second attempt, once, only when throughput was "no difference proven": one run of five that
# the host disturbed (CI saw a mean of 944.9 against 956.2 Mbit/s, "outliers" warned, no steal
# above 1%) widens the interval past the 2% floor, and the tool is right to say it cannot tell.
# A wrong figure or a real difference fails either way: "regressed" or "improved" is never
# retried, and the second attempt must pass every check.
ATTEMPTS = 2


def again_if_unproven(what, attempt, unproven):
    """attempt(n) under the burner, n = 1, 2, ...: once more only while unproven(its result)."""
    for n in range(1, ATTEMPTS + 1):
        result = burning(lambda: attempt(n))
        if n == ATTEMPTS or not unproven(result):
            return result
        log(f"{what} attempt {n}: throughput no difference proven; once more")


def body(netab, c):
    require_root_netns()
    with NetnsPair("cc") as net, tempfile.TemporaryDirectory() as d:
        net.tbf(net.ns_b, net.dev_b, rate="1gbit", burst=BURST, latency="50ms")
        with Server(netab, netns=net.ns_a, bind=net.addr_a) as srv:
            favour(srv.pid())
            exp = os.path.join(d, "stmmac.yaml")
            with open(exp, "w") as f:
                f.write(EXPERIMENT.format(server=srv.bind, port=srv.port))

            def experiment(n):
                db = os.path.join(d, f"r{n}.db")
                run_cmd(favoured([netab, "experiment", "run", "--db", db, exp]), netns=net.ns_b,
                        timeout=200)
                return db

            def experiment_unproven(db):
                if throughput_verdict(netab, db) != "no difference proven":
                    return False
                log_runs(netab, db)
                return True

            db = again_if_unproven("experiment", experiment, experiment_unproven)
            check_report(c, netab, db)
            if sanitized(netab):
                # The compare measures the same judgement again (judge_cost_choose() and its
                # sentence, which the report above took under the sanitizers): 40 s of CI.
                log("sanitizer build: the compare half is skipped (the report's judgement again)")
                return
            text = again_if_unproven(
                "compare", lambda n: run_compare(netab, net.ns_b, srv, os.path.join(d, f"c{n}.db")),
                lambda out: "throughput no difference proven" in out)
            check_compare(c, text)
            c.check(srv.alive(), "the server is still serving")


if __name__ == "__main__":
    main(body)
