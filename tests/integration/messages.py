#!/usr/bin/env python3
"""Error messages name the party and the phase, one wording per condition.

(a) A server killed in the middle of a test: the client names the server
    (address and port) and what it was doing ("while the test ran"), not
    "peer closed the control connection (0 of 4 bytes of a control message)".
(b) The local host refusing to send (an nft rule dropping UDP output in a
    namespace of the test's own): udp_stream and udp_rr report it in the same
    words, "send: Operation not permitted" (udp_rr said "Input/output error").
(c) A "start" whose streams are out of range gets one sentence whether the
    value is above or below the range (129: "not an integer in range 0..128",
    0: "out of range 1..128" before).
"""
import re
import signal

from netab_helpers import (
    PIPE, NetnsPair, Server, check, check_eq, connect, frame, hello, log, netab_cmd, recv_frame,
    require_root_netns, run_main, sh, start,
)


def server_killed_mid_test(netab):
    srv = start([netab, "server", "-p", "0", "--port-file", "/dev/stdout"], stdout=PIPE)
    try:
        port = int(srv.stdout.readline().strip())
        client = start([netab, "run", "-c", "127.0.0.1", "-p", str(port), "-t", "10", "-i",
                        "0.2"], stdout=PIPE)
        line = client.stdout.readline()  # the first interval: the test runs
        check(line.strip() != "", "the test runs before the server is killed", line)
        srv.send(signal.SIGKILL)
        srv.finish(expect_rc=-signal.SIGKILL)
        r = client.finish(expect_rc=1)
    finally:
        if not srv.checked:
            srv.kill_group()
            srv.finish(expect_rc=(0, -signal.SIGKILL))
    err = r.stderr.strip()
    log("server killed mid-test: " + err)
    check(f"the server 127.0.0.1:{port} closed the control connection while the test ran" in err,
          "the client names the server and the phase", err)
    check("peer closed" not in err, "no bare 'peer closed'", err)


def local_drop(netab):
    require_root_netns(("ip", "nft"))
    with NetnsPair("msg") as pair:
        ns = pair.ns_a
        with Server(netab, netns=pair.ns_b, bind=pair.addr_b) as srv:
            # Registrations (24 bytes) pass; the test's own datagrams (1000 bytes) are refused.
            sh("nft", "add", "table", "inet", "netab_m", netns=ns)
            sh("nft", "add", "chain", "inet", "netab_m", "out",
               "{ type filter hook output priority 0; }", netns=ns)
            sh("nft", "add", "rule", "inet", "netab_m", "out", "udp", "length", ">", "500",
               "drop", netns=ns)
            said = {}
            for kind, opts in (("udp_stream", ["-u", "-l", "1000", "-b", "10M"]),
                               ("udp_rr", ["--test", "udp_rr", "--req-size", "1000"])):
                r = netab_cmd(netab, "run", "-c", pair.addr_b, "-p", str(srv.port), "-t", "1",
                              *opts, netns=ns, expect_rc=1, timeout=60)
                m = re.search(r"stream \d+: (.*)$", r.stderr.strip(), re.M)
                check(m is not None, f"{kind}: the failing stream is named", r.stderr)
                said[kind] = m.group(1)
                log(f"{kind} with its datagrams dropped locally: {r.stderr.strip()}")
            check_eq(said["udp_rr"], said["udp_stream"], "one wording for a local drop")
            check(said["udp_rr"].startswith("send: Operation not permitted"),
                  "the wording says sending was not permitted", said)


def streams_range(netab):
    with Server(netab) as srv:
        said = {}
        for n in (0, 129):
            s = connect("127.0.0.1", srv.port)
            s.sendall(frame(hello()))
            check_eq(recv_frame(s).get("type"), "welcome", "welcome")
            params = {"test": "tcp_stream", "duration": 1.0, "bytes": 0, "streams": n,
                      "reverse": False, "bidir": False, "block": 1000, "sockbuf": 0, "mss": 0,
                      "nodelay": False, "congestion": "", "omit": 0.0, "interval": 1.0,
                      "server_cpu": -1, "rate": 0, "gso": False, "gro": False, "req_size": 1,
                      "resp_size": 1, "outstanding": 1, "rr_timeout_ms": 200, "linger0": False}
            s.sendall(frame({"type": "start", "params": params}))
            m = recv_frame(s)
            s.close()
            check(m is not None and m.get("type") == "error", f"streams {n} is refused", m)
            said[n] = m["message"]
        log(f"streams 0: {said[0]!r}; streams 129: {said[129]!r}")
        check_eq(said[0], "streams 0 is out of range 1..128", "streams 0")
        check_eq(said[129], "streams 129 is out of range 1..128", "streams 129: the same sentence")


def body(netab):
    server_killed_mid_test(netab)
    streams_range(netab)
    local_drop(netab)


if __name__ == "__main__":
    run_main(body)
