#!/usr/bin/env python3
"""UDP iperf3 clients (Debian's iperf3) against `netab server` (docs/iperf3.md).

1. Reverse UDP loses nothing to a late TEST_RUNNING. Without TCP_NODELAY on
   the server's control socket, TEST_START and TEST_RUNNING waited ~40 ms
   behind the client's delayed ACK while data already flowed into the
   client's default receive buffer (six 32 KiB datagrams), which overflowed:
   1-3% lost, as the kernel's Udp RcvbufErrors counted.
   `iperf3 -c -u -R -b 200M -l 32K -t 2` loses at most 0.2% (iperf3's JSON,
   end.sum) in each of 3 runs. Both ends run SCHED_FIFO (root) so that the
   load of a shared test machine cannot preempt them into losses of their
   own (it did: 3-18% at load 9 on 2 CPUs, with iperf3's own server too);
   without the fix the runs lose 1.6-1.9%, all in the first quarter second.
   The sanitizer build skips these runs (tests/integration/meson.build says
   why); the reverse UDP path itself is covered there by the -l 16 -R run.
   The delta of the host's Udp RcvbufErrors over each run is noted, not
   asserted (other processes share the counter). A client written here by
   hand did not show the delay (it leaves the kernel's delayed-ACK state
   other than iperf3 does), so the real iperf3 client is the test.
2. iperf3's smallest datagram, `-l 16`: a forward test's bytes received by
   netab's server (its log line) equal what iperf3 sent (end.sum.bytes), 16
   bytes a datagram; in a reverse test iperf3's figures for the sender are
   the server's count, 16 bytes a datagram, and what the client received
   (peer_received in the log) is whole datagrams, at most what was sent.
3. A client that asks for UDP and never sends its UDP hello holds the
   server's UDP set-up turn for at most IPERF3_UDP_HELLO_MS (2 s), not the
   idle timeout (60 s here): while it stays connected, a real iperf3 UDP
   client is served (exit 0, its bytes = the server's count), the server's
   log says the holder's hello did not come and the turn was released
   (before the real client's line), and the holder reads SERVER_ERROR with
   iperf3's IESTREAMACCEPT and ETIMEDOUT.
"""
import json
import os
import random
import re
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

LINE = re.compile(r"peer=\S+:(\d+) protocol=iperf3 client=(\S+) test=(\S+) .* sent=(\d+) "
                  r"received=(\d+) peer_sent=(\d+) peer_received=(\d+) seconds=\S+ result=(.*)$")
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
IESTREAMACCEPT = 204
ETIMEDOUT = 110


def iperf3_lines(srv):
    out = []
    for line in srv.log_text().splitlines():
        m = LINE.search(line)
        if m:
            out.append({"port": int(m.group(1)), "client": m.group(2), "test": m.group(3),
                        "sent": int(m.group(4)), "received": int(m.group(5)),
                        "peer_sent": int(m.group(6)), "peer_received": int(m.group(7)),
                        "result": m.group(8)})
    return out


def wait_for(cond, seconds):
    """Polls cond every 50 ms for at most seconds (a hang guard, not a measurement)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def wait_lines(srv, n):
    """Waits (a hang guard) until the server logged n iperf3 test lines; returns them."""
    h.check(wait_for(lambda: len(iperf3_lines(srv)) >= n, 15),
            f"the server logs {n} iperf3 test lines", srv.log_text()[-2000:])
    return iperf3_lines(srv)


def iperf3_client(port, opts, timeout=60, chrt=False):
    """Runs iperf3 -c -J on loopback (SCHED_FIFO with chrt); exit status 0 and no "error"
    member are required."""
    prio = ["chrt", "-f", "20"] if chrt else []
    r = h.run_cmd(prio + ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-J"] + opts,
                  timeout=timeout)
    doc = h.parse_one_json(r.stdout, r)
    h.check(doc.get("error") is None, f"iperf3 {' '.join(opts)} reports no error",
            doc.get("error"))
    return doc


def rcvbuf_errors():
    """The kernel's Udp RcvbufErrors (/proc/net/snmp), the whole host's."""
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Udp:")]
    return int(rows[1][rows[0].index("RcvbufErrors")])


def reverse_loss(c, srv):
    for run in range(3):
        before = rcvbuf_errors()
        doc = iperf3_client(srv.port, ["-u", "-R", "-b", "200M", "-l", "32K", "-t", "2"],
                            chrt=True)
        overflowed = rcvbuf_errors() - before
        s = doc["end"]["sum"]
        lost, packets = s["lost_packets"], s["packets"]
        c.note(f"-u -R -b 200M -l 32K run {run + 1}: lost {lost} of {packets} "
               f"({s['lost_percent']:.3f}%), host Udp RcvbufErrors +{overflowed}")
        c.check(packets > 0 and lost * 1000 <= 2 * packets,
                f"-u -R run {run + 1}: iperf3 loses at most 0.2%", f"{lost} of {packets}")


def chrt_server(srv):
    """SCHED_FIFO for the server's threads; the stream threads it starts inherit it."""
    h.sh("chrt", "-a", "-f", "-p", "20", str(srv.pid()))


def len16(c, srv):
    n = len(iperf3_lines(srv))
    doc = iperf3_client(srv.port, ["-u", "-l", "16", "-t", "1"])
    line = wait_lines(srv, n + 1)[n]
    s = doc["end"]["sum"]
    c.check(line["result"] == "ok" and s["bytes"] > 0 and line["received"] == s["bytes"]
            and s["bytes"] == 16 * s["packets"],
            "-l 16: netab's server received what iperf3 sent, 16 bytes a datagram",
            f"iperf3 sent {s['bytes']} in {s['packets']}; server {line}")
    doc = iperf3_client(srv.port, ["-u", "-l", "16", "-t", "1", "-R"])
    line = wait_lines(srv, n + 2)[n + 1]
    s = doc["end"]["sum"]
    # With -R iperf3's end.sum gives the sender's figures (the server's, from its results);
    # what the client itself received is the count it reported, peer_received in the log.
    c.check(line["result"] == "ok" and s["bytes"] > 0 and s["bytes"] == line["sent"]
            and s["bytes"] == 16 * s["packets"],
            "-l 16 -R: iperf3 reports the server's 16-byte datagrams as netab's server counted "
            "them", f"iperf3 {s}; server {line}")
    c.check(0 < line["peer_received"] <= line["sent"] and line["peer_received"] % 16 == 0,
            "-l 16 -R: the iperf3 client received whole 16-byte datagrams", str(line))


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        part = sock.recv(n - len(data))
        if not part:
            break
        data += part
    return data


def hello_holder(c, srv):
    holder = h.connect("127.0.0.1", srv.port)
    holder.settimeout(30)
    holder_port = holder.getsockname()[1]
    holder.sendall(("".join(random.choice(ALPHABET) for _ in range(36)) + "\0").encode())
    h.check_eq(read_exact(holder, 1), b"\x09", "holder: PARAM_EXCHANGE")
    doc = json.dumps({"udp": True, "time": 1, "parallel": 1, "len": 1460,
                      "bandwidth": 1000000, "client_version": "holder"}).encode()
    holder.sendall(struct.pack(">I", len(doc)) + doc)
    # CREATE_STREAMS: the server holds the UDP turn and waits for this client's hello.
    h.check_eq(read_exact(holder, 1), b"\x0a", "holder: CREATE_STREAMS")
    # The hang guard (40 s) is below the idle timeout (60 s): a turn held that long fails it.
    n = len(iperf3_lines(srv))
    real = iperf3_client(srv.port, ["-u", "-b", "10M", "-t", "1"], timeout=40)
    lines = wait_lines(srv, n + 2)
    mine = [x for x in lines[n:] if x["client"] == "holder"]
    theirs = [x for x in lines[n:] if x["client"] != "holder"]
    sent = real["end"]["sum"]["bytes"]
    c.check(len(theirs) == 1 and theirs[0]["result"] == "ok" and sent > 0
            and theirs[0]["received"] == sent,
            "a real iperf3 UDP client is served while another holds its hello back",
            f"iperf3 sent {sent}; server {theirs}")
    c.check(len(mine) == 1 and mine[0]["port"] == holder_port
            and "said hello within 2000 ms" in mine[0]["result"]
            and "turn is released" in mine[0]["result"],
            "the server logs that the holder's hello did not come and it released the turn",
            str(mine))
    c.check(lines[n:].index(mine[0]) < lines[n:].index(theirs[0]) if mine and theirs else False,
            "the turn was released before the real client's test ended", str(lines[n:]))
    # Still connected on the holder's side: it reads its error now.
    err = read_exact(holder, 9)
    holder.close()
    c.check(len(err) == 9 and err[0] == 0xFE
            and struct.unpack(">II", err[1:]) == (IESTREAMACCEPT, ETIMEDOUT),
            "the holder got SERVER_ERROR (IESTREAMACCEPT, ETIMEDOUT)", err.hex())


def body(netab, c):
    h.need_tools("iperf3", "chrt")
    with h.Server(netab) as srv:
        len16(c, srv)
    with h.Server(netab, extra=["--idle-timeout", "60000"]) as srv:
        hello_holder(c, srv)
    if os.geteuid() != 0:
        raise h.TestSkip("the loss runs need root for SCHED_FIFO (run as root; CI does)")
    if h.sanitized(netab):
        # A timing measurement, not a code path the runs above miss (-l 16 -R is
        # the same reverse UDP path): under ASan on CI's 2 loaded CPUs one run
        # lost 9 of 1525 datagrams to the client's buffer while the others lost 0.
        c.note("sanitizer build: the -u -R -b 200M loss runs are skipped (a timing measurement)")
        return
    with h.Server(netab) as srv:
        chrt_server(srv)
        reverse_loss(c, srv)


if __name__ == "__main__":
    h.main(body)
