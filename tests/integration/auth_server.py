"""--auth-key with real `netab server` processes on loopback.

netab run with the right key is served (tcp_stream, udp_stream, tcp_crr);
without a key, with another key, or with a key against a keyless server it
fails with exit 1 and "authentication failed", and the server logs the
refusal. Key files readable by others or too short are refused by both
commands before anything runs. A raw client that implements the handshake
from docs/protocol.md with Python's hmac module shows that the protocol is
what the document says: a replayed or tampered proof is refused, "accept"
carries no cookie, a data connection with a guessed cookie is rejected and
one with the cookie derived from the session is attached.
"""

import hashlib
import hmac
import os
import secrets
import shutil
import socket
import struct
import tempfile

from netab_helpers import (
    Server, check, check_doc, connect, frame, hello, log, netab_run, recv_frame, run_cmd, run_main,
)


def write_key(path, data, mode=0o600):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def expect_auth_failure(r, what):
    check(r.returncode == 1, f"{what}: exit status 1 expected", r.describe())
    check("authentication failed" in r.stderr, f"{what}: stderr names authentication", r.describe())


def mac(key, label, nc, ns):
    return hmac.new(key, label + b"\0" + nc + ns, hashlib.sha256).digest()


def raw_hello(srv, key, nc=None):
    """Sends hello with a client nonce; returns (socket, nc, welcome)."""
    nc = nc or secrets.token_bytes(32)
    s = connect("127.0.0.1", srv.port)
    h = hello()
    h["auth"] = {"method": "hmac-sha256", "nonce": nc.hex()}
    s.sendall(frame(h))
    w = recv_frame(s)
    check(w is not None and w["type"] == "welcome", "welcome to a client with a nonce", w)
    a = w.get("auth", {})
    ns = bytes.fromhex(a["nonce"])
    check(len(ns) == 32, "server nonce is 32 bytes", a)
    want = mac(key, b"netab auth v1 server", nc, ns)
    check(bytes.fromhex(a["proof"]) == want, "server proof is HMAC-SHA-256 as documented", a)
    return s, nc, ns


def expect_refused(s, srv, what):
    m = recv_frame(s)
    check(m is not None and m["type"] == "error", f"{what}: error reply", m)
    check("authentication failed" in m["message"], f"{what}: names authentication", m)
    s.close()


TCP_PARAMS = {
    "test": "tcp_stream", "duration": 0.3, "bytes": 0, "streams": 1, "reverse": False,
    "bidir": False, "block": 1000, "sockbuf": 0, "mss": 0, "nodelay": False, "congestion": "",
    "omit": 0.0, "interval": 1.0, "server_cpu": -1, "rate": 1000000, "gso": False, "gro": False,
    "req_size": 1, "resp_size": 1, "outstanding": 1, "rr_timeout_ms": 200, "linger0": False,
}


def case_raw_protocol(srv, key):
    # A replayed client proof: the server's nonce is fresh, so last session's proof fails.
    s, nc, ns = raw_hello(srv, key)
    old_proof = mac(key, b"netab auth v1 client", nc, ns)
    s.close()
    s, nc2, ns2 = raw_hello(srv, key, nc=nc)
    check(ns2 != ns, "the server's nonce is fresh in every session")
    s.sendall(frame({"type": "auth", "proof": old_proof.hex()}))
    expect_refused(s, srv, "replayed proof")
    check(srv.wait_log("refused: authentication failed: the client's proof does not match"),
          "server logs the replayed proof", srv.log_text())

    # A tampered proof (one bit flipped).
    s, nc, ns = raw_hello(srv, key)
    p = bytearray(mac(key, b"netab auth v1 client", nc, ns))
    p[7] ^= 0x10
    s.sendall(frame({"type": "auth", "proof": bytes(p).hex()}))
    expect_refused(s, srv, "tampered proof")

    # The right proof: the test's cookie is derived, never sent, and binds data connections.
    s, nc, ns = raw_hello(srv, key)
    s.sendall(frame({"type": "auth", "proof": mac(key, b"netab auth v1 client", nc, ns).hex()}))
    s.sendall(frame({"type": "start", "params": TCP_PARAMS}))
    acc = recv_frame(s)
    check(acc is not None and acc["type"] == "accept", "accept after a good proof", acc)
    check("cookie" not in acc, "an authenticated accept carries no cookie", acc)
    cookie = mac(key, b"netab auth v1 cookie", nc, ns)[:16]
    guess = connect("127.0.0.1", srv.port)
    guess.sendall(b"NDAT" + secrets.token_bytes(16) + struct.pack(">II", 0, 0))
    check(srv.wait_log("rejected data connection: unknown cookie"),
          "a data connection with a guessed cookie is rejected", srv.log_text())
    guess.close()
    d = connect("127.0.0.1", srv.port)
    d.sendall(b"NDAT" + cookie + struct.pack(">II", 0, 0))
    ready = recv_frame(s)
    check(ready is not None and ready["type"] == "ready", "the derived cookie attaches", ready)
    d.sendall(b"Z" * 3000)
    d.shutdown(socket.SHUT_WR)
    s.sendall(frame({"type": "stop"}))
    res = recv_frame(s)
    check(res is not None and res["type"] == "result", "result of the raw test", res)
    check(res["side"]["streams"][0]["bytes"] == 3000, "server counted the raw test's bytes", res)
    d.close()
    s.close()


def body(netab):
    tmp = tempfile.mkdtemp(prefix="netab-auth-")
    try:
        cases(netab, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cases(netab, tmp):
    secret = secrets.token_bytes(32).hex().encode()
    key = write_key(os.path.join(tmp, "key"), secret + b"\n")
    other = write_key(os.path.join(tmp, "other"), secrets.token_bytes(32).hex().encode())
    shared = write_key(os.path.join(tmp, "shared"), secret, mode=0o644)
    short = write_key(os.path.join(tmp, "short"), b"0123456789\n")

    # Key files that are not private or too short stop both commands at once.
    for path, needle in ((shared, "group or others"), (short, "at least 16")):
        r = run_cmd([netab, "server", "-p", "0", "--auth-key", path], expect_rc=2)
        check(r.returncode == 2 and needle in r.stderr, f"server refuses key file {path}",
              r.describe())
        r = netab_run(netab, ["-t", "0.2", "--auth-key", path], expect_rc=2)
        check(needle in r.doc.get("error", ""), f"run refuses key file {path}", r.describe())

    # Without -c the in-process server takes the same key, and the exchange runs on loopback.
    check_doc(netab_run(netab, ["-t", "0.3", "-i", "0", "--auth-key", key]).doc)

    # Each case checks its own log line: no rate limit here (server_log_flood tests it).
    with Server(netab, extra=["--auth-key", key, "--log-burst", "1000000"]) as srv:
        c = ["-c", "127.0.0.1", "-p", str(srv.port), "-t", "0.5", "-i", "0"]
        r = netab_run(netab, c + ["--auth-key", key])
        check_doc(r.doc)
        r = netab_run(netab, c + ["-u", "-b", "10M", "--auth-key", key])
        check(r.doc["end"]["receiver"]["packets"] > 0, "authenticated UDP test got datagrams",
              r.describe())
        r = netab_run(netab, c + ["--test", "tcp_crr", "--auth-key", key])
        check(r.doc["end"]["transactions"] > 0, "authenticated tcp_crr test ran", r.describe())

        r = netab_run(netab, c, expect_rc=1)
        expect_auth_failure(r, "client without a key")
        check("requires a key" in r.stderr, "says the server requires a key", r.describe())
        check(srv.wait_log("refused: authentication failed: this server requires a key"),
              "server logs the keyless client", srv.log_text())

        r = netab_run(netab, c + ["--auth-key", other], expect_rc=1)
        expect_auth_failure(r, "client with another key")
        check(srv.wait_log("refused: authentication failed: the client closed the connection"),
              "server logs the client with another key", srv.log_text())

        case_raw_protocol(srv, secret)

        # After all that, a real client is still served.
        check_doc(netab_run(netab, c + ["--auth-key", key]).doc)

    with Server(netab) as plain:
        c = ["-c", "127.0.0.1", "-p", str(plain.port), "-t", "0.3", "-i", "0"]
        r = netab_run(netab, c + ["--auth-key", key], expect_rc=1)
        expect_auth_failure(r, "client with a key against a keyless server")
        check("did not prove" in r.stderr, "says the server proved nothing", r.describe())
        # Without --auth-key on either end nothing changed: accept still carries the cookie.
        check_doc(netab_run(netab, c).doc)
    log("auth: right key served; no key, other key and keyless server refused; raw protocol ok")


run_main(body)
