#!/usr/bin/env python3
"""A netab server survives hostile and broken peers and keeps serving.

One server process (--idle-timeout 1000 --max-streams 2 --max-duration 2)
receives garbage, an oversized length, silence, a client killed mid-test, a
data connection with a wrong cookie, a wrong protocol version and requests
beyond its limits; after each, a normal `netab run -c` test must succeed,
and the server must still be alive at the end. A second server with
--max-clients 1 checks the "busy" answer.

"Promptly" is enforced only by generous timeouts that catch hangs, never
by a speed threshold.
"""

import re
import signal
import socket
import struct
import threading
import time

from netab_helpers import (HANG_TIMEOUT, PIPE, Server, TestFailure, check, check_doc, check_eq, connect, frame,
                           hello, log, netab_run, recv_exact, recv_frame, run_main, start)

HOST = "127.0.0.1"
IO_TIMEOUT = 20.0  # per socket read: only to turn a hang into a failure


def good_test(netab, srv, what):
    """A normal small test against srv must succeed."""
    r = netab_run(netab, ["-c", HOST, "-p", str(srv.port), "-n", "1M", "-P", "2"], timeout=HANG_TIMEOUT)
    check_doc(r.doc, streams=2, nbytes=1024 * 1024)
    check(srv.alive(), f"server died after {what}")


def expect_error_or_close(s, what, must_mention=None, must_error=False):
    """Reads what the server answers: an error frame (then a close), or just a close."""
    s.settimeout(IO_TIMEOUT)
    try:
        msg = recv_frame(s)
    except (ConnectionResetError, BrokenPipeError):
        msg = None
    except socket.timeout:
        raise TestFailure(f"{what}: server neither answered nor closed within {IO_TIMEOUT} s")
    if msg is None:
        check(not must_error, f"{what}: server closed without an error message")
        return None
    check_eq(msg.get("type"), "error", f"{what}: type of the server's answer")
    text = msg.get("message")
    check(isinstance(text, str) and text, f"{what}: error message without text", msg)
    if must_mention:
        check(must_mention.lower() in text.lower(), f"{what}: error does not mention {must_mention!r}", text)
    # After an error the server ends the session and closes the connection.
    try:
        rest = s.recv(1)
    except ConnectionResetError:
        rest = b""
    except socket.timeout:
        raise TestFailure(f"{what}: server did not close after its error")
    check_eq(rest, b"", f"{what}: bytes after the error frame")
    log(f"  {what}: server said: {text}")
    return text


def case_garbage(netab, srv):
    """(a) Garbage instead of a hello: an error frame or a close, never a hang or crash."""
    garbage = [
        ("random bytes", bytes([0x13, 0x37, 0xC0, 0xDE]) + bytes(range(256)) * 4),
        ("HTTP request", b"GET / HTTP/1.1\r\nHost: netab\r\n\r\n"),
        ("length 0", struct.pack(">I", 0)),
        ("invalid JSON", struct.pack(">I", 12) + b"{not json!!}"),
        ("JSON array", struct.pack(">I", 7) + b"[1,2,3]"),
        ("object without type", struct.pack(">I", 8) + b'{"a": 1}'),
        ("start before hello", frame({"type": "start", "params": {}})),
        ("wrong magic", frame({"type": "hello", "magic": "iperf", "version": 1})),
        ("truncated body then close", struct.pack(">I", 100) + b'{"type": "hel'),
        ("NUL bytes", b"\x00" * 64),
    ]
    for what, data in garbage:
        s = connect(HOST, srv.port)
        try:
            s.sendall(data)
            if what.startswith("truncated"):
                s.shutdown(socket.SHUT_WR)
            must_error = what in ("length 0", "invalid JSON", "JSON array", "object without type",
                                  "start before hello", "wrong magic")
            expect_error_or_close(s, f"garbage ({what})", must_error=must_error)
        finally:
            s.close()
    good_test(netab, srv, "garbage")


def case_huge_length(netab, srv):
    """(b) A length prefix of 0xFFFFFFF0: an error naming the limit, no allocation, no crash."""
    s = connect(HOST, srv.port)
    try:
        s.sendall(struct.pack(">I", 0xFFFFFFF0))
        text = expect_error_or_close(s, "length 0xFFFFFFF0", must_mention="limit", must_error=True)
        check(str(0xFFFFFFF0) in text or "exceeds" in text, "length error does not say what was too long", text)
    finally:
        s.close()
    # The same after a valid hello: the limit holds for every frame, not just the first.
    s = connect(HOST, srv.port)
    try:
        s.sendall(frame(hello()))
        check_eq(recv_frame(s).get("type"), "welcome", "answer to a valid hello")
        s.sendall(struct.pack(">I", 0xFFFFFFF0) + b"x" * 100)
        expect_error_or_close(s, "length 0xFFFFFFF0 after hello", must_mention="limit", must_error=True)
    finally:
        s.close()
    good_test(netab, srv, "a huge length prefix")


def case_silent(netab, srv):
    """(c) Silent peers (no bytes; half a frame) do not hold up a normal test."""
    silent = connect(HOST, srv.port)
    half = connect(HOST, srv.port)
    try:
        half.sendall(struct.pack(">I", 200) + b'{"type": "hello", ')
        good_test(netab, srv, "silent connections")
        # Both are cut off by the idle timeout (1 s): the server closes them.
        for s, what in ((silent, "silent connection"), (half, "half a frame")):
            expect_error_or_close(s, what)
    finally:
        silent.close()
        half.close()
    check(srv.wait_log("silent", timeout=IO_TIMEOUT), "server did not log the silent peer")


def case_killed_client(netab, srv):
    """(d) A client killed with SIGKILL mid-test: the server logs it and serves the next client."""
    before = srv.log_text().count("result=")
    p = start([netab, "run", "-c", HOST, "-p", str(srv.port), "-t", "2", "-i", "0.2", "-P", "2"],
              stdout=PIPE)
    try:
        # The first interval line shows the test is running: kill it then.
        wait_first_interval(p, "the client to be killed")
        check(p.poll() is None, "the client ended before it could be killed")
        p.send(signal.SIGKILL)
        p.finish(expect_rc=-signal.SIGKILL)
    finally:
        if not p.checked:
            p.abandon()
    # The next client is served (the killed test's session may still be
    # ending: the server allows several tests at once).
    good_test(netab, srv, "a killed client")
    # The killed test ends with a logged failure, within the idle timeout.
    deadline = time.monotonic() + IO_TIMEOUT
    failed = []
    while time.monotonic() < deadline:
        lines = [ln for ln in srv.log_text().splitlines() if "result=" in ln]
        failed = [ln for ln in lines[before:] if "result=ok" not in ln]
        if failed:
            break
        time.sleep(0.1)
    check(failed, "the server logged no failed test for the killed client", srv.log_text())
    log(f"  killed client logged as: {failed[0]}")
    good_test(netab, srv, "a killed client (after its session ended)")


INTERVAL_LINE = re.compile(r"^\s*\d+\.\d+-\s*\d+\.\d+\s")


def wait_first_interval(proc, what):
    """Reads proc's text output until its first interval line (the test is running)."""
    seen = []

    def reader():
        for ln in proc.stdout:
            seen.append(ln)
            if INTERVAL_LINE.match(ln):
                return

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(HANG_TIMEOUT)
    check(seen and INTERVAL_LINE.match(seen[-1]), f"{what} printed no interval line",
          "".join(seen), "exit status", proc.poll())


def start_test(srv, streams=1):
    """Speaks the control protocol up to "accept"; returns (socket, cookie)."""
    params = {"test": "tcp_stream", "duration": 1.0, "bytes": 0, "streams": streams,
              "reverse": False, "bidir": False, "block": 131072, "sockbuf": 0, "mss": 0,
              "nodelay": False, "congestion": "", "omit": 0.0, "interval": 1.0, "server_cpu": -1,
              "rate": 1000000, "gso": False, "gro": False, "req_size": 1, "resp_size": 1,
              "outstanding": 1, "rr_timeout_ms": 200, "linger0": False}
    s = connect(HOST, srv.port)
    s.sendall(frame(hello()))
    check_eq(recv_frame(s).get("type"), "welcome", "answer to hello")
    s.sendall(frame({"type": "start", "params": params}))
    acc = recv_frame(s)
    check_eq(acc.get("type"), "accept", "answer to start")
    cookie = bytes.fromhex(acc["cookie"])
    check_eq(len(cookie), 16, "cookie length")
    return s, cookie


def data_header(cookie, stream=0, server_sends=0):
    return b"NDAT" + cookie + struct.pack(">II", stream, server_sends)


def expect_rejected_data(srv, hdr, what):
    d = connect(HOST, srv.port)
    try:
        d.sendall(hdr)
        d.settimeout(IO_TIMEOUT)
        try:
            got = d.recv(1)
        except ConnectionResetError:
            got = b""
        except socket.timeout:
            raise TestFailure(f"{what}: the server kept the data connection open")
        check_eq(got, b"", f"{what}: the server sent data on a rejected connection")
    finally:
        d.close()


def case_wrong_cookie(netab, srv):
    """(e) Data connections with a wrong cookie, index or direction are rejected."""
    ctl, cookie = start_test(srv)
    try:
        wrong = bytes(b ^ 0xFF for b in cookie)
        expect_rejected_data(srv, data_header(wrong), "wrong cookie")
        expect_rejected_data(srv, data_header(cookie, stream=7), "stream index out of range")
        expect_rejected_data(srv, data_header(cookie, server_sends=1), "wrong direction")
        expect_rejected_data(srv, data_header(cookie, server_sends=9), "invalid direction word")
        expect_rejected_data(srv, b"NDAT" + cookie[:5], "truncated data header")
        # None attached, so the test fails within the idle timeout with an error.
        text = expect_error_or_close(ctl, "test without its data connection", must_error=True)
        check("data connection" in text, "error does not say data connections are missing", text)
    finally:
        ctl.close()
    check(srv.wait_log("unknown cookie", timeout=IO_TIMEOUT), "server did not log the wrong cookie")
    good_test(netab, srv, "wrong cookies")


def case_wrong_version(netab, srv):
    """(f) A hello with another protocol version gets an error that says "version"."""
    for version in (2, 0, 999999):
        s = connect(HOST, srv.port)
        try:
            s.sendall(frame(hello(version=version)))
            expect_error_or_close(s, f"hello version {version}", must_mention="version", must_error=True)
        finally:
            s.close()
    good_test(netab, srv, "a wrong protocol version")


def case_limits(netab, srv):
    """(h) --max-streams and (i) --max-duration refuse the test with a clear error."""
    base = ["-c", HOST, "-p", str(srv.port)]
    for args, needle in ((["-P", "4", "-t", "1"], "--max-streams"),
                         (["--bidir", "-P", "2", "-t", "1"], "--max-streams"),
                         (["-t", "5"], "--max-duration"),
                         (["-t", "1.5", "-O", "1"], "--max-duration")):
        r = netab_run(netab, base + args, expect_rc=1)
        err = r.doc.get("error")
        check(isinstance(err, str) and needle in err, f"`netab run {' '.join(args)}`: error lacks {needle}", err)
        check(r.doc.get("end") is None, "refused test has an end object", r.doc.get("end"))
        check(needle in r.stderr, f"`netab run {' '.join(args)}` (--json): stderr lacks {needle}", r.stderr)
    good_test(netab, srv, "refused tests")


def case_busy(netab):
    """(g) --max-clients 1: a second client while a test runs gets "busy" and exit 1."""
    with Server(netab, extra=["--max-clients", "1"]) as srv:
        first = start([netab, "run", "-c", HOST, "-p", str(srv.port), "-t", "3", "-i", "0.2"],
                      stdout=PIPE)
        try:
            # Wait until the first test is running (its first interval line).
            wait_first_interval(first, "the first client")
            r = netab_run(netab, ["-c", HOST, "-p", str(srv.port), "-t", "1"], expect_rc=1)
            err = r.doc.get("error")
            check(isinstance(err, str) and "busy" in err, "second client's error lacks 'busy'", err)
            first.finish(expect_rc=0)
        finally:
            if not first.checked:
                first.abandon()
        # Once the first test ended, the slot is free again.
        good_test(netab, srv, "busy")


def body(netab):
    # Each case checks its own log line: no rate limit here (server_log_flood tests it).
    with Server(netab, extra=["--idle-timeout", "1000", "--max-streams", "2",
                              "--max-duration", "2", "--log-burst", "1000000"]) as srv:
        good_test(netab, srv, "start-up")
        for name, case in (("a: garbage", case_garbage), ("b: huge length", case_huge_length),
                           ("c: silent peers", case_silent), ("d: killed client", case_killed_client),
                           ("e: wrong cookie", case_wrong_cookie),
                           ("f: wrong version", case_wrong_version),
                           ("h/i: limits", case_limits)):
            log(f"case {name}")
            case(netab, srv)
        log("case j: still alive")
        check(srv.alive(), "the server is not running at the end")
        good_test(netab, srv, "all bad inputs")
        log("server log:\n" + srv.log_text())
    log("case g: busy")
    case_busy(netab)


if __name__ == "__main__":
    run_main(body)
