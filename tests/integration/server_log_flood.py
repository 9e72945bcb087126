#!/usr/bin/env python3
"""A flood of refused connections cannot flood the server's log (docs/server.md, "Log lines").

3,000 connections from 127.0.0.1 to a server with --auth-key, a thousand of
each: a hello and a close (the client that will not prove the key), an HTTP
GET, and a wrong proof; then 2,000 to a server without a key (a hello and a
close, an HTTP GET). The server logs the first --log-burst of a host's
events in each 10 s window one line each and folds the rest into one
summary line per window, written at the window's end or when the server
stops. The log must hold a bounded number of lines (at most burst + 1 per
window the flood spanned), the full lines and the summaries' counts must
add up to exactly the connections, each kind counted as often as it was caused, and
each refused client that waited for an answer got one naming the reason.
The server then still serves a real test.

The same holds for iperf3's protocol on the same port: 2,000 iperf3 clients
whose parameters ask for 100,000 streams, each refused with SERVER_ERROR,
leave at most 50 lines with the default --log-burst (docs/server.md: 11),
all of them counted under "bad parameters"; a real iperf3 test (Debian's
iperf3) and a real netab test are served after them.
"""
import json
import os
import random
import re
import secrets
import socket
import struct
import tempfile
import time

from netab_helpers import (
    Server, check, check_eq, connect, frame, hello, log, netab_run, parse_one_json, recv_frame,
    run_cmd, run_main,
)

EACH = 1000
BURST = 5
SUMMARY = re.compile(r"netab-server: refused or closed ([0-9,]+) more connections from "
                     r"127\.0\.0\.1 in the last [0-9]+ s: (.*)$")


def auth_hello():
    h = hello()
    h["auth"] = {"method": "hmac-sha256", "nonce": secrets.token_hex(32)}
    return h


def hello_and_close(port):
    s = connect("127.0.0.1", port)
    s.sendall(frame(auth_hello()))
    s.shutdown(socket.SHUT_WR)
    # The server closes once it has logged: one connection at a time, so none is shed.
    while s.recv(65536):
        pass
    s.close()


def http_get(port):
    s = connect("127.0.0.1", port)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    m = recv_frame(s)
    s.close()
    check(m is not None and m.get("type") == "error" and "message" in m,
          "an HTTP request is told why it is refused", m)


def wrong_proof(port):
    s = connect("127.0.0.1", port)
    s.sendall(frame(auth_hello()))
    w = recv_frame(s)
    check(w is not None and w.get("type") == "welcome", "welcome before the proof", w)
    s.sendall(frame({"type": "auth", "proof": secrets.token_hex(32)}))
    m = recv_frame(s)
    s.close()
    check(m is not None and m.get("type") == "error"
          and "authentication failed" in m.get("message", ""),
          "a wrong proof is told that authentication failed", m)


def iperf3_refused(port):
    """An iperf3 client asking for 100,000 streams: PARAM_EXCHANGE, then SERVER_ERROR."""
    s = connect("127.0.0.1", port)
    cookie = "".join(random.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(36))
    s.sendall(cookie.encode() + b"\0")
    check_eq(s.recv(1), b"\x09", "PARAM_EXCHANGE after an iperf3 cookie")
    doc = json.dumps({"tcp": True, "parallel": 100000, "time": 1}).encode()
    s.sendall(struct.pack(">I", len(doc)) + doc)
    # SERVER_ERROR (-2) and iperf3's error number 114 (cannot receive the parameters).
    reply = b""
    while len(reply) < 9:
        part = s.recv(9 - len(reply))
        if not part:
            break
        reply += part
    s.close()
    check(len(reply) == 9 and reply[0] == 0xFE and struct.unpack(">I", reply[1:5])[0] == 114,
          "an iperf3 client over --max-streams is told SERVER_ERROR", reply)


def iperf3_real(port):
    """Debian's iperf3 runs a real test; returns the bytes it says arrived."""
    r = run_cmd(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-J", "-t", "1"], timeout=60)
    doc = parse_one_json(r.stdout, r)
    check(doc.get("error") is None, "iperf3's test after the flood has no error", doc.get("error"))
    return doc["end"]["sum_received"]["bytes"]


def counts(text):
    """'a ×1,234, b ×5' -> {'a': 1234, 'b': 5}."""
    out = {}
    for part in re.finditer(r"([^,×]+?) ×([0-9,]+)", text):
        out[part.group(1).strip()] = out.get(part.group(1).strip(), 0) + int(
            part.group(2).replace(",", ""))
    return out


def classify(line):
    """The kind of a line logged in full, as its summary would count it."""
    if "authentication failed" in line:
        return "authentication failed"
    if "protocol=iperf3 refused:" in line:
        return "bad parameters"
    if "peer closed the control connection" in line:
        return "closed before its test started"
    if "refused:" in line:
        return "bad greeting"
    return line.split("closed: ")[-1]


def flood(netab, srv, cases, auth_key=None, burst=BURST, after=None):
    """Runs EACH connections of every case (then after(port) if given), stops srv; returns
    the kinds counted in its log."""
    try:
        t0 = time.monotonic()
        for i in range(len(cases) * EACH):
            cases[i % len(cases)](srv.port)
        elapsed = time.monotonic() - t0
        if after:
            after(srv.port)
        # A real client is still served (its line is not rate-limited: it ran a test).
        netab_run(netab, ["-c", "127.0.0.1", "-p", str(srv.port), "-t", "0.3"]
                  + (["--auth-key", auth_key] if auth_key else []))
    finally:
        problem = srv.stop()
    check(problem is None, "the server stops cleanly", problem)
    total = len(cases) * EACH
    lines = [x for x in srv.log_text().splitlines() if "netab-server:" in x]
    peer = [x for x in lines if "peer=127.0.0.1:" in x and " test=" not in x]
    sums = [m for m in (SUMMARY.search(x) for x in lines) if m]
    folded = sum(int(m.group(1).replace(",", "")) for m in sums)
    log(f"{total} refused connections in {elapsed:.1f} s: {len(lines)} log lines, "
        f"{len(peer)} in full, {len(sums)} summaries folding {folded}")
    for m in sums:
        log("summary: " + m.group(0))
    check_eq(len(peer) + folded, total, "every refused connection is logged or counted")
    windows = int(elapsed // 10) + 2  # the flood began at some point in a window
    check(len(peer) + len(sums) <= windows * (burst + 1),
          f"at most {burst} full lines and one summary per 10 s window ({windows} windows)",
          len(peer), len(sums))
    check(len(sums) >= 1, "the folded connections are summarised")
    kinds = {}
    for m in sums:
        for k, n in counts(m.group(2)).items():
            kinds[k] = kinds.get(k, 0) + n
    check_eq(sum(kinds.values()), folded, "the summaries' kinds add up to their counts")
    for x in peer:
        kinds[classify(x)] = kinds.get(classify(x), 0) + 1
    check(any("test=tcp_stream" in x and "result=ok" in x for x in lines),
          "the real client's test ran and is logged")
    return kinds


def body(netab):
    with tempfile.TemporaryDirectory() as d:
        key = os.path.join(d, "key")
        with open(key, "wb") as f:
            f.write(secrets.token_bytes(32))
        os.chmod(key, 0o600)
        srv = Server(netab, extra=["--auth-key", key, "--log-burst", str(BURST)]).start()
        kinds = flood(netab, srv, (hello_and_close, http_get, wrong_proof), key)
        # Hello-and-close is a client that would not prove the key: also "authentication failed".
        check_eq(kinds, {"authentication failed": 2 * EACH, "bad greeting": EACH},
                 "with --auth-key: each connection counted under its kind")
    # Without a key, a hello and a close is a client gone before its test.
    srv = Server(netab, extra=["--log-burst", str(BURST)]).start()
    kinds = flood(netab, srv, (hello_and_close, http_get))
    check_eq(kinds, {"closed before its test started": EACH, "bad greeting": EACH},
             "without a key: each connection counted under its kind")
    # iperf3's protocol, with the default --log-burst (10): the same limits, the same summaries.
    srv = Server(netab).start()
    got = []
    kinds = flood(netab, srv, (iperf3_refused, iperf3_refused), burst=10,
                  after=lambda port: got.append(iperf3_real(port)))
    check_eq(kinds, {"bad parameters": 2 * EACH}, "iperf3: each refusal counted as bad parameters")
    check(got and got[0] > 0, "iperf3: a real iperf3 test after the flood moved bytes", got)
    lines = [x for x in srv.log_text().splitlines() if "netab-server:" in x]
    check(len(lines) <= 50, "iperf3: 2,000 refusals leave at most 50 log lines", len(lines))
    check(any("protocol=iperf3" in x and "result=ok" in x for x in lines),
          "iperf3: the real iperf3 test is logged")


if __name__ == "__main__":
    run_main(body)
