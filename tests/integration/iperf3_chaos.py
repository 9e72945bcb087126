#!/usr/bin/env python3
"""Chaos for netab server's iperf3 protocol (docs/iperf3.md): a hostile or
broken iperf3-speaking peer cannot crash, wedge or monopolise the server.

The server runs with --max-clients 1 and --idle-timeout 1000, so a test slot
that a broken peer failed to give back would refuse every later test.

Cases (each followed by a real iperf3 test the server must serve):
  reset     an iperf3 client reset (RST) at each state: after the cookie, after
            the parameters, while streams are created, while a reverse test
            runs (the server sending), after TEST_END; the server logs the
            test's end for those that reached a test and keeps serving.
  idle      a connection that sends 10 bytes of a cookie and nothing more, and
            one that sends the cookie and no parameters, are closed after the
            idle timeout with a log line.
  hostile   parameter documents that are too long, not JSON, with duplicate
            keys, wrong types, out-of-range values or refused features: each
            is answered with SERVER_ERROR and a log line naming the member.
  busy      while an iperf3 test runs, a second iperf3 client gets
            ACCESS_DENIED (--max-clients 1); iperf3 says the server is busy.
  auth      a server with --auth-key refuses iperf3 clients (they cannot prove
            the key) with "test authorization failed" and a log line; netab
            clients with the key still test.
  flood     600 hostile iperf3 connections from one host in turn (a malformed
            cookie, a cookie and a close, a bad parameter document) to a
            server with the default --log-burst: the log holds at most 10
            lines in full and one summary line per 10 s window, the summaries
            count every connection under its kind, and a real iperf3 test is
            served after them.

The first server runs with --log-burst 1000, so that each case above finds
its own line in the log (the default, 10 lines per host and 10 s, would fold
most of them into summaries: docs/server.md, "Log lines").
"""
import json
import os
import random
import re
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
PARAMS = {"tcp": True, "omit": 0, "time": 3, "num": 0, "blockcount": 0, "parallel": 1,
          "len": 131072, "client_version": "chaos"}


def wait_for(cond, seconds):
    """Polls cond every 50 ms for at most seconds (a hang guard, not a measurement)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def cookie():
    return ("".join(random.choice(ALPHABET) for _ in range(36)) + "\0").encode()


def rst(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def read_state(sock):
    sock.settimeout(10)
    b = sock.recv(1)
    if not b:
        raise h.TestFailure("the server closed instead of sending a state")
    return struct.unpack("b", b)[0]


def send_doc(sock, obj):
    text = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    sock.sendall(struct.pack(">I", len(text)) + text)


def iperf3_ok(c, port, what):
    r = h.run_cmd(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-J", "-t", "1"], timeout=60)
    doc = h.parse_one_json(r.stdout, r)
    got = doc.get("end", {}).get("sum_received", {}).get("bytes", 0)
    c.check(doc.get("error") is None and got > 0, f"a real iperf3 test is served after {what}",
            str(doc.get("error")))


def start_test(port, params, stop_at):
    """An iperf3 client by hand up to stop_at; returns its sockets."""
    ctl = h.connect("127.0.0.1", port)
    ck = cookie()
    ctl.sendall(ck)
    socks = [ctl]
    if stop_at == "cookie":
        return socks
    h.check(read_state(ctl) == 9, "PARAM_EXCHANGE after the cookie")
    send_doc(ctl, params)
    if stop_at == "params":
        return socks
    h.check(read_state(ctl) == 10, "CREATE_STREAMS after the parameters")
    if stop_at == "create":
        return socks
    for _ in range(params["parallel"]):
        d = h.connect("127.0.0.1", port)
        d.sendall(ck)
        socks.append(d)
    h.check(read_state(ctl) == 1 and read_state(ctl) == 2, "TEST_START, TEST_RUNNING")
    if stop_at == "running":
        time.sleep(0.5)  # let data flow before the reset
        return socks
    ctl.sendall(bytes([4]))
    h.check(read_state(ctl) == 13, "EXCHANGE_RESULTS after TEST_END")
    return socks


def resets(c, srv):
    for stop_at in ("cookie", "params", "create", "running", "results"):
        params = dict(PARAMS, reverse=True) if stop_at == "running" else PARAMS
        before = srv.log_text().count("protocol=iperf3")
        socks = start_test(srv.port, params, stop_at)
        for s in socks:
            rst(s)
        if stop_at != "cookie":
            c.check(wait_for(lambda: srv.log_text().count("protocol=iperf3") > before, 15),
                    f"reset at {stop_at}: the server logs the test's end")
        iperf3_ok(c, srv.port, f"a reset at {stop_at}")


def idle(c, srv):
    half = h.connect("127.0.0.1", srv.port)
    half.sendall(cookie()[:10])
    quiet = h.connect("127.0.0.1", srv.port)
    quiet.sendall(cookie())
    h.check(read_state(quiet) == 9, "PARAM_EXCHANGE")
    for s, what in ((half, "10 bytes of a cookie"), (quiet, "a cookie and no parameters")):
        s.settimeout(15)
        try:
            rest = s.recv(4096)
            closed = True
        except (socket.timeout, ConnectionResetError):
            rest, closed = b"", False
        c.check(closed, f"idle: {what} is closed after the idle timeout", repr(rest[:40]))
        s.close()
    # The server may close the socket a moment before its log line is written: wait for the
    # line (a hang guard, not a measurement) rather than read the log at once.
    c.check(wait_for(lambda: "silent before its first message" in srv.log_text(), 15),
            "idle: the half cookie is logged as silent")
    c.check("protocol=iperf3 refused: cannot read an iperf3 JSON document" in srv.log_text(),
            "idle: the missing parameters are logged")
    iperf3_ok(c, srv.port, "idle connections")


HOSTILE = [
    (b"not json", "not valid JSON"),
    (b'{"tcp":true,"time":2,"time":3,"parallel":1}', "duplicate"),
    (dict(PARAMS, parallel=100000), "'parallel'"),
    (dict(PARAMS, parallel="4"), "'parallel' must be an integer"),
    (dict(PARAMS, time=10 ** 9), "'time'"),
    (dict(PARAMS, len=-1), "'len'"),
    (dict(PARAMS, window=2 ** 40), "'window'"),
    (dict(PARAMS, udp=True), "exactly one of 'tcp' and 'udp'"),
    ({"sctp": True, "time": 2, "parallel": 1}, "SCTP"),
    (dict(PARAMS, authtoken="x" * 100), "authentication"),
    (dict(PARAMS, congestion="x" * 300), "'congestion'"),
    (dict(PARAMS, title=["x"]), "'title'"),
    (dict(PARAMS, fqrate=10 ** 15), "'fqrate'"),
]


def hostile(c, srv):
    for doc, want in HOSTILE:
        ctl = h.connect("127.0.0.1", srv.port)
        ctl.sendall(cookie())
        read_state(ctl)
        send_doc(ctl, doc)
        st = read_state(ctl)
        c.check(st == -2, f"hostile {want}: SERVER_ERROR", f"state {st}")
        ctl.close()
        c.check(wait_for(lambda: want in srv.log_text(), 10),
                f"hostile {want}: the log names it")
    ctl = h.connect("127.0.0.1", srv.port)
    ctl.sendall(cookie())
    read_state(ctl)
    ctl.sendall(struct.pack(">I", 8193))
    c.check(read_state(ctl) == -2, "a document of 8193 bytes is refused before it is read")
    ctl.close()
    iperf3_ok(c, srv.port, "hostile parameters")


def busy(c, srv):
    first = h.start(["iperf3", "-c", "127.0.0.1", "-p", str(srv.port), "-J", "-t", "3"])

    def connections():  # the first client's control and data connections, once it runs
        out = h.sh("ss", "-Htn", "state", "established", f"( dport = :{srv.port} )")
        return len(out.splitlines())

    c.check(wait_for(lambda: connections() >= 2, 20),
            "busy: the first iperf3 test runs (control and data connections)", first.stderr_text())
    r = h.run_cmd(["iperf3", "-c", "127.0.0.1", "-p", str(srv.port), "-J", "-t", "1"],
                  timeout=60)
    doc = h.parse_one_json(r.stdout, r)
    c.check("busy" in str(doc.get("error")), "busy: a second iperf3 client hears the server is busy",
            str(doc.get("error")))
    r1 = first.finish(timeout=60)
    doc1 = h.parse_one_json(r1.stdout, r1)
    c.check(doc1.get("error") is None, "busy: the first test completes", str(doc1.get("error")))


def auth(netab, c):
    key = os.path.join(h.WORK_DIR, "key")
    with open(key, "wb") as f:
        f.write(os.urandom(32).hex().encode() + b"\n")
    os.chmod(key, 0o600)
    with h.Server(netab, extra=["--auth-key", key]) as srv:
        r = h.run_cmd(["iperf3", "-c", "127.0.0.1", "-p", str(srv.port), "-J", "-t", "1"],
                      timeout=60)
        doc = h.parse_one_json(r.stdout, r)
        c.check(doc.get("error") == "test authorization failed",
                "auth: an iperf3 client cannot test on a server with --auth-key",
                str(doc.get("error")))
        c.check("iperf3 clients cannot prove the --auth-key" in srv.log_text(),
                "auth: the log says why")
        ok = h.netab_run(netab, ["-c", "127.0.0.1", "-p", str(srv.port), "-t", "1",
                                 "--auth-key", key])
        c.check(ok.doc.get("error") is None, "auth: a netab client with the key still tests")


FLOOD_EACH = 200
SUMMARY = re.compile(r"refused or closed ([0-9,]+) more connections from 127\.0\.0\.1 in the "
                     r"last [0-9]+ s: (.*)$")


def flood_one(port, i):
    s = h.connect("127.0.0.1", port)
    if i % 3 == 0:
        s.sendall(b"a" * 37)  # iperf3's alphabet, but no NUL at its end: a malformed cookie
    elif i % 3 == 1:
        s.sendall(cookie())
        read_state(s)  # PARAM_EXCHANGE, then the client goes away
    else:
        s.sendall(cookie())
        read_state(s)
        send_doc(s, dict(PARAMS, parallel=100000))
        h.check(read_state(s) == -2, "flood: a bad document is answered with SERVER_ERROR")
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):  # the server closes once it has logged
        pass
    s.close()


def flood(netab, c):
    with h.Server(netab, extra=["--idle-timeout", "1000"]) as srv:
        t0 = time.monotonic()
        for i in range(3 * FLOOD_EACH):
            flood_one(srv.port, i)
        elapsed = time.monotonic() - t0
        iperf3_ok(c, srv.port, "a flood of hostile iperf3 connections")
        problem = srv.stop()  # the server writes the last window's summary as it stops
        c.check(problem is None, "flood: the server stops cleanly", str(problem))
        lines = [x for x in srv.log_text().splitlines() if "netab-server:" in x]
        full = [x for x in lines if "peer=127.0.0.1:" in x and "result=ok" not in x]
        sums = [m for m in (SUMMARY.search(x) for x in lines) if m]
        kinds = {}
        for m in sums:
            for part in re.finditer(r"([^,×]+?) ×([0-9,]+)", m.group(2)):
                k = part.group(1).strip()
                kinds[k] = kinds.get(k, 0) + int(part.group(2).replace(",", ""))
        for x in full:
            k = ("bad greeting" if "malformed iperf3 cookie" in x else
                 "bad parameters" if "'parallel'" in x else "closed before its test started")
            kinds[k] = kinds.get(k, 0) + 1
        windows = int(elapsed // 10) + 2
        c.note(f"flood: {3 * FLOOD_EACH} connections in {elapsed:.1f} s: {len(lines)} log lines, "
               f"{len(full)} in full, {len(sums)} summaries: {kinds}")
        c.check(len(full) + len(sums) <= windows * 11,
                f"flood: at most 10 full lines and a summary per 10 s window ({windows})",
                f"{len(full)} + {len(sums)}")
        c.check(kinds == {"bad greeting": FLOOD_EACH, "closed before its test started": FLOOD_EACH,
                          "bad parameters": FLOOD_EACH},
                "flood: every connection is logged or counted under its kind", str(kinds))


def body(netab, c):
    h.need_tools("iperf3")
    with h.Server(netab, extra=["--max-clients", "1", "--idle-timeout", "1000",
                                "--log-burst", "1000"]) as srv:
        resets(c, srv)
        idle(c, srv)
        hostile(c, srv)
        busy(c, srv)
    auth(netab, c)
    flood(netab, c)


if __name__ == "__main__":
    h.main(body)
