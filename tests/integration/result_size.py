#!/usr/bin/env python3
"""Results of many streams pass the 64 KiB control frame and still arrive.

The server's "result" of 128 streams (TCP or UDP) is larger than FRAME_MAX
(64 KiB). A netab client offers "result_max" in "start" and receives the
whole result: every stream's bytes, as counted by the server, are in its
document, exactly for TCP. A client that does not offer it (an older one,
spoken here by hand) gets an error that says what is wrong instead of a
connection that just closes, and the server serves the next client. A
malformed "result_max" is refused by name.
"""

import socket
import struct

from netab_helpers import (HANG_TIMEOUT, Server, check, check_doc, check_eq, connect, frame, hello,
                           log, netab_run, recv_frame, run_main)

HOST = "127.0.0.1"
STREAMS = 128  # the most -P allows; 128 streams' results need about 68 KiB
PARAMS = {"test": "tcp_stream", "duration": 1.0, "bytes": 0, "streams": STREAMS,
          "reverse": False, "bidir": False, "block": 131072, "sockbuf": 0, "mss": 0,
          "nodelay": False, "congestion": "", "omit": 0.0, "interval": 1.0, "server_cpu": -1,
          "rate": 1000000, "gso": False, "gro": False, "req_size": 1, "resp_size": 1,
          "outstanding": 1, "rr_timeout_ms": 200, "linger0": False}


def tcp_many_streams(netab, srv):
    """-P 128 -n 128M: every stream's bytes arrive in the result, sender and receiver agree."""
    nbytes = 128 * 1024 * 1024
    r = netab_run(netab, ["-c", HOST, "-p", str(srv.port), "-P", str(STREAMS), "-n", "128M"],
                  timeout=HANG_TIMEOUT * 4)
    check_doc(r.doc, streams=STREAMS, nbytes=nbytes)


def udp_many_streams(netab, srv):
    """-u -P 128: the server's receiver view of every stream arrives."""
    r = netab_run(netab, ["-c", HOST, "-p", str(srv.port), "-u", "-P", str(STREAMS), "-b", "1M",
                          "-t", "1"], timeout=HANG_TIMEOUT * 2)
    check(r.doc.get("error") is None, "udp -P 128 failed", r.doc.get("error"))
    st = r.doc.get("streams")
    check(isinstance(st, list) and len(st) == STREAMS, "udp -P 128: streams[] length",
          None if st is None else len(st))
    for i, s in enumerate(st):
        got, sent = s["receiver"]["bytes"], s["sender"]["bytes"]
        check(0 < got <= sent, f"udp stream {i}: the server received {got} of {sent} bytes")
    end = r.doc["end"]
    check_eq(sum(s["receiver"]["bytes"] for s in st), end["receiver"]["bytes"],
             "sum of the streams' receiver bytes")


def raw_test(srv, start_extra):
    """Runs a 128-stream TCP test by hand; returns the server's last message (or None on close)."""
    s = connect(HOST, srv.port)
    data = []
    try:
        s.settimeout(HANG_TIMEOUT)
        s.sendall(frame(hello()))
        check_eq(recv_frame(s).get("type"), "welcome", "answer to hello")
        s.sendall(frame(dict({"type": "start", "params": PARAMS}, **start_extra)))
        acc = recv_frame(s)
        if acc.get("type") != "accept":
            return acc
        cookie = bytes.fromhex(acc["cookie"])
        for i in range(STREAMS):
            d = connect(HOST, srv.port)
            data.append(d)
            d.sendall(b"NDAT" + cookie + struct.pack(">II", i, 0))
        check_eq(recv_frame(s).get("type"), "ready", "answer once every stream is attached")
        for d in data:
            d.sendall(b"x" * 1000)
            d.shutdown(socket.SHUT_WR)
        s.sendall(frame({"type": "stop"}))
        return recv_frame(s, limit=1024 * 1024)
    finally:
        for d in data:
            d.close()
        s.close()


def older_client(netab, srv):
    msg = raw_test(srv, {})
    check(msg is not None, "a client without result_max: the server closed without a word")
    check_eq(msg.get("type"), "error", "answer to a client without result_max")
    check("fewer streams" in msg.get("message", ""), "the error does not say what to do", msg)
    log("  older client: " + msg["message"])
    msg = raw_test(srv, {"result_max": 1024 * 1024})
    check_eq(msg.get("type"), "result", "answer to a client with result_max")
    streams = msg["side"]["streams"]
    check_eq(len(streams), STREAMS, "streams in the large result")
    check_eq(sum(x["bytes"] for x in streams), STREAMS * 1000, "bytes the server counted")
    for bad in ("big", 100, 1.5e6):
        msg = raw_test(srv, {"result_max": bad})
        check(msg is not None and msg.get("type") == "error" and "result_max" in msg.get("message", ""),
              f"result_max {bad!r} was not refused by name", msg)


def body(netab):
    with Server(netab) as srv:
        for name, case in (("tcp -P 128", tcp_many_streams), ("udp -P 128", udp_many_streams),
                           ("raw clients", older_client)):
            log("case " + name)
            case(netab, srv)
        check(srv.alive(), "the server is not running at the end")
        tcp_many_streams(netab, srv)


run_main(body)
