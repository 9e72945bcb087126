#!/usr/bin/env python3
"""One-way delay per direction (issue 31; docs/rrul.md, "One-way delay") between namespaces.

Client and server in two network namespaces of one host, a router namespace
between them forwarding through a tbf of 50 Mbit/s with `latency 100ms` on each
egress (netab_helpers.NetnsRouted). The server's "accept" names its boot id and
time namespace, the client's are the same: one clock, so the one-way delays are
available and the reason says so. A cubic load in one direction only fills the
queue that direction's data crosses; the other carries only the load's ACKs and
stays empty. So `--load up` must show the loaded up p50 far above the down p50,
and `--load down` the reverse; idle, neither direction queues. A client in a
time namespace of its own (`unshare --time`, its CLOCK_MONOTONIC 1000 s ahead)
shares the boot id but not the clock: no one-way delay, and the reason says
why. Needs root; skips (77) otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

LOADED_S = 3


def one_way(netab, c, net, srv, load):
    rc, doc, err = h.run_against(netab, srv, ["--test", "rrul", "--rrul-phases", "1,1", "-t", str(LOADED_S), "-C", "cubic",
                                              "--load-flows", "2", "--load", load],
                                 host=net.addr_s, ns=net.ns_c, timeout=LOADED_S + 60,
                                 expect_rc=range(-64, 256))
    r = (h.end_of(doc) or {}).get("rrul") if doc else None
    if not c.check(rc == 0 and isinstance(r, dict), f"--load {load}: runs and has end.rrul",
                   f"rc={rc} {err.strip()[-300:]}"):
        return
    ow = r.get("one_way") or {}
    if not c.check(ow.get("available") is True and "same host: boot id" in (ow.get("reason") or "")
                   and ow.get("clock") == "CLOCK_MONOTONIC",
                   f"--load {load}: one-way delay available between two namespaces of one host",
                   str(ow.get("reason"))):
        return
    idle, loaded = ow["idle"], ow["loaded"]
    ahead, behind = ("up", "down") if load == "up" else ("down", "up")
    q, e = loaded[f"{ahead}_p50_us"], loaded[f"{behind}_p50_us"]
    c.note(f"--load {load}: loaded up p50 {loaded['up_p50_us'] / 1000:.2f} ms, down p50 "
           f"{loaded['down_p50_us'] / 1000:.2f} ms; idle up {idle['up_p50_us'] / 1000:.3f} ms, "
           f"down {idle['down_p50_us'] / 1000:.3f} ms; round trip p50 "
           f"{r['loaded']['p50_us'] / 1000:.2f} ms")
    # cubic fills most of the 100 ms queue; the ACKs' direction queues a few packets at most.
    c.check(q >= 20_000 and q >= 10 * e,
            f"--load {load}: the loaded {ahead} p50 >= 20 ms and >= 10 x the {behind} p50",
            f"{q / 1000:.2f} ms vs {e / 1000:.3f} ms")
    c.check(e <= 5_000, f"--load {load}: the {behind} p50 under load stays below 5 ms",
            f"{e / 1000:.3f} ms")
    c.check(all(0 <= idle[k] <= 2_000 for k in ("up_p50_us", "down_p50_us")),
            f"--load {load}: idle one-way p50s each between 0 and 2 ms", str(idle))
    c.check(abs(q + e - r["loaded"]["p50_us"]) <= 0.2 * r["loaded"]["p50_us"] + 1000,
            f"--load {load}: loaded up + down p50 = the round-trip p50 (+-20% + 1 ms)",
            f"{(q + e) / 1000:.2f} vs {r['loaded']['p50_us'] / 1000:.2f} ms")


def other_time_namespace(netab, c, net, srv):
    """The client's CLOCK_MONOTONIC offset by a time namespace: one boot id, not one clock."""
    wrapper = os.path.join(h.WORK_DIR, "netab-timens")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec unshare --time --fork --monotonic 1000 {netab} "$@"\n')
    os.chmod(wrapper, 0o755)
    rc, doc, err = h.run_against(wrapper, srv, ["--test", "rrul", "--rrul-phases", "1,1", "-t", "1", "--load-flows", "1",
                                                "--load", "up"],
                                 host=net.addr_s, ns=net.ns_c, timeout=60,
                                 expect_rc=range(-64, 256))
    r = (h.end_of(doc) or {}).get("rrul") if doc else None
    if not c.check(rc == 0 and isinstance(r, dict), "time namespace: runs and has end.rrul",
                   f"rc={rc} {err.strip()[-300:]}"):
        return
    ow = r.get("one_way") or {}
    c.check(ow.get("available") is False and ow.get("clock") is None
            and "different time namespaces" in (ow.get("reason") or "") and "idle" not in ow,
            "time namespace: no one-way delay, the reason names the time namespaces",
            str(ow))
    c.check(h.is_num(r["idle"].get("p50_us")), "time namespace: the round trips are there")


def test(netab, c):
    h.require_root_netns(tools=("ip", "tc", "ping", "unshare"))
    with h.NetnsRouted("ow") as net:
        net.router_tbf("50mbit", "32kb", "100ms")
        with h.Server(netab, netns=net.ns_s, bind=net.addr_s) as srv:
            one_way(netab, c, net, srv, "up")
            one_way(netab, c, net, srv, "down")
            other_time_namespace(netab, c, net, srv)
            c.check(srv.alive(), "the server is alive after both runs")


if __name__ == "__main__":
    h.main(test)
