#!/usr/bin/env python3
"""Every control connection has TCP_NODELAY, read back from the running processes.

A short control message must not wait ~40 ms behind Nagle's algorithm for
the peer's delayed ACK while the test's data flows (docs/protocol.md,
"Connections on one port"; docs/iperf3.md). While a test runs, this test
takes a duplicate of each end's control socket with pidfd_getfd(2) and
reads TCP_NODELAY from the kernel:

1. `netab run` against `netab server`: the client's control socket and the
   server's are 1; a data connection (no -N) is 0, so the check tells the
   two apart.
2. Debian's `iperf3 -c` against `netab server`: the server's iperf3 control
   socket is 1.

The control connection is told from the data connections by the client's
order (it connects it first: its lowest socket descriptor towards the
server's port); the server's end is the socket whose peer is that port.
"""
import ctypes
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

SYS_PIDFD_GETFD = 438
libc = ctypes.CDLL(None, use_errno=True)


def tcp_table():
    """inode -> (local port, remote port) of every TCP socket (IPv4 and IPv6)."""
    out = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            next(f)
            for line in f:
                col = line.split()
                local, remote, inode = col[1], col[2], int(col[9])
                out[inode] = (int(local.rsplit(":", 1)[1], 16), int(remote.rsplit(":", 1)[1], 16))
    return out


def sockets_of(pid):
    """[(fd, inode)] of pid's sockets, by descriptor."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            out.append((int(fd), int(target[8:-1])))
    return sorted(out)


def nodelay(pid, fd):
    """TCP_NODELAY of descriptor fd of process pid (a duplicate taken with pidfd_getfd)."""
    pidfd = os.pidfd_open(pid)
    try:
        dup = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
        if dup < 0:
            e = ctypes.get_errno()
            raise h.TestFailure(f"pidfd_getfd({pid}, {fd}): {os.strerror(e)}")
        s = socket.socket(fileno=dup)
        try:
            return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            s.close()
    finally:
        os.close(pidfd)


def connections(pid, server_port):
    """pid's TCP sockets connected to server_port, by descriptor: [(fd, local port)]."""
    table = tcp_table()
    return [(fd, table[ino][0]) for fd, ino in sockets_of(pid)
            if ino in table and table[ino][1] == server_port]


def server_end(pid, server_port, peer_port):
    """The server's descriptor of its connection from peer_port."""
    table = tcp_table()
    for fd, ino in sockets_of(pid):
        if table.get(ino) == (server_port, peer_port):
            return fd
    return None


def wait_for(cond, seconds):
    """Polls cond every 20 ms for at most seconds (a hang guard); returns its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    return cond()


def netab_ends(netab, c, srv):
    client = h.start([netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "-t", "3", "-P", "2",
                      "--json"])
    try:
        # The control connection and both data connections are up once the test runs.
        conns = wait_for(lambda: (lambda x: x if len(x) >= 3 else None)(
            connections(client.pid, srv.port)), 20)
        h.check(conns, "netab run: control and data connections are established",
                client.stderr_text())
        (ctl_fd, ctl_port), (data_fd, data_port) = conns[0], conns[1]
        c.check(nodelay(client.pid, ctl_fd) == 1, "netab run: the client's control socket has "
                "TCP_NODELAY", f"fd {ctl_fd}")
        c.check(nodelay(client.pid, data_fd) == 0, "netab run: a data socket (no -N) has not",
                f"fd {data_fd}")
        sfd = server_end(srv.pid(), srv.port, ctl_port)
        c.check(sfd is not None and nodelay(srv.pid(), sfd) == 1,
                "netab server: its end of the control connection has TCP_NODELAY", f"fd {sfd}")
        dfd = server_end(srv.pid(), srv.port, data_port)
        c.check(dfd is not None and nodelay(srv.pid(), dfd) == 0,
                "netab server: its end of a data connection (no -N) has not", f"fd {dfd}")
    finally:
        r = client.finish(timeout=60)
    c.check(h.parse_one_json(r.stdout, r).get("error") is None, "netab run: the test succeeded")


def iperf3_end(c, srv):
    client = h.start(["iperf3", "-c", "127.0.0.1", "-p", str(srv.port), "-t", "3", "-J"])
    try:
        conns = wait_for(lambda: (lambda x: x if len(x) >= 2 else None)(
            connections(client.pid, srv.port)), 20)
        h.check(conns, "iperf3: control and data connections are established",
                client.stderr_text())
        sfd = server_end(srv.pid(), srv.port, conns[0][1])
        c.check(sfd is not None and nodelay(srv.pid(), sfd) == 1,
                "netab server: its end of an iperf3 control connection has TCP_NODELAY",
                f"fd {sfd}")
        dfd = server_end(srv.pid(), srv.port, conns[1][1])
        c.check(dfd is not None and nodelay(srv.pid(), dfd) == 0,
                "netab server: its end of an iperf3 data connection (no -N) has not", f"fd {dfd}")
    finally:
        r = client.finish(timeout=60)
    c.check(h.parse_one_json(r.stdout, r).get("error") is None, "iperf3: the test succeeded")


def body(netab, c):
    h.need_tools("iperf3")
    with h.Server(netab) as srv:
        netab_ends(netab, c, srv)
        iperf3_end(c, srv)


if __name__ == "__main__":
    h.main(body)
