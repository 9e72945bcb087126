"""Chaos tests for `netab server` (issue 9): every test ends with its control
connection, vanished clients are noticed within the liveness timeout, idle
connection floods do not lock real clients out, SIGTERM always works.

Cases (each followed by a normal test the server must still serve):
  reset      control connection reset (SO_LINGER 0) right after "accept" (TCP
             kinds with a data connection: after "ready"), for every test
             kind; UDP kinds then send one registration. Nothing may keep
             running: the server closes the data connection (TCP) or the
             test's UDP port, and logs the hour-long test (it ended).
  flood      2,000 idle connections from 127.0.0.1; `netab run -c 127.0.0.2`
             and then `-c 127.0.0.1` against a server on 0.0.0.0 succeed.
  blackhole  (namespaces, root) a client blackholed by nft in the server's
             namespace during an hour-long test at 200 Mbit/s (UDP reverse and
             forward, TCP, tcp_crr): the server ends the test as vanished
             (only its liveness timeout can, before the harness's hang
             timeout) and sends nothing after (nft counter on its output);
             the client reports the vanished server.
  sigterm    SIGTERM during a running hour-long reverse UDP test: exit 0
             (a server that waited for the test would hang).

Tests wait for events (a frame, an interval line, a log line), never for
time; the only time bound is the harness's hang timeout.
"""

import contextlib
import os
import resource
import select
import signal
import socket
import struct
import threading
import time

from netab_helpers import (HANG_TIMEOUT, INTERVAL_LINE, NetnsPair, Server, TestFailure, check,
                           check_eq, connect, frame, hello, log, netab_run, recv_frame,
                           require_root_netns, run_main, sh, start, udp_ports_of_pid)

HOST = "127.0.0.1"

# Tests last an hour (the server's default --max-duration): only the event under test (a
# reset, a blackhole, SIGTERM) can end them in time, and one that does not end is a hang
# the harness's timeout fails. No check here is a speed expectation.
LONG = "3600"

BASE_PARAMS = {"duration": 3600.0, "bytes": 0, "streams": 1, "reverse": False, "bidir": False,
               "block": 1400, "sockbuf": 0, "mss": 0, "nodelay": False, "congestion": "",
               "omit": 0.0, "interval": 1.0, "server_cpu": -1, "rate": 200000000, "gso": False,
               "gro": False, "req_size": 1, "resp_size": 1, "outstanding": 1,
               "rr_timeout_ms": 200, "linger0": False}


def good_test(netab, port, what, host=HOST, netns=None):
    r = netab_run(netab, ["-c", host, "-p", str(port), "-t", "1"], netns=netns)
    check(r.doc.get("error") is None, f"normal test after {what} failed", r.describe())


def reset(sock):
    """Closes sock with an RST (SO_LINGER 0), as a crashed client would."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def read_until_closed(sock, timeout):
    """Reads sock (TCP) until its peer closes it (EOF or reset) or timeout passes; returns
    (bytes read, whether it was closed)."""
    total = 0
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        sock.settimeout(max(0.01, end - time.monotonic()))
        try:
            b = sock.recv(1 << 20)
        except socket.timeout:
            continue
        except OSError:  # reset
            return total, True
        if not b:
            return total, True
        total += len(b)
    return total, False


def case_reset(netab, srv, kind, reverse):
    what = f"{kind}{' -R' if reverse else ''}"
    params = dict(BASE_PARAMS, test=kind, reverse=reverse)
    if kind == "tcp_stream":
        params["block"] = 131072
    if kind == "udp_rr":
        params["req_size"] = params["resp_size"] = 64
    before = srv.log_text().count("test=" + kind)
    ctl = connect(HOST, srv.port)
    ctl.sendall(frame(hello()))
    check_eq(recv_frame(ctl).get("type"), "welcome", f"{what}: answer to hello")
    ctl.sendall(frame({"type": "start", "params": params}))
    acc = recv_frame(ctl)
    check_eq(acc.get("type"), "accept", f"{what}: answer to start")
    cookie = bytes.fromhex(acc["cookie"])
    data = None
    if kind in ("udp_stream", "udp_rr"):
        data = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        data.connect((HOST, acc["udp_ports"][0]))
        # Seen open now, so that seeing it closed later means something.
        check(acc["udp_ports"][0] in udp_ports_of_pid(srv.pid()),
              f"{what}: the test's UDP port is open before the reset", acc["udp_ports"])
        reset(ctl)
        data.send(b"NREG" + cookie + struct.pack(">I", 0))
    elif kind in ("tcp_stream", "tcp_rr"):
        data = connect(HOST, srv.port)
        data.sendall(b"NDAT" + cookie + struct.pack(">II", 0, 1 if reverse else 0))
        # "ready": the data connection is attached and the streams run; now the reset.
        check_eq(recv_frame(ctl).get("type"), "ready", f"{what}: answer to the data connection")
        reset(ctl)
    else:
        reset(ctl)
    if data is not None and data.type == socket.SOCK_STREAM:
        # The server ends the hour-long test, so its data connection closes (EOF or reset);
        # a server that kept the test running keeps it open: a hang.
        got, closed = read_until_closed(data, HANG_TIMEOUT)
        log(f"{what}: {got} bytes after the reset, then the server closed the data connection")
        check(closed, f"{what}: the server kept the data connection open after the reset", got)
    # The test lasts an hour: its log line comes only if the reset ended it.
    deadline = time.monotonic() + HANG_TIMEOUT
    while srv.log_text().count("test=" + kind) <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    check(srv.log_text().count("test=" + kind) > before,
          f"{what}: no log line for the reset test (it still runs: a hang)")
    if data is not None and data.type == socket.SOCK_DGRAM:
        # The test's UDP socket is closed once it ended: nothing can be sent from it any more.
        port = acc["udp_ports"][0]
        deadline = time.monotonic() + HANG_TIMEOUT
        while port in udp_ports_of_pid(srv.pid()) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(port not in udp_ports_of_pid(srv.pid()),
              f"{what}: the server kept the test's UDP port {port} open after the reset")
    if data is not None:
        data.close()
    good_test(netab, srv.port, f"a reset {what}")


def case_udp_rr_replies(netab, srv):
    """udp_rr: one response per valid request, none for registrations or malformed datagrams."""
    params = dict(BASE_PARAMS, test="udp_rr", duration=2.0, req_size=64, resp_size=64)
    ctl = connect(HOST, srv.port)
    try:
        ctl.sendall(frame(hello()))
        check_eq(recv_frame(ctl).get("type"), "welcome", "udp_rr: answer to hello")
        ctl.sendall(frame({"type": "start", "params": params}))
        acc = recv_frame(ctl)
        check_eq(acc.get("type"), "accept", "udp_rr: answer to start")
        cookie = bytes.fromhex(acc["cookie"])
        data = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        data.connect((HOST, acc["udp_ports"][0]))
        data.send(b"NREG" + cookie + struct.pack(">I", 0))
        check_eq(recv_frame(ctl).get("type"), "ready", "udp_rr: ready after registering")
        data.send(b"NREG" + cookie + struct.pack(">I", 0))  # a registration again: no answer
        for seq in range(10):
            data.send(b"NBU1" + struct.pack(">IQQ", 0, seq, 0) + b"x" * 40)
            data.send(b"NBU1" + struct.pack(">I", 7) + b"y" * 56)  # another stream's id
            data.send(b"junk")
        # Up to 10 answers (bounded wait: a slow server is not a wrong one), then a short
        # read that must find no 11th.
        replies, deadline = 0, time.monotonic() + 20
        with contextlib.suppress(socket.timeout):
            while replies < 10 and time.monotonic() < deadline:
                data.settimeout(max(0.01, deadline - time.monotonic()))
                data.recv(65536)
                replies += 1
            data.settimeout(0.5)
            data.recv(65536)
            replies += 1
        check_eq(replies, 10, "udp_rr responses to 10 valid requests among 31 datagrams")
        ctl.sendall(frame({"type": "stop"}))
        while True:
            m = recv_frame(ctl)
            if m is None or m.get("type") != "heartbeat":
                break
        check(m is not None and m.get("type") == "result", "udp_rr: result after stop", m)
        data.close()
    finally:
        ctl.close()


def proc_cpu_seconds(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def proc_sleeps(pid):
    """The voluntary context switches of pid's main thread (the front door): its wake-ups."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise TestFailure(f"no voluntary_ctxt_switches in /proc/{pid}/status")


def case_half_frame_cpu(netab, srv):
    """A connection holding part of its first message costs the event loop no CPU, and the
    idle front door sleeps until its next deadline (the connection's expiry, 10 s on) rather
    than waking on a period (issue 30: a 100 ms tick was 20 wake-ups here)."""
    s = connect(HOST, srv.port)
    try:
        s.sendall(struct.pack(">I", 200) + b'{"type": "hello", ')
        time.sleep(0.2)  # the front door has seen the connection and its bytes
        before = proc_cpu_seconds(srv.proc.pid)
        sleeps = proc_sleeps(srv.proc.pid)
        time.sleep(2.0)
        used = proc_cpu_seconds(srv.proc.pid) - before
        woken = proc_sleeps(srv.proc.pid) - sleeps
        log(f"half frame: the server used {used:.2f} CPU seconds and its front door woke "
            f"{woken} times in 2 s")
        check(used < 0.5, "the server spins on a connection with half a frame", used)
        # A log window of the cases before may end meanwhile: a wake-up or two, not a tick.
        check(woken <= 4, "the idle front door wakes on a period", woken)
    finally:
        s.close()


def raise_nofile(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))


def listen_queue(port):
    """Connections waiting in the accept queue of the IPv4 listener on port (/proc/net/tcp's
    rx_queue of a LISTEN socket), or None when no such listener is found."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fld = line.split()
            if fld[3] == "0A" and int(fld[1].split(":")[1], 16) == port:
                return int(fld[4].split(":")[1], 16)
    return None


def wait_flood_taken(socks, port):
    """Waits until every connect() of socks has finished (connected or refused) and the
    server has taken every pending connection off its accept queue: the flood is in."""
    poller = select.poll()
    pending = {s.fileno() for s in socks}
    for fd in pending:
        poller.register(fd, select.POLLOUT)
    deadline = time.monotonic() + HANG_TIMEOUT
    while pending:
        check(time.monotonic() < deadline, "the flood's connections did not complete",
              f"{len(pending)} pending")
        for fd, _ in poller.poll(100):
            pending.discard(fd)
            poller.unregister(fd)
    while listen_queue(port) != 0:
        check(time.monotonic() < deadline, "the server did not accept the flood",
              f"accept queue {listen_queue(port)}")
        time.sleep(0.05)


def case_flood(netab):
    raise_nofile(8192)
    with Server(netab, bind="0.0.0.0", extra=["--idle-timeout", "20000"]) as srv:
        idle = []
        try:
            for _ in range(2000):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    s.connect((HOST, srv.port))
                idle.append(s)
            wait_flood_taken(idle, srv.port)
            # The flood goes on (about 200 new idle connections a second) while real clients run.
            stop = threading.Event()

            def renew():
                while not stop.is_set() and len(idle) < 4000:
                    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    s.setblocking(False)
                    with contextlib.suppress(BlockingIOError):
                        s.connect((HOST, srv.port))
                    idle.append(s)
                    time.sleep(0.005)

            flood = threading.Thread(target=renew, daemon=True)
            flood.start()
            try:
                good_test(netab, srv.port, "2,000 idle connections (other address)",
                          host="127.0.0.2")
                # The oldest idle connections of 127.0.0.1 are shed for a new one from there.
                good_test(netab, srv.port, "2,000 idle connections (same address)", host=HOST)
            finally:
                stop.set()
                flood.join()
            check("too many connections from your address" in srv.log_text(),
                  "the server did not log shedding the idle connections")
            # A shed connection was told why.
            told = 0
            for s in idle[:50]:
                s.setblocking(True)
                s.settimeout(1.0)
                with contextlib.suppress(OSError):
                    if b"too many connections from your address" in s.recv(4096):
                        told += 1
            check(told > 0, "no shed connection got a message saying why")
        finally:
            for s in idle:
                s.close()


def case_memory(netab):
    """--max-memory: a test that would take the running tests over it is refused as busy."""
    with Server(netab, extra=["--max-memory", "40M"]) as srv:
        first = start([netab, "run", "-c", HOST, "-p", str(srv.port), "-R", "-P", "2", "-l", "16M",
                       "-t", LONG])
        try:
            # Its first interval line: the server accepted it and holds its memory.
            check(first.wait_output(INTERVAL_LINE), "the first test runs (an interval line)",
                  first.stdout_text()[-2000:], first.stderr_text()[-2000:])
            r = netab_run(netab, ["-c", HOST, "-p", str(srv.port), "-R", "-P", "2", "-l", "16M",
                                  "-t", "1"], expect_rc=1)
            text = r.doc.get("error") or ""
            check("server is busy" in text and "--max-memory" in text,
                  "a test over --max-memory is refused as busy, naming the limit", text)
        finally:
            # Killed on purpose, to free its memory on the server: SIGKILL is its exit.
            first.kill_group(signal.SIGKILL)
            first.finish(expect_rc=-signal.SIGKILL, timeout=HANG_TIMEOUT)
        # The first test's memory comes back when it ends (its client was killed).
        deadline = time.monotonic() + HANG_TIMEOUT
        while time.monotonic() < deadline:
            r = netab_run(netab, ["-c", HOST, "-p", str(srv.port), "-R", "-P", "2", "-l", "16M",
                                  "-t", "1"], expect_rc=(0, 1))
            if r.returncode == 0:
                break
            time.sleep(0.5)
        check_eq(r.returncode, 0, "a test fits again once the first one ended")


def case_sigterm(netab):
    with Server(netab) as srv:
        client = start([netab, "run", "-c", HOST, "-p", str(srv.port), "-u", "-R", "-b", "100M",
                        "-t", LONG])
        try:
            # Its first interval line: the test runs, datagrams flow.
            check(client.wait_output(INTERVAL_LINE), "the client's test runs (an interval line)",
                  client.stdout_text()[-2000:], client.stderr_text()[-2000:])
            # The test lasts an hour: a server that waited for it instead of stopping it is a
            # hang, which finish() fails. Exit status 0 and no sanitizer report, checked as
            # for every harness process.
            srv.proc.kill_group(signal.SIGTERM)
            srv.proc.finish(expect_rc=0, timeout=HANG_TIMEOUT)
            r = client.finish(expect_rc=1, timeout=HANG_TIMEOUT)
            out, err = r.stdout, r.stderr
            check("shutting down" in out + err or "vanished" in out + err
                  or "closed" in out + err, "client did not say the server went away", out, err)
        finally:
            if client.alive():
                client.abandon()


def nft_counter(ns):
    out = sh("nft", "list", "table", "netdev", "netab_chaos", netns=ns)
    for line in out.splitlines():
        if "counter packets" in line and "udp" in line:  # the first rule: UDP to the client
            return int(line.split("counter packets")[1].split()[0])
    raise TestFailure("nft counter not found:\n" + out)


def case_blackhole(netab, pair, what, test_args):
    ns_s, ns_c = pair.ns_b, pair.ns_a
    udp = "-u" in test_args
    with Server(netab, netns=ns_s, bind=pair.addr_b) as srv:
        args = [netab, "run", "-c", pair.addr_b, "-p", str(srv.port), "-t", LONG] + test_args
        client = start(args, netns=ns_c)
        try:
            # Its first interval line: the test runs.
            check(client.wait_output(INTERVAL_LINE), f"{what}: the test runs (an interval line)",
                  client.stdout_text()[-2000:], client.stderr_text()[-2000:])
            # A silent blackhole: the server's packets to the client vanish on the wire (netdev
            # egress, counted; a drop there is not reported to the sender, unlike one in the
            # output hook) and nothing from the client arrives.
            sh("nft", "add", "table", "netdev", "netab_chaos", netns=ns_s)
            sh("nft", "add", "chain", "netdev", "netab_chaos", "out",
               f"{{ type filter hook egress device {pair.dev_b} priority 0; }}", netns=ns_s)
            sh("nft", "add", "chain", "netdev", "netab_chaos", "in",
               f"{{ type filter hook ingress device {pair.dev_b} priority 0; }}", netns=ns_s)
            sh("nft", "add", "rule", "netdev", "netab_chaos", "out", "ip", "daddr", pair.addr_a,
               "meta", "l4proto", "udp", "counter", "drop", netns=ns_s)
            sh("nft", "add", "rule", "netdev", "netab_chaos", "out", "ip", "daddr", pair.addr_a,
               "drop", netns=ns_s)
            sh("nft", "add", "rule", "netdev", "netab_chaos", "in", "ip", "saddr", pair.addr_a,
               "drop", netns=ns_s)
            # The test lasts an hour: only the liveness timeout can end it before the hang
            # timeout. "vanished" is in the server's log line for the test (result=...),
            # written after its streams stopped.
            check(srv.wait_log("vanished", timeout=HANG_TIMEOUT),
                  f"{what}: the server logged the vanished client")
            at_end = nft_counter(ns_s)
            if udp and "-R" in test_args:
                check(at_end > 0, f"{what}: the counter saw none of the server's datagrams")
            r = client.finish(expect_rc=1, timeout=HANG_TIMEOUT)
            out, err = r.stdout, r.stderr
            check("vanished" in out + err or "timed out" in out + err,
                  f"{what}: client did not report the vanished server", out[-2000:], err[-2000:])
            # Once the test ended the server sent nothing more towards the client.
            later = nft_counter(ns_s)
            log(f"blackhole {what}: {at_end} of the server's datagrams dropped before it ended "
                f"the test, {later - at_end} after")
            check_eq(later, at_end, f"{what}: datagrams the server sent after ending the test")
        finally:
            if client.alive():
                client.abandon()
            sh("nft", "delete", "table", "netdev", "netab_chaos", netns=ns_s, check_rc=False)
        good_test(netab, srv.port, f"a blackholed {what} client", host=pair.addr_b, netns=ns_c)


def body(netab):
    srv = Server(netab).start()
    try:
        for kind, reverse in (("udp_stream", False), ("udp_stream", True), ("tcp_stream", True),
                              ("tcp_stream", False), ("tcp_rr", False), ("udp_rr", False),
                              ("tcp_crr", False)):
            case_reset(netab, srv, kind, reverse)
        case_udp_rr_replies(netab, srv)
        case_half_frame_cpu(netab, srv)
    except BaseException:
        log("--- server log ---\n" + srv.log_text()[-6000:])
        srv.stop()
        raise
    # After all those resets nothing is left running: SIGTERM ends the server (a test left
    # running for its hour would hold it: a hang stop() reports).
    problem = srv.stop()
    check(problem is None, "server after the resets", problem)
    case_flood(netab)
    case_memory(netab)
    case_sigterm(netab)
    require_root_netns()
    with NetnsPair("chaos") as pair:
        for what, args in (("udp reverse", ["-u", "-b", "200M", "-R"]),
                           ("udp forward", ["-u", "-b", "200M"]),
                           ("tcp reverse", ["-R"]),
                           ("tcp_crr", ["--test", "tcp_crr"])):
            case_blackhole(netab, pair, what, args)


if __name__ == "__main__":
    run_main(body)
