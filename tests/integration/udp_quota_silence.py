#!/usr/bin/env python3
"""A udp_stream with -n whose receiver never gets a datagram must fail, not hang.

With -n nothing but the quota ends a UDP test, and the in-process server
accepts a week. In a namespace of our own, nftables drops every incoming UDP
datagram larger than a registration (so the test is set up, then no data
arrives): `netab run -u -n 1M -R --idle-timeout 2000` must fail within a few
seconds, saying that no datagram arrived. Needs root; skips (77) otherwise.
The namespace is deleted in every case.
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import udp_helpers as h  # noqa: E402


def test(netab, c):
    if os.geteuid() != 0 or shutil.which("nft") is None:
        raise h.Skip("needs root and nft for a namespace with a drop rule")
    with h.LoopbackNetns("quota") as ns:
        if ns is None:
            raise h.Skip("cannot create a network namespace")
        nft = ["ip", "netns", "exec", ns, "nft"]
        subprocess.run(nft + ["add", "table", "inet", "nbq"], check=True)
        subprocess.run(nft + ["add", "chain", "inet", "nbq", "in",
                              "{ type filter hook input priority 0; }"], check=True)
        subprocess.run(nft + ["add", "rule", "inet", "nbq", "in", "meta", "l4proto", "udp",
                              "udp", "length", "gt", "100", "drop"], check=True)
        t0 = time.monotonic()
        try:
            rc, doc, err = h.run_netab(netab, ["-u", "-n", "1M", "-R", "--idle-timeout", "2000",
                                               "-i", "0"], ns=ns, timeout=40)
        except subprocess.TimeoutExpired:
            c.check(False, "-u -n 1M -R with every datagram dropped ends by itself")
            return
        took = time.monotonic() - t0
        c.check(rc == 1, "-u -n 1M -R with every datagram dropped fails", f"rc={rc}")
        c.check(took < 20, "it fails within the idle timeout, not the server's limit",
                f"{took:.1f} s")
        c.check("no datagram arrived" in err, "the error says no datagram arrived",
                err.strip()[:300])


if __name__ == "__main__":
    h.main(test)
