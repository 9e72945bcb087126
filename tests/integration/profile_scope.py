#!/usr/bin/env python3
"""`netab run --profile`'s scopes, with a CPU-bound process beside the test (issue 33).

A `python3 -c 'while True: pass'` loop runs for the whole test; it is
killed on every path (finally), and every netab's exit status is checked.

1. The test's scope (the default), against Debian's perf on the same
   window: `netab run -t 3 -O 2 --profile --json` on loopback, and
   `perf record --per-thread -p NETAB -g -e cpu-clock -F 997 -k monotonic`
   started 1 s into netab's warm-up (-O 2), so that it attaches to every
   thread of the test (both ends, in-process) before the window opens;
   perf report keeps only netab's window (--time from monotonic_start).
   - python's share of the samples is at most 2% (its module is not the
     test's: only other tasks' softirq work on the test's CPUs is kept,
     and that is [kernel]);
   - no idle-loop function (safe_halt, default_idle, cpu_idle, do_idle,
     ...) is among the listed functions: the idle task is the idle share;
   - at least one of netab's own functions is named (module netab), and
     `[unknown]` (a symbol no mapping or symbol table names) holds at most
     1% of the samples;
   - the scope is "test" in the JSON and in the text output;
   - the counts: netab's own samples (its samples less the other tasks'
     softirq work) are at least 80% of what perf's per-thread sampler got
     in the same window at netab's frequency, and at most 120% (the
     existing profile test's lower bound; the upper one is perf's count,
     not a nominal frequency x CPUs, since per-task events sample only
     while a thread runs, and two timers overrun differently);
   - each of perf's five busiest kernel functions with at least 2% of its
     samples is in netab's list within 6 points or 35% of perf's share (the
     profile test's tolerance: two samplers on two timers in a VM without
     NMIs do not take the same samples).
2. The system's scope: `--profile-scope system` on the same loopback test:
   python's share is at least 10% (it has a CPU of its own for much of the
   window on this 2-CPU machine), and still no idle-loop function listed.
   A tiny C++ program (g++, in the test's directory) that starts 0.8 s
   into the run and spins in `ns::Cls::method(int)` for 1.2 s, so it
   exits before the window closes and has no /proc/PID/maps left when the
   profile is named: its samples are named from the MMAP2 records taken
   while sampling, demangled, in module `cxxprog`.
3. Several events: `--profile=cycles,instructions,L1-icache-load-misses`
   runs (exit 0) with a profile. Where there is no PMU (this VM) it is of
   cpu-clock and its note says, in one sentence, that the events could
   not be sampled and why; where there is one (not verified here) it is
   of cycles, with instructions and L1-icache misses counted in its group.
4. `netab compare --profile` of two variants (`-l 128K` against `-l 1K`, 2
   runs each, 1 s) while the loop runs: every function among the
   differential profile's changes is the test's, in module [kernel],
   netab or one of the libraries `ldd` lists for it; none is python's.
"""
import os
import re
import shutil
import tempfile
import time

from netab_helpers import (TestSkip, check, log, need_tools, netab_cmd, netab_run, parse_one_json,
                           run_cmd, run_main, start)

IDLE = re.compile(r"safe_halt|default_idle|cpu_idle|do_idle|intel_idle|acpi_idle|poll_idle|"
                  r"mwait_idle|cpuidle_enter")


def python_share(p):
    """The share (%) of samples in python's own code: any module named python*."""
    full = p["full"]["functions"]
    n = sum(c for mod, fns in full.items() if "python" in mod.lower() for c in fns.values())
    return 100.0 * n / p["samples"] if p["samples"] else 0.0


def unknown_share(p):
    """The share (%) of samples whose symbol is [unknown], in any module."""
    full = p["full"]["functions"]
    n = sum(fns.get("[unknown]", 0) for fns in full.values())
    return 100.0 * n / p["samples"] if p["samples"] else 0.0


CXX = r"""
#include <chrono>
#include <cstdlib>
namespace ns {
struct Cls {
    __attribute__((noinline)) unsigned long method(int n);
};
unsigned long Cls::method(int n)
{
    volatile unsigned long x = 0;
    for (int i = 0; i < n; i++)
        x = x + i;
    return x;
}
}
int main(int argc, char **argv)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::atof(argv[1]));
    ns::Cls c;
    unsigned long s = 0;
    while (std::chrono::steady_clock::now() < end)
        s += c.method(100000);
    return (int)(s & 1);
}
"""


def build_cxx(tmp):
    src, exe = os.path.join(tmp, "cxxprog.cc"), os.path.join(tmp, "cxxprog")
    with open(src, "w") as f:
        f.write(CXX)
    run_cmd(["g++", "-O1", "-o", exe, src], timeout=120)
    return exe


def common(p, scope):
    check(p.get("why") is None, f"{scope}: as root there is a profile", p.get("why"))
    check(p["scope"] == scope, f"{scope}: the JSON records the scope", p.get("scope"))
    idle = [f["symbol"] for f in p["functions"] if IDLE.search(f["symbol"])]
    check(not idle, f"{scope}: no idle-loop function among the listed functions", idle)
    check(isinstance(p["idle_pct"], (int, float)) and 0 <= p["idle_pct"] <= 100,
          f"{scope}: an idle share", p["idle_pct"])


def perf_kernel_top(report):
    out = []
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+\[k\]\s+(\S+)", line)
        if m:
            out.append((m.group(2), float(m.group(1))))
    return out


def against_perf(netab, tmp):
    data = os.path.join(tmp, "perf.data")
    run = start([netab, "run", "-t", "3", "-O", "2", "--profile", "--json", "-i", "0"])
    perf = None
    try:
        # Within the warm-up, after the test's threads have started: perf -p follows only the
        # threads there are when it attaches. An ASan build starts them ~0.5 s in (the profile
        # reads kallsyms first), and perf then missed half of netab's samples at 0.4 s.
        time.sleep(1.0)
        perf = start(["perf", "record", "--per-thread", "-p", str(run.pid), "-g", "-e",
                      "cpu-clock", "-F", "997", "-k", "monotonic", "-T", "-q", "-o", data])
        r = run.finish(timeout=60)
        perf.finish(timeout=60)  # perf -p ends when the process it follows does
    finally:
        for proc in (run, perf):
            if proc is not None and not proc.checked:
                proc.abandon()
    p = parse_one_json(r.stdout)["end"]["profile"]["local"]
    common(p, "test")
    py = python_share(p)
    log(f"test scope: {p['samples']} samples ({p['kernel_work_samples']} other tasks' softirq "
        f"work, {p['other_samples']} other tasks' samples left out), idle {p['idle_pct']:.1f}%, "
        f"python {py:.2f}%")
    check(py <= 2.0, "test scope: python's share is at most 2%", py)
    own = [f for f in p["full"]["functions"].get("netab", {}) if f != "[unknown]"]
    check(own, "test scope: at least one of netab's own functions is named", own)
    unk = unknown_share(p)
    log(f"test scope: [unknown] {unk:.2f}% of the samples")
    check(unk <= 1.0, "test scope: [unknown] holds at most 1% of the samples", unk)
    window = "%.6f,%.6f" % (p["monotonic_start"], p["monotonic_start"] + p["seconds"])
    lines = run_cmd(["perf", "script", "-i", data, "-F", "pid", "--time", window],
                    timeout=60).stdout.split()
    delivered = sum(1 for x in lines if x.strip() == str(run.pid)) * p["frequency"] / 997.0
    mine = p["samples"] - p["kernel_work_samples"]
    log(f"netab's own samples {mine}, perf's per-thread samples at netab's frequency "
        f"{delivered:.0f}")
    check(delivered > 0 and 0.8 * delivered <= mine <= 1.2 * delivered,
          "test scope: netab's own samples within 80%..120% of perf's per-thread count",
          mine, delivered)
    rep = run_cmd(["perf", "report", "-i", data, "--stdio", "--sort", "sym", "--no-children",
                   "-g", "none", "-q", "--time", window], timeout=60).stdout
    top = [(s, pct) for s, pct in perf_kernel_top(rep)[:5] if pct >= 2.0]
    ours = {f["symbol"]: f["share_pct"] for f in p["functions"] if f["module"] == "[kernel]"}
    check(len(top) >= 2, "perf names at least two kernel functions over 2%", top)
    for sym, pct in top:
        got = ours.get(sym)
        log(f"  {sym}: perf {pct:.2f}%, netab {got if got is None else round(got, 2)}%")
        check(got is not None and abs(got - pct) <= max(6.0, 0.35 * pct),
              f"{sym}: netab's share is perf's within 6 points or 35%", got, pct)


def system_scope(netab, cxx):
    run = start([netab, "run", "-t", "3", "--profile", "--profile-scope", "system", "--json",
                 "-i", "0"])
    prog = None
    try:
        time.sleep(0.8)  # the profile is open: the program's start is in its records
        prog = start([cxx, "1.2"])
        prog.finish(timeout=30)
        check(run.alive(), "the C++ program exited before the run ended")
        r = run.finish(timeout=60)
    finally:
        for proc in (run, prog):
            if proc is not None and not proc.checked:
                proc.abandon()
    p = parse_one_json(r.stdout)["end"]["profile"]["local"]
    common(p, "system")
    py = python_share(p)
    log(f"system scope: {p['samples']} samples, idle {p['idle_samples']} "
        f"({p['idle_pct']:.1f}%), python {py:.1f}%")
    check(py >= 10.0, "system scope: python's share is at least 10%", py)
    mine = p["full"]["functions"].get("cxxprog", {})
    log(f"system scope: the exited C++ program's functions {mine}, [unknown] "
        f"{unknown_share(p):.2f}%")
    check("ns::Cls::method(int)" in mine,
          "system scope: the exited C++ program's function is named, demangled", mine)


def text_scope(netab):
    out = run_cmd([netab, "run", "-t", "0.5", "--profile", "-i", "0"], timeout=60).stdout
    check(re.search(r"^  scope test: .*; idle [0-9.]+%$", out, re.M),
          "the text output prints the scope and the idle share", out[-600:])


def several_events(netab):
    events = "cycles,instructions,L1-icache-load-misses"
    p = parse_one_json(netab_run(netab, ["-t", "0.5", "--profile=" + events, "-i", "0"],
                                 timeout=60).stdout)["end"]["profile"]["local"]
    note = p.get("note") or ""
    log(f"--profile={events}: event {p.get('event')}, note {note!r}")
    check(p.get("why") is None and p["samples"] > 0, "several events: the run has a profile", p)
    if p["event"] == "cpu-clock":
        check(note.startswith(events + ": ") and note.endswith("; sampled cpu-clock instead") and
              "PMU" in note, "without a PMU the note says so in one sentence", note)
    else:
        check(p["event"] == "cycles" and p["group"]["events"] == events.split(","),
              "with a PMU the first event samples and the others count in its group", p)


def test_modules(netab):
    """The modules netab's own code can be in: the program and the libraries it loads."""
    mods = {"[kernel]", os.path.basename(netab)}
    for line in run_cmd(["ldd", netab], timeout=30).stdout.splitlines():
        parts = line.split()
        if parts:
            path = parts[2] if len(parts) > 2 and parts[1] == "=>" else parts[0]
            # A module is named by the file mapped (libasan.so.8.0.0), ldd by the soname's link.
            mods.add(os.path.basename(path))
            mods.add(os.path.basename(os.path.realpath(path)))
    return mods


def compare_beside_loop(netab, tmp):
    """netab compare --profile of two variants while the python loop runs: every change of the
    differential profile is the test's (kernel work, netab and its libraries), none python's."""
    cmp = ["compare", "--db", os.path.join(tmp, "c.db"), "--runs", "2", "--warmup", "0",
           "--seed", "5", "--json", "--variant", "big", "--opts", "-l 128K", "--variant",
           "small", "--opts", "-l 1K", "--", "-t", "1", "--profile", "-i", "0"]
    doc = parse_one_json(netab_cmd(netab, *cmp, expect_rc=(0, 1), timeout=180).stdout)
    pd = doc["profile_diffs"]
    check(len(pd) == 1 and pd[0]["functions"], "compare --profile has a differential profile", pd)
    ours = test_modules(netab)
    rows = [(r["symbol"], r["module"], r["verdict"]) for r in pd[0]["functions"]]
    log(f"compare beside python: {len(rows)} changes, modules "
        f"{sorted(set(m for _, m, _ in rows))}")
    foreign = [r for r in rows if r[1] not in ours or "python" in r[1].lower()]
    check(not foreign, "no python or other non-test function among the changes", foreign, ours)


def body(netab):
    if os.geteuid() != 0:
        raise TestSkip("needs root to sample system-wide and to attach perf (CI runs as root)")
    need_tools("perf", "python3", "g++")
    tmp = tempfile.mkdtemp(prefix="netab-profile-scope-")
    loop = start(["python3", "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        check(loop.alive(), "the CPU-bound python loop runs")
        cxx = build_cxx(tmp)
        against_perf(netab, tmp)
        system_scope(netab, cxx)
        text_scope(netab)
        several_events(netab)
        compare_beside_loop(netab, tmp)
    finally:
        loop.abandon()  # kills it, on every path
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
