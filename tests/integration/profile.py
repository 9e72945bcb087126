#!/usr/bin/env python3
"""`netab run --profile` against Debian's perf, the reference profiler.

1. Reference: `perf record -C 0 -k monotonic -e cpu-clock -F 997` runs
   around `netab run --profile --profile-scope system -t 3 -l 128K -A 0,0`
   on loopback (the system's scope samples the CPU as perf -C does; the
   test's scope is held against `perf record -p` in profile_scope.py), so both
   sample CPU 0 with the same event while both ends keep it busy, perf at
   997 Hz to netab's 999 so that neither timer stays in step with the
   other (the phase between them sweeps the period six times a run); perf report keeps only the samples of netab's window (--time from
   end.profile.local.monotonic_start, perf recording with -k monotonic).
   Each of perf's five busiest kernel functions (perf report, --sort sym)
   with at least 2% of perf's samples is in netab's list with a share
   within 6 points or 35% of perf's, and together they hold the same share
   in both within 5 points. Two samplers on two timers do not take the
   same samples: in a VM without NMIs a timer cannot fire while interrupts
   are off, and the samples of those stretches land on whatever re-enables
   them. On a CPU that idles it is worse: each sampler's own timer wakes
   the CPU from halt, so its own samples land in pv_native_safe_halt and
   the other's in the wake-up path. Unpinned, over both CPUs, the two
   disagreed by up to 9 points on the halt and 7.5 on _copy_to_iter (14.05
   vs 6.52 in a CI run; 6.9 vs 12.7 on _copy_from_iter here); pinned to
   one busy CPU, 7 of 7 runs (4 ASan, 3 release) agreed within 2.6 points
   on every function of the five, but one of 20 in step at 999 Hz (the
   phase between the timers fixed for the run) disagreed by 7 points on
   handle_softirqs, the work one sampler's interrupt sets off where the
   other samples; out of step 8 of 8 ASan runs agreed within 2.6 points.
   A function netab names wrongly or misses is far outside that. netab's
   total (its samples and the idle task's, which are the idle share) is
   within 10% of frequency x window x CPUs and it names at least 20
   functions.
   The full profile (end.profile.local.full, what the store keeps): its
   rows' samples plus what its budget left out plus the unattributed ones
   add up to the total exactly, its rows and omitted functions to
   distinct_functions, every top function has its samples there; and of
   perf's kernel functions with at least 0.2% of the window's samples that
   are not among netab's top 30 (at least 3 must be), 80% or more have
   samples in the full list (a function of 0.2% of ~3000 samples expects
   6, and misses netab's list by chance 0.25% of the time; with 0.1%,
   3 samples, 5%, and runs found 85% of them: two samplers differ on a few
   of them, a list cut at 30 misses all).
2. Block size moves the profile: with -l 128K the copy functions
   (_copy_from_iter, _copy_to_iter) are a larger share of the kernel
   samples, relative to per-call work (syscall entry, tcp_sendmsg_locked,
   ...), than with -l 1K, pinned on CPU 0 (-A 0,0) so other work on the
   machine weighs less.
3. Against a netab server in another namespace (-A 0,1): both ends'
   profiles arrive (the server's through the protocol, its full list too),
   each of one CPU, each full list adding up to its total.
4. As nobody (setpriv), where system-wide sampling needs
   perf_event_paranoid <= 0: the run exits 0 and the profile says why
   there is none; the same with perf_event_paranoid set to 3 for the test.
"""
import os
import re
import shutil
import stat
import tempfile

from netab_helpers import (NetnsPair, Server, check, log, need_tools, netab_run, parse_one_json,
                           require_root_netns, run_cmd, run_main)

PER_CALL = ("entry_SYSCALL_64", "do_syscall_64", "syscall_exit_to_user_mode", "tcp_sendmsg_locked",
            "tcp_sendmsg", "tcp_recvmsg_locked", "tcp_recvmsg", "__sys_sendto", "__sys_recvfrom",
            "sock_sendmsg", "sock_recvmsg", "inet_sendmsg", "inet_recvmsg", "fdget", "__fget_light",
            "__check_object_size", "ksys_write", "ksys_read", "vfs_write", "vfs_read",
            "__x64_sys_write", "__x64_sys_read", "__x64_sys_sendto", "__x64_sys_recvfrom",
            "sock_write_iter", "sock_read_iter", "tcp_push", "__tcp_push_pending_frames",
            "tcp_rcv_space_adjust", "tcp_cleanup_rbuf", "lock_sock_nested", "release_sock")
COPY = ("_copy_from_iter", "_copy_to_iter", "copy_user_enhanced_fast_string",
        "copy_user_generic_string", "rep_movs_alternative")


def profile_of(doc, side="local"):
    p = doc["end"]["profile"][side]
    check(isinstance(p, dict), f"end.profile.{side} is an object", p)
    return p


def kernel_shares(p):
    return {f["symbol"]: f["share_pct"] for f in p["functions"] if f["module"] == "[kernel]"}


def check_full(p, what):
    """The full list adds up: rows + omitted + unattributed = samples; rows + omitted = distinct."""
    full = p["full"]
    rows = [(mod, sym, n) for mod, fns in full["functions"].items() for sym, n in fns.items()]
    total = sum(n for _, _, n in rows) + full["omitted_samples"] + p["unattributed"]
    log(f"{what}: full profile {len(rows)} functions, {total} of {p['samples']} samples, "
        f"{full['omitted_functions']} functions omitted")
    check(total == p["samples"], f"{what}: the full profile's samples add up to the total",
          total, p["samples"])
    check(len(rows) + full["omitted_functions"] == p["distinct_functions"],
          f"{what}: the full profile lists every function", len(rows), p["distinct_functions"])
    check(all(n > 0 for _, _, n in rows), f"{what}: every row has samples", rows[:5])
    for f in p["functions"]:
        got = full["functions"].get(f["module"], {}).get(f["symbol"])
        check(got == f["samples"], f"{what}: {f['symbol']} has its samples in the full list",
              got, f["samples"])


def perf_kernel_top(report):
    """perf report --stdio --sort sym lines '  11.77%  [k] _copy_to_iter' -> [(sym, pct)]."""
    out = []
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+\[k\]\s+(\S+)", line)
        if m:
            out.append((m.group(2), float(m.group(1))))
    return out


def against_perf(netab, tmp):
    need_tools("perf")
    data = os.path.join(tmp, "perf.data")
    r = run_cmd(["perf", "record", "-C", "0", "-k", "monotonic", "-e", "cpu-clock", "-F", "997",
                 "-o", data, "--",
                 netab, "run", "-t", "3", "-l", "128K", "-A", "0,0", "--profile",
                 "--profile-scope", "system", "--json", "-i", "0"], timeout=120)
    doc = parse_one_json(r.stdout)
    check(doc["error"] is None, "the profiled run succeeds", doc["error"])
    p = profile_of(doc)
    check(p.get("why") is None, "as root there is a profile", p.get("why"))
    check(p["scope"] == "system", "--profile-scope system is recorded", p["scope"])
    check(p["cpus"] == [0], "-A 0,0: netab samples CPU 0, the CPU perf samples", p["cpus"])
    expect = p["frequency"] * p["seconds"] * len(p["cpus"])
    log(f"netab: {p['samples']} samples, expected {expect:.0f}; {p['distinct_functions']} "
        f"functions; lost {p['lost']}")
    check(p["distinct_functions"] >= 20, "at least 20 functions have samples",
          p["distinct_functions"])
    check(p["lost"] == 0, "no sample lost", p["lost"])
    # How many samples a timer-driven sampler gets is the kernel's to say: in a VM a vCPU the
    # host did not run misses its ticks (hrtimer overruns count once), and CI saw 5387 and then
    # 4432 of a nominal 6002. So netab's count is held against what the kernel delivered to
    # perf's own cpu-clock sampler (the same timers) on netab's CPUs in netab's window; against
    # the nominal frequency x window x CPUs only as bounds: never more than 10% over it (that
    # would be samples counted twice), never under half. Measured on this VM while its host was
    # busy: netab/perf 3786/3443, 4971/4308, 5306/5296, 5881/5864; the two samplers' overruns
    # fall differently (up to +15% seen), so netab must have at least 80% of perf's count
    # (samples missed); more than perf is bounded by the nominal 110% below (samples counted
    # twice), since a host that steals the vCPU makes perf miss ticks netab got.
    window = "%.6f,%.6f" % (p["monotonic_start"], p["monotonic_start"] + p["seconds"])
    cpus = {int(c) for c in p["cpus"]}
    lines = run_cmd(["perf", "script", "-i", data, "-F", "cpu", "--time", window],
                    timeout=120).stdout.split()
    delivered = sum(1 for x in lines if x.strip("[]").isdigit() and int(x.strip("[]")) in cpus)
    delivered *= p["frequency"] / 997.0  # perf sampled at 997 Hz
    log(f"perf's samples on netab's CPUs in its window, at netab's frequency: {delivered:.0f}")
    # The idle task's samples are the idle share, not among the profile's samples.
    taken = p["samples"] + p["idle_samples"]
    check(delivered > 0 and taken >= 0.8 * delivered,
          "samples at least 80% of what the kernel delivered to perf in the same window",
          taken, delivered)
    check(0.5 * expect <= taken <= 1.1 * expect,
          "samples between half and 110% of frequency x window x CPUs", taken, expect)
    # perf's samples of netab's window only: not netab's start-up and exit around it.
    rep = run_cmd(["perf", "report", "-i", data, "--stdio", "--sort", "sym", "--no-children",
                   "-q", "--time", window], timeout=120).stdout
    top = [(s, pct) for s, pct in perf_kernel_top(rep)[:5] if pct >= 2.0]
    ours = kernel_shares(p)
    check(len(top) >= 2, "perf names at least two kernel functions over 2%", top)
    for sym, pct in top:
        got = ours.get(sym)
        log(f"  {sym}: perf {pct:.2f}%, netab {got if got is None else round(got, 2)}%")
        check(got is not None and abs(got - pct) <= max(6.0, 0.35 * pct),
              f"{sym}: netab's share is perf's within 6 points or 35%", got, pct)
    both = sum(pct for _, pct in top), sum(ours[sym] for sym, _ in top)
    check(abs(both[0] - both[1]) <= 5.0,
          "perf's busiest kernel functions hold the same share of netab's samples within 5 points",
          both)
    check_full(p, "local")
    listed = {f["symbol"] for f in p["functions"]}
    kernel = p["full"]["functions"].get("[kernel]", {})
    beyond = [sym for sym, pct in perf_kernel_top(rep) if pct >= 0.2 and sym not in listed
              and not sym.startswith("0x")]
    found = [sym for sym in beyond if kernel.get(sym, 0) > 0]
    log(f"perf's kernel functions of >= 0.2% beyond netab's top 30: {len(beyond)}, "
        f"{len(found)} in netab's full list")
    check(len(beyond) >= 3, "perf names kernel functions beyond netab's top 30", beyond)
    check(len(found) >= 0.8 * len(beyond),
          "netab's full profile has perf's kernel functions beyond its top 30",
          sorted(set(beyond) - set(found)))


def block_sizes(netab):
    ratio = {}
    for size in ("128K", "1K"):
        doc = parse_one_json(netab_run(netab, ["-t", "3", "-l", size, "-A", "0,0", "--profile",
                                               "-i", "0"], timeout=60).stdout)
        p = profile_of(doc)
        check(p["cpus"] == [0], f"-A 0,0: the profile samples CPU 0 only ({size})", p["cpus"])
        k = kernel_shares(p)
        copy = sum(v for s, v in k.items() if s in COPY)
        call = sum(v for s, v in k.items() if s in PER_CALL)
        log(f"-l {size}: copy {copy:.1f}%, per-call {call:.1f}% of all samples")
        check(copy > 0, f"-l {size}: the copy functions are in the profile", k)
        ratio[size] = call / copy
    check(ratio["1K"] > ratio["128K"],
          "per-call work relative to copying grows from -l 128K to -l 1K", ratio)


def remote_end(netab):
    require_root_netns()
    with NetnsPair("prof") as pair, Server(netab, netns=pair.ns_b, bind=pair.addr_b) as srv:
        doc = parse_one_json(netab_run(netab, ["-c", pair.addr_b, "-p", str(srv.port), "-t", "2",
                                               "-A", "0,1", "--profile"],
                                       netns=pair.ns_a, timeout=60).stdout)
        for side, cpu in (("local", 0), ("remote", 1)):
            p = profile_of(doc, side)
            check(p.get("why") is None and p["cpus"] == [cpu] and p["samples"] > 0,
                  f"{side}: a profile of CPU {cpu}", p)
            check(any(f["module"] == "[kernel]" for f in p["functions"]),
                  f"{side}: kernel functions named", p["functions"][:3])
            check_full(p, side)


def unprivileged(netab, tmp):
    need_tools("setpriv")
    # A copy nobody can reach: the build directory may sit where nobody cannot.
    os.chmod(tmp, 0o755)
    exe = os.path.join(tmp, "netab")
    shutil.copy(netab, exe)
    os.chmod(exe, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    path = "/proc/sys/kernel/perf_event_paranoid"
    with open(path) as f:
        before = f.read().strip()
    try:
        for level in (before, "3"):
            with open(path, "w") as f:
                f.write(level)
            r = run_cmd(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                         "--", exe, "run", "-t", "1", "--profile", "--json", "-i", "0"],
                        timeout=60)
            doc = parse_one_json(r.stdout)
            check(doc["error"] is None and doc["end"]["receiver"]["bytes"] > 0,
                  f"paranoid {level}: as nobody the run succeeds", doc["error"])
            p = profile_of(doc)
            why = p.get("why") or ""
            log(f"paranoid {level}: {why}")
            check(f"perf_event_paranoid={level}" in why and "samples" not in p,
                  f"paranoid {level}: no profile, and it says why", p)
    finally:
        with open(path, "w") as f:
            f.write(before)


def body(netab):
    if os.geteuid() != 0:
        from netab_helpers import TestSkip
        raise TestSkip("needs root to sample system-wide and to act as nobody (CI runs as root)")
    tmp = tempfile.mkdtemp(prefix="netab-profile-")
    try:
        against_perf(netab, tmp)
        block_sizes(netab)
        remote_end(netab)
        unprivileged(netab, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
