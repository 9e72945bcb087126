#!/usr/bin/env python3
"""The rrul rig's queues, measured without netab: ping under iperf3's loads.

The path of tests/integration/rrul_netns.py (client, router and server
namespaces; the router's tbf 50 Mbit/s each way, `latency 200ms` deep or
`latency 5ms` shallow). For each case iperf3 -C cc -P flows --bidir loads
the path and ping measures the round trip after the ramp: what the queues
give any traffic, the yardstick for netab's rrul figures on the same rig.
It checks the kernel's queues rather than netab, so it lives here, not in
the test suite. Needs root.

    python3 bench/rrul_rig.py
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
import netab_helpers as h  # noqa: E402
import rrul_netns as rig  # noqa: E402

CASES = ((rig.DEEP, "cubic", 4), (rig.SHALLOW, "cubic", 4), (rig.DEEP, "bbr", 1),
         (rig.SHALLOW, "bbr", 1))


def main():
    if os.geteuid() != 0:
        sys.exit("rrul_rig: needs root (network namespaces)")
    with h.NetnsRouted("rg") as net:
        idle = rig.ping_ms(net.ns_c, net.addr_s, 40, "0.05")
        print(f"idle: ping median {statistics.median(idle):.3f} ms of {len(idle)}")
        for latency, cc, flows in CASES:
            rig.set_buffer(net, latency)
            rtts = rig.iperf3_loaded_ping(net, cc, flows)
            print(f"iperf3 -C {cc} {flows}+{flows} flows, tbf latency {latency * 1000:g} ms: "
                  f"ping median {statistics.median(rtts):.1f} ms, max {max(rtts):.1f} ms of "
                  f"{len(rtts)}; a full queue {rig.full_queue_s(latency) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
