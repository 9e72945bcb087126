#!/usr/bin/env python3
"""A udp_stream with -n whose receiver never gets a datagram must fail, not hang.

With -n nothing but the quota ends a UDP test, and the in-process server
accepts a week. In a namespace of our own, nftables drops every incoming UDP
datagram larger than a registration (so the test is set up, then no data
arrives): `netab run -u -n 1M -R --idle-timeout 2000` must fail within a few
seconds, saying that no datagram arrived within the idle timeout (a hang
past the harness's bound fails the test; no speed is asserted). Needs root; skips (77) otherwise.
The namespace is deleted in every case.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402


def test(netab, c):
    if os.geteuid() != 0:
        raise h.Skip("needs root for a namespace with a drop rule (run as root; CI does)")
    h.need_tools("ip", "nft")
    with h.LoopbackNetns("quota") as ns:
        h.sh("nft", "add", "table", "inet", "nbq", netns=ns)
        h.sh("nft", "add", "chain", "inet", "nbq", "in", "{ type filter hook input priority 0; }",
             netns=ns)
        h.sh("nft", "add", "rule", "inet", "nbq", "in", "meta", "l4proto", "udp", "udp", "length",
             "gt", "100", "drop", netns=ns)
        # Only the idle timeout can end this test: the in-process server's limit is a week, so
        # a test it did not end is a hang, which the harness fails after 40 s.
        rc, doc, err = h.run_netab(netab, ["-u", "-n", "1M", "-R", "--idle-timeout", "2000",
                                           "-i", "0"], ns=ns, timeout=40, expect_rc=1)
        c.check(rc == 1, "-u -n 1M -R with every datagram dropped fails", f"rc={rc}")
        c.check("no datagram arrived in 2000 ms" in err,
                "the error says no datagram arrived within the idle timeout", err.strip()[:300])


if __name__ == "__main__":
    h.main(test)
