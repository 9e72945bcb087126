#!/usr/bin/env python3
"""`netab run --flows F` for udp_rr and tcp_crr (issue 30): the same results across flows.

- udp_rr and tcp_crr with 100 flows over 2 threads on loopback: the flows'
  transactions sum exactly to the total at both ends (end.flows and
  --per-flow), Jain's index is in [1/F, 1], the merged latency percentiles
  are present and count every transaction, the per-flow p99 spread is the
  flows' own, no connection errors.
- The same against a `netab server` in a separate process, whose fds are
  all back after each test (tcp_crr's connections and listener closed),
  and after a client with 500 flows of each kind is killed mid-run.
- udp_rr's flows with 10% of UDP dropped (two namespaces, root only): no
  flow hangs on a lost datagram (the run ends in time), each loss is a
  response timeout counted as a timeout error and as a lost transaction.
- tcp_crr's flows with 10% of their connects reset: counted as refused, by
  flow and in total, the sums still exact and the flows go on.
"""
import os
import signal
import time

from netab_helpers import Server, check, check_eq, log, run_main
import netab_helpers as h
from netab_helpers import fd_count, wait_fds

FLOWS = 100


def check_kind(doc, kind, flows, label, server_total=None):
    e = h.end_of(doc)
    check(bool(e), f"{label}: the run has an end", doc.get("error"))
    tx = h.field(e, "transactions", int)
    check(tx > 0, f"{label}: transactions", tx)
    fl = h.field(e, "flows", dict)
    check_eq(fl.get("count"), flows, f"{label}: end.flows.count")
    per = fl.get("per_flow")
    check(isinstance(per, list) and len(per) == flows, f"{label}: --per-flow lists every flow")
    totals = {"client": tx, "server": tx if server_total is None else server_total}
    for end in ("client", "server"):
        t = h.field(fl, f"transactions.{end}", dict)
        check_eq(t.get("sum"), totals[end], f"{label}: {end}'s flows sum to its total")
        check_eq(sum(x[f"{end}_transactions"] for x in per), totals[end],
                 f"{label}: {end}'s per-flow transactions sum exactly to its total")
        jain = t.get("fairness")
        check(isinstance(jain, float) and 1.0 / flows <= jain <= 1.0,
              f"{label}: {end}'s fairness in [1/F, 1]", jain)
        check(t.get("min") <= t.get("p1") <= t.get("p10") <= t.get("median") <= t.get("p90")
              <= t.get("max"), f"{label}: {end}'s spread is ordered", t)
    lat = h.field(e, "latency_us", dict)
    check_eq(lat.get("count"), tx, f"{label}: the merged histogram holds every transaction")
    check(all(h.is_num(lat.get(k)) for k in ("p50", "p90", "p99")),
          f"{label}: merged p50, p90, p99 present", lat)
    check(h.ordered_percentiles(lat), f"{label}: merged p50 <= p90 <= p99 <= ... <= max", lat)
    p99s = [x["p99_us"] for x in per if x["client_transactions"]]
    sp = h.field(fl, "latency_p99_us", dict)
    check_eq((sp.get("min"), sp.get("max")), (min(p99s), max(p99s)),
             f"{label}: the p99 spread is the flows' own")
    log(f"{label}: {tx} transactions, {e['transactions_per_second']:.0f}/s, p50 {lat['p50']} "
        f"p99 {lat['p99']} us, fairness {fl['transactions']['client']['fairness']:.4f}")
    return e, fl


def no_errors(fl, label):
    for end in ("client", "server"):
        check_eq(h.field(fl, f"connection_errors.{end}", dict),
                 {"refused": 0, "reset": 0, "timeout": 0}, f"{label}: no {end} errors")


def run_flows(netab, kind, *extra):
    # tcp_crr's 1 s: ~15,000 connections, well inside one destination's ephemeral ports.
    secs = "1" if kind == "tcp_crr" else "2"
    r = h.netab_cmd(netab, "run", "--json", "--test", kind, "--flows", str(FLOWS), "--threads",
                    "2", "-t", secs, "--per-flow", *extra, timeout=60)
    return h.parse_one_json(r.stdout, r)


def loopback(netab):
    for kind in ("udp_rr", "tcp_crr"):
        label = f"loopback {kind} {FLOWS} flows"
        _, fl = check_kind(run_flows(netab, kind), kind, FLOWS, label)
        no_errors(fl, label)


def separate(netab):
    with Server(netab) as srv:
        fds0 = fd_count(srv.pid())
        for kind in ("udp_rr", "tcp_crr"):
            label = f"server {kind} {FLOWS} flows"
            doc = run_flows(netab, kind, "-c", "127.0.0.1", "-p", str(srv.port))
            _, fl = check_kind(doc, kind, FLOWS, label)
            no_errors(fl, label)
            check(wait_fds(srv.pid(), fds0), f"{label}: the server's fds are back",
                  f"{fd_count(srv.pid())} vs {fds0}")
        # A client that vanishes mid-run: the server frees every flow's connection.
        for kind in ("tcp_crr", "udp_rr"):
            p = h.start([netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "--test", kind,
                         "--flows", "500", "--threads", "2", "-t", "60"])
            deadline = time.monotonic() + 20
            while fd_count(srv.pid()) < fds0 + 500 and time.monotonic() < deadline:
                time.sleep(0.05)
            check(fd_count(srv.pid()) >= fds0 + 500,
                  f"killed {kind} client: the server held its flows", fd_count(srv.pid()))
            p.kill_group(signal.SIGKILL)
            p.finish(expect_rc=-signal.SIGKILL, timeout=10)
            check(wait_fds(srv.pid(), fds0), f"killed {kind} client: its flows are all freed",
                  f"{fd_count(srv.pid())} vs {fds0}")
            log(f"killed {kind} client with 500 flows: the server's fds are back")
        check(srv.alive(), "the server still runs")


def udp_loss(netab):
    try:
        h.require_root_netns(tools=("ip", "nft"))
    except h.TestSkip as e:
        log(f"udp_rr flows with loss: skipped ({e})")
        return
    with h.NetnsPair("flowk") as pair:
        pair.nft_drop_udp(pair.ns_b, 10)
        try:
            with Server(netab, netns=pair.ns_b, bind=pair.addr_b) as srv:
                t0 = time.monotonic()
                rc, doc, err = h.run_against(
                    netab, srv, ["--test", "udp_rr", "--flows", str(FLOWS), "--threads", "2",
                                 "--rr-timeout", "20", "-t", "2", "--per-flow"],
                    host=pair.addr_b, ns=pair.ns_a, timeout=60)
                took = time.monotonic() - t0
                check(rc == 0, "udp_rr flows with 10% drop complete", f"rc={rc} {err[:300]}")
                check(took < 15, "udp_rr flows with 10% drop: no flow hangs", f"{took:.1f} s")
                e = h.end_of(doc)
                srv_tx = sum(x["server_transactions"] for x in e["flows"]["per_flow"])
                _, fl = check_kind(doc, "udp_rr", FLOWS, "udp_rr 10% drop", server_total=srv_tx)
                lost = h.field(e, "lost_transactions", int)
                check(lost > 0, "udp_rr 10% drop: lost transactions", lost)
                check_eq(h.field(fl, "connection_errors.client.timeout", int), lost,
                         "udp_rr 10% drop: each loss is a timeout error")
                check_eq(sum(x["timeout"] for x in fl["per_flow"]), lost,
                         "udp_rr 10% drop: the flows' timeouts sum to the lost transactions")
        finally:
            pair.nft_delete(pair.ns_b)
        crr_refused(netab, pair)


def crr_refused(netab, pair):
    """tcp_crr's flows with 10% of their connects refused (a reset to the SYN, in B)."""
    with Server(netab, netns=pair.ns_b, bind=pair.addr_b) as srv:
        ns = pair.ns_b
        h.sh("nft", "add", "table", "inet", "netab_t", netns=ns)
        h.sh("nft", "add", "chain", "inet", "netab_t", "input",
             "{ type filter hook input priority 0; }", netns=ns)
        try:
            # Never the control connection: only the test's own listener's SYNs.
            h.sh("nft", "add", "rule", "inet", "netab_t", "input", "tcp", "dport", "!=",
                 str(srv.port), "tcp", "flags", "&", "(syn|ack)", "==", "syn", "numgen", "random",
                 "mod", "100", "<", "10", "counter", "reject", "with", "tcp", "reset", netns=ns)
            rc, doc, err = h.run_against(
                netab, srv, ["--test", "tcp_crr", "--flows", str(FLOWS), "--threads", "2", "-t",
                             "2", "--per-flow"], host=pair.addr_b, ns=pair.ns_a, timeout=60)
            check(rc == 0, "tcp_crr flows with 10% refused complete", f"rc={rc} {err[:300]}")
            _, fl = check_kind(doc, "tcp_crr", FLOWS, "tcp_crr 10% refused")
            refused = h.field(fl, "connection_errors.client.refused", int)
            check(refused > 0, "tcp_crr 10% refused: refused connects counted", refused)
            check_eq(sum(x["refused"] for x in fl["per_flow"]), refused,
                     "tcp_crr 10% refused: the flows' refusals sum to the total")
            check_eq(h.field(doc, "end.errors.connect", int), refused,
                     "tcp_crr 10% refused: end.errors.connect is the refusals")
            log(f"tcp_crr 10% refused: {refused} refused")
        finally:
            pair.nft_delete(ns)


def body(netab):
    loopback(netab)
    separate(netab)
    udp_loss(netab)


if __name__ == "__main__":
    run_main(body)
