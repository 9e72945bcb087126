#!/usr/bin/env python3
"""Latency under load (`netab run --test rrul`, issue 31; docs/rrul.md) on loopback.

Against the in-process server and a separate `netab server`: each phase holds
probe rate x its length probes (within one: the schedule is absolute), every
probe is either answered or lost and none is lost on loopback, the load's
throughput is above 0 in the loaded phase only and in the directions asked
for, the TCP probe answered in every phase, RPM lies in its interval, the
intervals carry their phase, one-way delays are there (both ends on this host
read one clock: the server's "accept" says so) and add up to the round trip,
and `--db` stores the document with end.rrul.
Options that make no sense with the test are refused by name with exit 2.

Failures: a server whose --max-clients refuses one of the three sessions (the
load, or the TCP probe) ends the run at once with exit 1 naming the refusal;
a server killed mid-run ends it with an error; an rrul client killed mid-run
leaves the server with the open fds it had before, serving the next run, and
the server counts the run's three sessions against --max-clients. No
wall-clock thresholds as performance checks: the time bounds below are hang
bounds, a fraction of the run's length that a stopped run never approaches.
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h
from netab_helpers import fd_count, wait_fds  # noqa: E402

PHASES = ("idle", "loaded", "recovery")


def check_doc(c, label, doc, rate, load="both"):
    c.check(doc is not None and h.field(doc, "test.kind", str) == "rrul"
            and h.field(doc, "test.test", str) == "rrul", f"{label}: test.kind and test.test are rrul")
    c.check(h.field(doc, "test.streams", int) == h.field(doc, "end.rrul.load_flows", int),
            f"{label}: test describes the load's flows")
    r = h.field(h.end_of(doc), "rrul", dict)
    c.check(r.get("load") == load and r.get("probe_rate") == rate,
            f"{label}: load and probe_rate echoed", f"{r.get('load')} {r.get('probe_rate')}")
    for name in PHASES:
        p = h.field(r, name, dict)
        start, end = h.field(r, f"phases.{name}", list)
        want = rate * (end - start)
        sent, got, lost = p["probes_sent"], p["probes_received"], p["probes_lost"]
        # A phase's bounds are the load's measured window, and a probe counts where it was
        # really sent: one more or fewer at each end, and a few ms of send delay that differs
        # between the two ends (seen: 101 in a window of 0.99999 s at 100/s).
        c.check(abs(sent - want) <= 1 + rate * 0.005,
                f"{label} {name}: probes_sent = rate x length (+-1, and 5 ms of send delay)",
                f"sent={sent} want={want:.5f}")
        c.check(got + lost == sent, f"{label} {name}: received + lost == sent",
                f"{got} + {lost} vs {sent}")
        c.check(lost == 0 and p["loss_percent"] == 0, f"{label} {name}: no probe lost on loopback",
                f"lost={lost}")
        c.check(p["p50_us"] is not None and 0 < p["p50_us"] <= p["p99_us"] <= p["max_us"],
                f"{label} {name}: 0 < p50 <= p99 <= max", f"{p['p50_us']} {p['p99_us']}")
        c.check(p["tcp_transactions_per_second"] > 0 and p["tcp_p50_us"] > 0,
                f"{label} {name}: the TCP probe answered")
        up, down = p["up_bits_per_second"], p["down_bits_per_second"]
        if name == "loaded":
            c.check((up > 0) == (load in ("up", "both")) and (down > 0) == (load in ("down", "both")),
                    f"{label} loaded: load throughput > 0 exactly in the directions asked",
                    f"up={up:.0f} down={down:.0f}")
            c.check(p["load_srtt_us"] is None or p["load_srtt_us"] > 0,
                    f"{label} loaded: load_srtt_us positive or null")
        else:
            c.check(up == 0 and down == 0, f"{label} {name}: no load outside the loaded phase",
                    f"up={up} down={down}")
    c.check(r["rpm"] is not None and r["rpm_ci_low"] <= r["rpm"] <= r["rpm_ci_high"],
            f"{label}: rpm within its interval",
            f"{r['rpm_ci_low']} <= {r['rpm']} <= {r['rpm_ci_high']}")
    inc = h.field(r, "increase", dict)
    c.check(abs(inc["p50_us"] - (r["loaded"]["p50_us"] - r["idle"]["p50_us"])) < 1e-6,
            f"{label}: increase.p50_us = loaded p50 - idle p50")
    ow = h.field(r, "one_way", dict)
    c.check(ow.get("available") is True and "same host: boot id" in (ow.get("reason") or "")
            and ow.get("clock") == "CLOCK_MONOTONIC" and ow.get("error_bound_us") is None,
            f"{label}: one-way delay available, the reason says one host's one clock",
            str(ow))
    for name in PHASES:
        d, rtt = h.field(ow, name, dict), r[name]
        up, down = d.get("up_p50_us"), d.get("down_p50_us")
        c.check(h.is_num(up) and h.is_num(down) and 0 <= up <= rtt["max_us"]
                and 0 <= down <= rtt["max_us"],
                f"{label} {name}: one-way p50 up and down each >= 0 and <= the round trip's max",
                f"up {up} down {down} rtt max {rtt['max_us']}")
        # Each probe's up + down is its round trip (down holds the server's turnaround), so the
        # medians' sum is near the round trips' median; medians do not add exactly, and on
        # loopback under load one scheduling delay is as large as the figure: loose bounds.
        if h.is_num(up) and h.is_num(down):
            c.check(abs(up + down - rtt["p50_us"]) <= 0.5 * rtt["p50_us"] + 50,
                    f"{label} {name}: up p50 + down p50 = round-trip p50 (+-50% + 50 us)",
                    f"{up:.1f} + {down:.1f} vs {rtt['p50_us']:.1f}")
    ivs = [iv.get("rrul") for iv in h.field(doc, "intervals", list)]
    seen = {iv["phase"] for iv in ivs if iv}
    c.check(all(ivs) and seen == set(PHASES), f"{label}: every interval has rrul, all phases seen",
            str(sorted(seen)))


def refusals(c, netab):
    bad = [
        (["-u"], "-u"),
        (["--flows", "4"], "--flows"),
        (["-n", "1M"], "-n"),
        (["-P", "2"], "-P"),
        (["-R"], "-R"),
        (["-c", "127.0.0.1", "--iperf3"], "--iperf3"),
        (["--probe-rate", "0"], "--probe-rate"),
        (["--probe-rate", "1e6"], "--probe-rate"),
        (["--load-flows", "0"], "--load-flows"),
        (["--load", "sideways"], "--load"),
    ]
    for extra, name in bad:
        r = h.netab_cmd(netab, "run", "--test", "rrul", *extra, expect_rc=2)
        c.check(name in r.stderr, f"--test rrul {' '.join(extra)}: refused naming {name}",
                r.stderr.strip()[:200])
    r = h.netab_cmd(netab, "run", "--probe-rate", "50", expect_rc=2)
    c.check("--test rrul" in r.stderr, "--probe-rate without --test rrul: refused",
            r.stderr.strip()[:200])


# A long loaded phase: a run that stops at the first failure ends far before it.
LONG = 30
WHOLE = 2 + LONG + 2  # idle + loaded + recovery


def refused_session(c, netab):
    """--max-clients 2 refuses the load (the third session), 1 the TCP probe: the run stops."""
    # With one client allowed, either probe's session may be the one refused.
    for limit, part in ((2, "the load failed"), (1, "probe")):
        with h.Server(netab, extra=["--max-clients", str(limit)]) as srv:
            t0 = time.monotonic()
            r = h.netab_cmd(netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "--test", "rrul",
                            "-t", str(LONG), "--load-flows", "1", expect_rc=1, timeout=WHOLE)
            took = time.monotonic() - t0
            c.check(took < WHOLE / 2, f"--max-clients {limit}: the run stops at the refusal",
                    f"{took:.1f} s of {WHOLE} s")
            want = f"server is busy: {limit} tests running, its maximum (--max-clients {limit})"
            c.check(part in r.stderr and want in r.stderr,
                    f"--max-clients {limit}: the error names the refused part and the limit",
                    r.stderr.strip()[-300:])


def server_conns(port):
    """The TCP connections established to port (server side): controls, the TCP probe, load."""
    n = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                n += int(local.rsplit(":", 1)[1], 16) == port and state == "01"
    return n


def wait_loaded(c, label, srv, p):
    """Waits until the server holds the loaded phase's connections (all three sessions run)."""
    # 3 control connections, the TCP probe's, 1 load flow each way; the idle phase has 3.
    want = 6
    deadline = time.monotonic() + 20
    while server_conns(srv.port) < want and time.monotonic() < deadline and p.alive():
        time.sleep(0.05)
    c.check(server_conns(srv.port) >= want, f"{label}: the run reaches its loaded phase",
            f"{server_conns(srv.port)} connections")


def killed_server(c, netab):
    """A server killed with SIGKILL in the loaded phase: the client ends at once with an error."""
    srv = h.Server(netab).start()
    try:
        p = h.start([netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "--test", "rrul",
                     "-t", str(LONG), "--load-flows", "1", "--idle-timeout", "5000"])
        wait_loaded(c, "killed server", srv, p)
        srv.proc.kill_group(signal.SIGKILL)
        srv.proc.finish(expect_rc=-signal.SIGKILL)
        t0 = time.monotonic()
        # Within its idle timeout (5 s) and a margin, far before the run's end.
        r = p.finish(expect_rc=1, timeout=15)
        took = time.monotonic() - t0
        c.check(took < 15, "killed server: the client ends within its idle timeout",
                f"{took:.1f} s")
        c.check("error:" in r.stderr and "failed" in r.stderr and "server" in r.stderr,
                "killed server: the error names the failed part and the server",
                r.stderr.strip()[-300:])
    finally:
        srv.stop()


def killed_client(c, netab):
    """An rrul client killed mid-run: its three sessions counted, then all freed."""
    with h.Server(netab, extra=["--max-clients", "3"]) as srv:
        pid, fds0 = srv.pid(), fd_count(srv.pid())
        p = h.start([netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "--test", "rrul",
                     "-t", str(LONG), "--load-flows", "1"])
        wait_loaded(c, "killed client", srv, p)
        r = h.netab_cmd(netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "--test", "tcp_rr",
                        "-t", "1", expect_rc=1)
        c.check("3 tests running, its maximum (--max-clients 3)" in r.stderr,
                "the rrul run's three sessions count against --max-clients",
                r.stderr.strip()[-300:])
        p.kill_group(signal.SIGKILL)
        p.finish(expect_rc=-signal.SIGKILL, timeout=10)
        c.check(wait_fds(pid, fds0), "killed client: the server's fds return to their count",
                f"{fd_count(pid)} fds, {fds0} before")
        c.check(srv.alive(), "killed client: the server still runs")
        rc, doc, err = h.run_against(netab, srv, ["--test", "rrul", "-t", "1", "--load-flows",
                                                  "1", "--load", "up", "-i", "1",
                                                  "--rrul-phases", "1,1"])
        check_doc(c, "after a killed client", doc, 100.0, load="up")


def test(netab, c):
    refusals(c, netab)
    refused_session(c, netab)
    killed_server(c, netab)
    killed_client(c, netab)
    # 1. The in-process server, both directions, with intervals, the default phases (2 s each);
    # the runs below take --rrul-phases 1,1 (or 1,0.5) for CI's time.
    rc, doc, err = h.run_netab(netab, ["--test", "rrul", "-t", "2", "--load-flows", "2",
                                       "-i", "0.5"])
    check_doc(c, "loopback", doc, 100.0)
    # 2. One direction each, another probe rate; --plot draws the round trips and the load.
    svg = os.path.join(h.WORK_DIR, "rrul.svg")
    rc, doc, err = h.run_netab(netab, ["--test", "rrul", "-t", "1", "--load-flows", "1",
                                       "--load", "up", "--probe-rate", "50", "-i", "1",
                                       "--plot", svg, "--rrul-phases", "1,1"])
    check_doc(c, "--load up", doc, 50.0, load="up")
    with open(svg) as f:
        text = f.read()
    c.check("probes p50" in text or "<svg" in text, "--plot: the figure is written", svg)
    # 3. A separate netab server: its sessions, its limits (4 clients: the test takes 3).
    with h.Server(netab) as srv:
        rc, doc, err = h.run_against(netab, srv, ["--test", "rrul", "-t", "1", "--load-flows",
                                                  "1", "--load", "down", "-i", "1",
                                                  "--rrul-phases", "1,0.5"])
        # Another process on this host: the server names its clock in "accept" (boot id).
        check_doc(c, "netab server", doc, 100.0, load="down")
    # 4. Text: the phases' table, the increase and RPM; --db keeps end.rrul.
    db = os.path.join(h.WORK_DIR, "rrul.db")
    r = h.netab_cmd(netab, "run", "--test", "rrul", "-t", "1", "--load-flows", "1", "-i", "0",
                    "--db", db, "--rrul-phases", "1,1")
    for needle in ("rrul with", "loaded", "recovery", "idle -> loaded", "RPM"):
        c.check(needle in r.stdout, f"text output holds '{needle}'")
    r = h.netab_cmd(netab, "runs", "show", "1", "--db", db, "--json")
    stored = h.parse_one_json(r.stdout, r)
    c.check(isinstance(h.field(stored, "result.end.rrul.loaded", dict), dict),
            "--db: the stored document holds end.rrul")


if __name__ == "__main__":
    h.main(test)
