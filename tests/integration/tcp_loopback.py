#!/usr/bin/env python3
"""TCP stream on loopback against a real `netab server` process, and in-process.

Checks the JSON document of each run: every documented field present,
receiver bytes equal to sender bytes (no -O, so nothing is omitted), the
per-stream bytes add up to the totals, -n is exact per direction, and the
interval bytes add up approximately to the total. Text interval lines carry
iperf3's Retr and Cwnd columns where the client sends.
"""

import re
import socket

from netab_helpers import (Server, check, check_doc, check_eq, interval_bytes, log, netab_run,
                           run_cmd, run_main)


def check_intervals_cover(doc, end, what):
    """Interval bytes sum approximately to the total (the client's view).

    The client counts what it sent and received per interval; the totals
    come from each sender's own count, so a few in-flight blocks at the
    edges may differ. Only a gross mismatch is a bug.
    """
    ivs = doc["intervals"]
    check(len(ivs) >= 1, f"{what}: no interval reports with -t 1 -i 0.2")
    total = end["sender"]["bytes"]
    got = interval_bytes(doc)
    check(0.75 * total <= got <= 1.05 * total,
          f"{what}: interval bytes {got} do not add up to about the total {total}")


def body(netab):
    with Server(netab) as srv:
        base = ["-c", "127.0.0.1", "-p", str(srv.port)]

        # Timed runs: 1 and 4 streams, reverse, bidir.
        cases = [
            ("1 stream", [], dict(streams=1)),
            ("4 streams", ["-P", "4"], dict(streams=4)),
            ("reverse", ["-R"], dict(reverse=True)),
            ("bidir 2x2", ["--bidir", "-P", "2"], dict(streams=2, bidir=True)),
        ]
        # The server bounds the memory one client can make it allocate (streams x -l).
        r = netab_run(netab, base + ["-R", "-P", "32", "-l", "16M", "-t", "1"], expect_rc=1)
        check("--max-test-memory" in ((r.doc or {}).get("error") or ""),
              "a test asking for 512 MiB of server buffers is refused, naming the limit",
              r.describe())
        for what, args, kw in cases:
            log(f"case: {what}")
            r = netab_run(netab, base + ["-t", "1", "-i", "0.2"] + args)
            doc = r.doc
            end = check_doc(doc, **kw)
            check_eq(doc["start"]["in_process_server"], False, f"{what}: start.in_process_server")
            check_eq(doc["start"]["port"], srv.port, f"{what}: start.port")
            check_eq(doc["test"]["duration"], 1.0, f"{what}: test.duration")
            check_eq(doc["test"]["interval"], 0.2, f"{what}: test.interval")
            check_intervals_cover(doc, end, what)

        # Exact byte counts: N per direction, split over the streams.
        n = 3 * 1024 * 1024 + 12345  # not a multiple of the block size
        for what, args, kw in [
            ("-n 1 stream", [], {}),
            ("-n 4 streams", ["-P", "4"], dict(streams=4)),
            ("-n reverse", ["-R"], dict(reverse=True)),
            ("-n bidir", ["--bidir", "-P", "3"], dict(streams=3, bidir=True)),
            ("-n small block", ["-l", "1000"], {}),
        ]:
            log(f"case: {what}")
            r = netab_run(netab, base + ["-n", str(n)] + args)
            check_doc(r.doc, nbytes=n, **kw)
            if not kw.get("bidir"):
                check_eq(r.doc["end"]["sender"]["bytes"], n, f"{what}: end.sender.bytes")
                check_eq(r.doc["end"]["receiver"]["bytes"], n, f"{what}: end.receiver.bytes")

        # Text output (no --json) also works and names the result.
        r = run_cmd([netab, "run"] + base + ["-n", "1M"])
        check(r.returncode == 0 and r.stdout.strip(), "text-mode run failed", r.describe())
        # Interval lines carry iperf3's Retr and Cwnd columns (TCP_INFO at each boundary).
        r = run_cmd([netab, "run"] + base + ["-t", "1", "-i", "0.25"])
        check(r.returncode == 0, "text run with intervals failed", r.describe())
        check(re.search(r"^Interval\s+Transfer\s+Bitrate\s+Retr\s+Cwnd$", r.stdout, re.M),
              "the interval header names Retr and Cwnd", r.stdout)
        lines = re.findall(r"^\s*\d+\.\d+-\s*\d+\.\d+\s+s\s+.*\s(\d+)\s+([\d.]+ [KMG]?i?B)$",
                           r.stdout, re.M)
        check(len(lines) >= 3, "interval lines end in a retransmit count and a cwnd", r.stdout)
        r = run_cmd([netab, "run"] + base + ["-t", "0.5", "-i", "0.25", "-R"])
        check(r.returncode == 0 and "Cwnd" not in r.stdout,
              "-R: the client only receives, no Retr/Cwnd columns", r.describe())

        check(srv.alive(), "server died during the loopback runs")

    # In-process server (no -c): the default loopback mode.
    log("case: in-process")
    r = netab_run(netab, ["-t", "1", "-P", "2", "-i", "0.25"])
    doc = r.doc
    end = check_doc(doc, streams=2)
    check_eq(doc["start"]["in_process_server"], True, "in-process: start.in_process_server")
    check_intervals_cover(doc, end, "in-process")
    log("case: in-process -n bidir")
    r = netab_run(netab, ["-n", "2M", "--bidir"])
    check_doc(r.doc, bidir=True, nbytes=2 * 1024 * 1024)
    log("case: in-process -n reverse")
    r = netab_run(netab, ["-n", "1M", "-R", "-P", "3"])
    check_doc(r.doc, reverse=True, streams=3, nbytes=1024 * 1024)

    # IPv6 loopback, when the host has ::1.
    if socket.has_ipv6:
        try:
            s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            s.bind(("::1", 0))
            s.close()
            have_v6 = True
        except OSError:
            have_v6 = False
        if have_v6:
            log("case: IPv6 ::1")
            with Server(netab, extra=["-6"], bind="::1") as srv6:
                r = netab_run(netab, ["-6", "-c", "::1", "-p", str(srv6.port), "-n", "2M", "-P", "2"])
                check_doc(r.doc, streams=2, nbytes=2 * 1024 * 1024)
                check_eq(r.doc["start"]["server"], "::1", "IPv6: start.server")
            r = netab_run(netab, ["-6", "-n", "1M"])
            check_doc(r.doc, nbytes=1024 * 1024)
        else:
            log("note: ::1 not available, IPv6 cases skipped")


if __name__ == "__main__":
    run_main(body)
