#!/usr/bin/env python3
"""Garbage at a running UDP test must be counted, never trusted, and must not stop it.

While `netab run -u -b 10M -t 3 --db DB` runs against a real server on loopback, this
test finds the server's UDP data port (ss, filtered by the server's pid, with
/proc/net/udp as a fallback) and sends it:

* from a separate Python socket: garbage, short datagrams, and a datagram
  with a valid-looking netab header. The receiver checks the source address
  against the registered client first, so all of these count as `foreign`.
* when root: the same kinds of datagram with the client's own address and
  port as source (raw socket, loopback only), which pass the address check
  and must count as `malformed` (short, wrong magic, wrong stream id).

The garbage starts after the client's first interval line (data flows, the
registration is over). Asserts, in the run's document read back from DB,
end.receiver.foreign == what the foreign socket sent, malformed ==
what was spoofed, malformed + foreign > 0, and the datagram accounting of
the real stream stays exact: sender packets == receiver packets + lost, no
loss, no duplicates.
"""
import os
import socket
import json
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

ROUNDS = 20


def foreign_payloads():
    return [
        b"\x00" * 100,                                               # garbage
        b"NBU",                                                     # short
        b"NBU1" + struct.pack(">IQQ", 0, 10**9, 0),                  # valid header, stranger
        os.urandom(1460),                                           # random, full size
    ]


def spoof_payloads():
    # None of these may parse as stream 0: that would count as data.
    return [
        b"NBU1\x00\x00",                                             # short
        b"XXXX" + struct.pack(">IQQ", 0, 5, 0) + b"\x00" * 100,     # wrong magic
        b"NBU1" + struct.pack(">IQQ", 7, 5, 0) + b"\x00" * 100,     # wrong stream id
    ]


# A registration (control, not data) resent from the client's own address: it must be
# ignored entirely, neither malformed nor counted in receiver.bytes.
REGISTRATION = b"NREG" + bytes(16) + struct.pack(">I", 0)


def raw_udp(src_port, dst_port, payload):
    """An IPv4+UDP packet 127.0.0.1:src_port -> 127.0.0.1:dst_port (UDP checksum 0: none)."""
    udp = struct.pack(">HHHH", src_port, dst_port, 8 + len(payload), 0) + payload
    total = 20 + len(udp)
    lo = socket.inet_aton("127.0.0.1")
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, socket.IPPROTO_UDP, 0, lo,
                     lo)
    return ip + udp


def client_udp_port(client_pid, server_port):
    """Local port of the client's UDP socket connected to server_port (ss, by pid)."""
    for line in h.sh("ss", "-uanpH").splitlines():
        if f"pid={client_pid}," not in line:
            continue
        addrs = [f for f in line.split() if ":" in f and not f.startswith("users:")]
        if len(addrs) >= 2 and addrs[1].endswith(f":{server_port}"):
            return int(addrs[0].rsplit(":", 1)[1])
    return None


def test(netab, c):
    h.need_tools("ss")
    with h.Server(netab) as srv:
        # Text output, for its interval lines (the event that data flows); the run's JSON
        # document comes from the store afterwards.
        db = os.path.join(h.WORK_DIR, "malformed.db")
        argv = [netab, "run", "--db", db, "-c", "127.0.0.1", "-p", str(srv.port), "-u", "-b",
                "10M", "-t", "3", "-i", "1"]
        client = h.start(argv)
        fsock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        raw = None
        sent_foreign = sent_spoofed = spoofed_bytes = sent_regs = 0
        try:
            # The first interval line: registration is over and data flows, so our datagrams
            # reach the stream receiver, not the registration wait.
            c.check(client.wait_output(h.INTERVAL_LINE), "the UDP test runs (an interval line)",
                    client.stdout_text()[-1000:] + client.stderr_text()[-1000:])
            # Find the server's data port and the client's.
            ports, cport, deadline = [], None, time.monotonic() + 10
            while time.monotonic() < deadline and client.poll() is None:
                ports = h.udp_ports_of_pid(srv.pid()) or h.udp_ports_of_pid_proc(srv.pid())
                if ports:
                    cport = client_udp_port(client.pid, ports[0])
                if ports and cport:
                    break
                time.sleep(0.05)
            c.check(len(ports) == 1, "found the server's UDP data port by its pid", str(ports))
            c.check(cport is not None, "found the client's UDP source port", str(cport))
            if os.geteuid() == 0:
                # Root can always open one (CI runs as root): a failure is not a reason to skip.
                try:
                    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
                except OSError as e:
                    c.check(False, "root opens a raw socket for the spoofed datagrams", str(e))
            else:
                c.note("not root: no raw socket, so the malformed-from-peer part does not run")
            for _ in range(ROUNDS):
                if client.poll() is not None:
                    break
                for port in ports:
                    for p in foreign_payloads():
                        fsock.sendto(p, ("127.0.0.1", port))
                        sent_foreign += 1
                    if raw is not None and cport:
                        for p in spoof_payloads():
                            raw.sendto(raw_udp(cport, port, p), ("127.0.0.1", 0))
                            sent_spoofed += 1
                            spoofed_bytes += len(p)
                        raw.sendto(raw_udp(cport, port, REGISTRATION), ("127.0.0.1", 0))
                        sent_regs += 1
                time.sleep(0.02)
            r = client.finish(expect_rc=0, timeout=60)
        finally:
            fsock.close()
            if raw is not None:
                raw.close()
            if not client.checked:
                client.abandon()
        rc, err = r.returncode, r.stderr
        try:
            doc = json.loads(h.netab_cmd(netab, "runs", "show", "1", "--db", db,
                                         "--json").stdout).get("result")
        except (json.JSONDecodeError, AttributeError):
            doc = None
        e = h.end_of(doc)
        c.check(rc == 0 and e, "the UDP test completes despite the garbage",
                f"rc={rc} {err.strip()[:300]}")
        if not e:
            return
        snd, rcv = e["sender"], e["receiver"]
        c.note(f"sent {sent_foreign} foreign and {sent_spoofed} spoofed datagrams; receiver "
               f"counted foreign={rcv['foreign']} malformed={rcv['malformed']}; stream sent "
               f"{snd['packets']}, received {rcv['packets']}, lost {rcv['lost_packets']}")
        c.check(rcv["malformed"] + rcv["foreign"] > 0, "malformed + foreign > 0")
        c.check(rcv["foreign"] == sent_foreign,
                "every datagram from another socket counted as foreign",
                f"{rcv['foreign']} vs {sent_foreign}")
        if raw is not None and cport:
            c.check(rcv["malformed"] == sent_spoofed,
                    "every bad datagram from the client's own address counted as malformed",
                    f"{rcv['malformed']} vs {sent_spoofed}")
            # receiver.bytes counts malformed datagrams too (docs/json.md), registrations never.
            c.check(rcv["bytes"] == snd["bytes"] + spoofed_bytes,
                    f"receiver bytes == sender bytes + the {sent_spoofed} malformed datagrams' "
                    f"bytes (the {sent_regs} resent registrations count nowhere)",
                    f"{rcv['bytes']} vs {snd['bytes']} + {spoofed_bytes}")
        c.check(snd["packets"] == rcv["packets"] + rcv["lost_packets"],
                "sender packets == receiver packets + lost_packets")
        c.check(rcv["lost_packets"] == 0 and rcv["duplicates"] == 0,
                "garbage is not taken for data: no loss, no duplicates",
                f"lost={rcv['lost_packets']} dup={rcv['duplicates']}")
        c.check(snd["packets"] > 0 and rcv["packets"] == snd["packets"],
                "receiver packets == sender packets", f"{rcv['packets']} vs {snd['packets']}")


if __name__ == "__main__":
    h.main(test)
