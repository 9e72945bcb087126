#!/usr/bin/env python3
"""A hostile server cannot write terminal escape sequences to the client's
terminal (issue 34): what a peer says reaches stdout and stderr with its
control bytes as \\xNN (util/printable).

Cases, each against a Python socket server on loopback:
  error     a netab server that answers hello with an `error` whose message
            clears the screen (ESC [2J), sets the window title (OSC ... BEL)
            and forges a line with CR LF;
  software  a netab server whose `welcome` names another protocol version and
            a `software` string holding CR, ESC and BEL;
  version   --iperf3 through a proxy in front of a real `iperf3 -s -J` that
            puts a hostile `version` into the server's results document (the
            client prints it beside the server's CPU).
Each asserts that the client's stdout and stderr hold no raw ESC or BEL, and
that the escaped form (CR as \x0d included) is there: shown, not obeyed.
"""
import json
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402
from iperf3_client import Iperf3Server, free_port  # noqa: E402

HOSTILE = "\x1b[2J\x1b]0;pwned\x07boom\r\nnetab run: FAKE LINE"
HOSTILE_SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07boom\\x0d\\x0anetab run: FAKE LINE"
SOFTWARE = "evil\r\x1b[2J\x07fake"
SOFTWARE_SHOWN = "evil\\x0d\\x1b[2J\\x07fake"
VERSION = "iperf 3.12\x1b]0;pwned\x07\x1b[2J"
VERSION_SHOWN = "iperf 3.12\\x1b]0;pwned\\x07\\x1b[2J"
EXCHANGE_RESULTS = 13


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("peer closed")
        data += chunk
    return data


def send_frame(sock, obj):
    body = json.dumps(obj).encode()
    sock.sendall(struct.pack(">I", len(body)) + body)


class FakeNetabServer:
    """Answers one client's hello with reply (a message object), then closes."""

    def __init__(self, reply):
        self.reply = reply
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(h.HANG_TIMEOUT)
        self.port = self.sock.getsockname()[1]
        self.hello = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(h.HANG_TIMEOUT)
            (n,) = struct.unpack(">I", recv_exact(conn, 4))
            self.hello = json.loads(recv_exact(conn, n))
            send_frame(conn, self.reply)
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(4096):  # until the client closes
                pass

    def close(self):
        self.thread.join(timeout=h.HANG_TIMEOUT)
        self.sock.close()


def relay(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def relay_states(src, dst, seen):
    """The iperf3 server's control bytes: states as they are, and its results document (after
    EXCHANGE_RESULTS) with the hostile version put in."""
    try:
        while True:
            state = src.recv(1)
            if not state:
                break
            dst.sendall(state)
            if state[0] != EXCHANGE_RESULTS:
                continue
            (n,) = struct.unpack(">I", recv_exact(src, 4))
            doc = json.loads(recv_exact(src, n))
            start = doc.setdefault("server_output_json", {}).setdefault("start", {})
            start["version"] = VERSION
            body = json.dumps(doc).encode()
            dst.sendall(struct.pack(">I", len(body)) + body)
            seen.append(n)
    except (OSError, EOFError):
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class Iperf3Proxy:
    """Forwards every connection to the iperf3 server; the first (control) one is rewritten."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(1.0)
        self.port = self.sock.getsockname()[1]
        self.rewritten = []
        self.stopping = False
        self.threads = []
        self.conns = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        first = True
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            up = socket.create_connection(("127.0.0.1", self.upstream), timeout=h.HANG_TIMEOUT)
            conn.settimeout(h.HANG_TIMEOUT)
            self.conns += [conn, up]
            back = (lambda: relay_states(up, conn, self.rewritten)) if first else (
                lambda: relay(up, conn))
            first = False
            for fn in (lambda: relay(conn, up), back):
                t = threading.Thread(target=fn, daemon=True)
                t.start()
                self.threads.append(t)

    def close(self):
        self.stopping = True
        self.thread.join(timeout=h.HANG_TIMEOUT)
        for t in self.threads:
            t.join(timeout=h.HANG_TIMEOUT)
        for s in self.conns + [self.sock]:
            s.close()


def check_printable(c, r, shown, what):
    out = r.stdout + r.stderr
    # Python reads CR as a line end, so CR is proven by its escaped form (\x0d) below.
    raw = [ch for ch in ("\x1b", "\x07") if ch in out]
    c.check(not raw, f"{what}: no raw control bytes reach the client's output ({raw})",
            repr(out[-400:]))
    c.check(shown in out, f"{what}: the peer's text is shown escaped", repr(out[-400:]))


def netab_cases(netab, c):
    cases = (("error", {"type": "error", "message": HOSTILE}, HOSTILE_SHOWN),
             ("software", {"type": "welcome", "magic": "netab", "version": 99,
                           "software": SOFTWARE}, SOFTWARE_SHOWN))
    for name, reply, shown in cases:
        srv = FakeNetabServer(reply)
        try:
            r = h.netab_cmd(netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "-t", "1",
                            expect_rc=(1, 2), timeout=60)
        finally:
            srv.close()
        c.check(srv.hello is not None and srv.hello.get("type") == "hello",
                f"{name}: the client's hello reached the fake server", str(srv.hello))
        check_printable(c, r, shown, name)


def iperf3_case(netab, c):
    h.need_tools("iperf3")
    port = free_port()
    srv = Iperf3Server(port)
    proxy = Iperf3Proxy(port)
    try:
        r = h.netab_cmd(netab, "run", "-c", "127.0.0.1", "-p", str(proxy.port), "--iperf3", "-t",
                        "1", timeout=60)
    finally:
        proxy.close()
        srv.stop()
    c.check(len(proxy.rewritten) == 1, "version: the server's results document was rewritten",
            str(proxy.rewritten))
    check_printable(c, r, VERSION_SHOWN, "version")


def body(netab, c):
    netab_cases(netab, c)
    iperf3_case(netab, c)


if __name__ == "__main__":
    h.main(body)
