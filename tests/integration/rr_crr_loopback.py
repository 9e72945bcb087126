#!/usr/bin/env python3
"""Request/response and connection-rate tests on loopback against a real server.

tcp_rr, udp_rr (plain, --outstanding 4, -P 2) and tcp_crr (plain, --linger0,
--cport-range) must run and report: ordered percentiles
p50 <= p90 <= p99 <= p999 <= p9999 <= max (and min <= p50), latency count
== transactions (both are taken by the client stream thread, histogram
first, then the counter, and read after the threads have finished, so they
are equal at the end; interval figures are sampled while streams run and may
differ by the transactions in flight), transactions_per_second > 0, a
per-transaction service demand on both sides, and no errors.

Runs in a namespace of its own (loopback only) when root, so fixed client
ports and TIME_WAIT do not collide with other test runs on the host.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402


def check_rr(c, label, rc, doc, err, streams=1, outstanding=1, crr=False, udp=False,
             expect_no_connect_errors=True):
    e = h.end_of(doc)
    c.check(rc == 0 and e, f"{label}: completes", f"rc={rc} {err.strip()[:300]}")
    if not e:
        return
    tx = h.field(e, "transactions", int)
    tps = h.field(e, "transactions_per_second", "num")
    lat = h.field(e, "latency_us", dict)
    c.note(f"{label}: {tx} transactions, {tps:.0f}/s, p50 {lat.get('p50')} p99 {lat.get('p99')} "
           f"max {lat.get('max')} us, errors {e.get('errors')}")
    c.check(tx > 0 and tps > 0, f"{label}: transactions > 0 and transactions_per_second > 0")
    if crr:
        c.check(h.field(e, "connections_per_second", "num") > 0,
                f"{label}: connections_per_second > 0")
    c.check(h.ordered_percentiles(lat), f"{label}: p50 <= p90 <= p99 <= p999 <= p9999 <= max",
            str(lat))
    c.check(0 < h.field(lat, "min", "num") <= h.field(lat, "p50", "num"),
            f"{label}: 0 < min <= p50")
    c.check(lat.get("count") == tx, f"{label}: latency count == transactions",
            f"{lat.get('count')} vs {tx}")
    sd = h.field(e, "service_demand", dict)
    for k in ("local_us_per_tran", "remote_us_per_tran"):
        v = sd.get(k)
        c.check(isinstance(v, (int, float)) and v > 0, f"{label}: service_demand.{k} present",
                str(v))
    # Every error kind is reported, so a missing one is a failure, not zero errors.
    errs = h.field(e, "errors", dict)
    others = {k: errs.get(k) for k in ("read", "write", "timeout")}
    c.check(all(v == 0 for v in others.values()), f"{label}: no read/write/timeout errors",
            str(errs))
    c.check(isinstance(errs.get("connect"), int), f"{label}: errors.connect reported", str(errs))
    if expect_no_connect_errors:
        c.check(errs.get("connect") == 0, f"{label}: no connect errors", str(errs))
    if udp:
        c.check(e.get("lost_transactions") == 0, f"{label}: no lost transactions on loopback",
                str(e.get("lost_transactions")))
        # The client's time ends with its last response, not after a response timeout (3 s here).
        secs = h.field(e, "sender.seconds", "num")
        c.check(0 < secs < 2.5, f"{label}: client seconds near -t 1, no timeout waited out",
                str(secs))
    ivs = h.field(doc, "intervals", list)
    c.check(len(ivs) >= 1, f"{label}: interval reports present", str(len(ivs)))
    slack = streams * outstanding + 2
    ok = True
    for iv in ivs:
        il = iv.get("latency_us") or {}
        if (iv.get("transactions_per_second") is None or not h.is_num(il.get("count"))
                or not h.is_num(iv.get("packets")) or abs(il["count"] - iv["packets"]) > slack):
            ok = False
    c.check(ok, f"{label}: each interval has transactions_per_second and latency count ~ "
                f"packets (+-{slack})",
            str([(iv.get("packets"), (iv.get("latency_us") or {}).get("count")) for iv in ivs]))
    c.check(ok and sum(iv["packets"] for iv in ivs) <= tx + slack,
            f"{label}: interval transactions add up to no more than the total")


def test(netab, c):
    with h.LoopbackNetns("rr") as ns:
        c.note(f"running in namespace {ns}" if ns else "running on the host's loopback")
        with h.Server(netab, netns=ns) as srv:
            def run(args):
                # udp_rr: a generous response timeout, so a loaded (or sanitizer) build is not
                # mistaken for loss on loopback, where nothing is dropped.
                extra = ["--rr-timeout", "3000"] if "udp_rr" in args else []
                return h.run_against(netab, srv, list(args) + extra + ["-t", "1", "-i", "0.5"],
                                     ns=ns)

            check_rr(c, "tcp_rr", *run(["--test", "tcp_rr"]))
            check_rr(c, "tcp_rr 100/200 bytes",
                     *run(["--test", "tcp_rr", "--req-size", "100", "--resp-size", "200"]))
            # Messages larger than the socket buffers with several in flight: the client must read
            # responses while it writes requests, or both ends block writing.
            check_rr(c, "tcp_rr 1M/1M --outstanding 8",
                     *run(["--test", "tcp_rr", "--req-size", "1M", "--resp-size", "1M",
                           "--outstanding", "8"]), outstanding=8)
            check_rr(c, "udp_rr", *run(["--test", "udp_rr", "--req-size", "32"]), udp=True)
            check_rr(c, "udp_rr --outstanding 4",
                     *run(["--test", "udp_rr", "--outstanding", "4"]), outstanding=4, udp=True)
            check_rr(c, "udp_rr -P 2", *run(["--test", "udp_rr", "-P", "2"]), streams=2, udp=True)
            # Requests in flight at the end must be answered before the server stops: they are
            # neither lost nor waited out. Several runs, since the end races with the responses.
            for i in range(4):
                check_rr(c, f"udp_rr --outstanding 8 -P 2 (#{i + 1})",
                         *run(["--test", "udp_rr", "--outstanding", "8", "-P", "2"]), streams=2,
                         outstanding=8, udp=True)
            check_rr(c, "tcp_crr", *run(["--test", "tcp_crr"]), crr=True)
            check_rr(c, "tcp_crr --linger0", *run(["--test", "tcp_crr", "--linger0"]), crr=True)
            # The connection in progress at the end is served, not counted as a read error.
            for i in range(3):
                check_rr(c, f"tcp_crr -P 4 (#{i + 1})", *run(["--test", "tcp_crr", "-P", "4"]),
                         streams=4, crr=True)
            # A fixed port range and no TIME_WAIT: every connect must succeed (in our own namespace,
            # outside ip_local_port_range 32768-60999, whose ephemeral ports left in TIME_WAIT by
            # the plain tcp_crr run above would refuse a bind to an overlapping range; in our own
            # namespace no one else holds these ports).
            rc, doc, err = run(["--test", "tcp_crr", "--linger0", "--cport-range", "20000-20999"])
            check_rr(c, "tcp_crr --linger0 --cport-range", rc, doc, err, crr=True,
                     expect_no_connect_errors=ns is not None)
            e = h.end_of(doc)
            c.check(h.field(e, "client_ports") == "fixed range (--cport-range)",
                    "tcp_crr --cport-range: reported as a fixed range", str(e.get("client_ports")))
            # Without --linger0 ports come back in TIME_WAIT; a refused bind is counted, and
            # the test goes on and completes.
            rc, doc, err = run(["--test", "tcp_crr", "--cport-range", "20000-20999"])
            check_rr(c, "tcp_crr --cport-range", rc, doc, err, crr=True,
                     expect_no_connect_errors=False)


if __name__ == "__main__":
    h.main(test)
