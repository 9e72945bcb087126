#!/usr/bin/env python3
"""iperf3 clients (Debian's iperf3) against `netab server` (docs/iperf3.md).

1. Loopback, on netab's own port: `iperf3 -c -J` for -t 2, -t 2 -R, -t 2 -P 4,
   -t 2 --bidir and -u -b 200M -t 2 ends without an "error" member and with
   non-zero end.sum_received.bytes (UDP: end.sum.bytes, what the client sent)
   equal within 0.1% to what netab's server logged for the test: the bytes
   it received; with -R the bytes the client reported receiving, which the
   log carries as peer_received (netab's own sent count is larger by what
   was in flight when iperf3's client stopped counting: logged, not checked).
   --get-server-output returns netab's figures (system-wide CPU included).
2. Two iperf3 clients at once are both served, and a netab client on the
   same port is served during them and after them; `netab run --iperf3`
   against netab's server works too.
3. Namespaces (root): iperf3 -c in A against netab server in B (-P 4 on
   port 5201 served by --iperf3-port, then
   UDP on the server's own port with nftables dropping 2% in B): the
   client's lost_packets (from netab's counts) match the nft drop counter.
4. iperf3's TCP send paths, which netab's server follows when it sends
   (-R), as iperf3's own sender would: `--fq-rate 200M` and `-b 300M` give
   iperf3 a received rate within 5% of the rate asked (unpaced, loopback
   runs at tens of Gbit/s); `-Z` makes the server send with sendfile
   (strace attached to the server counts its sendfile calls: some with -Z,
   none without).
"""
import json
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

LINE = re.compile(r"protocol=iperf3 client=\S+ test=(\S+) .* sent=(\d+) received=(\d+) "
                  r"peer_sent=(\d+) peer_received=(\d+) seconds=\S+ result=(.*)$")


def iperf3_lines(srv):
    out = []
    for line in srv.log_text().splitlines():
        m = LINE.search(line)
        if m:
            out.append({"test": m.group(1), "sent": int(m.group(2)), "received": int(m.group(3)),
                        "peer_sent": int(m.group(4)), "peer_received": int(m.group(5)),
                        "result": m.group(6)})
    return out


def iperf3_client(port, opts, host="127.0.0.1", netns=None, timeout=60):
    """Runs iperf3 -c -J; iperf3 3.12 exits 0 even when the test failed, so "error" is the sign."""
    port_opt = ["-p", str(port)] if port else []  # None: iperf3's default port, 5201
    r = h.run_cmd(["iperf3", "-c", host, "-J"] + port_opt + opts, netns=netns, timeout=timeout)
    return h.parse_one_json(r.stdout, r)


def within(a, b):
    return b > 0 and abs(a - b) <= 0.001 * b


def wait_lines(srv, n):
    for _ in range(100):  # bounded: up to 5 s for the session to write its line
        lines = iperf3_lines(srv)
        if len(lines) >= n:
            return lines
        time.sleep(0.05)
    return iperf3_lines(srv)


def done_when(netab, c, srv):
    cases = [["-t", "2"], ["-t", "2", "-R"], ["-t", "2", "-P", "4"], ["-t", "2", "--bidir"],
             ["-u", "-b", "200M", "-t", "2"]]
    for k, opts in enumerate(cases):
        name = " ".join(opts)
        doc = iperf3_client(srv.port, opts + ["--get-server-output"])
        c.check(doc.get("error") is None, f"{name}: iperf3 reports no error", str(doc.get("error")))
        lines = wait_lines(srv, k + 1)
        if not c.check(len(lines) == k + 1 and lines[k]["result"] == "ok",
                       f"{name}: netab's server logged the test as ok", str(lines[-1:])):
            continue
        line, e = lines[k], doc.get("end", {})
        got = e.get("sum", {}).get("bytes", 0) if "-u" in opts else e.get("sum_received", {}).get(
            "bytes", 0)
        ours = line["peer_received"] if "-R" in opts else line["received"]
        c.check(got > 0 and within(got, ours),
                f"{name}: iperf3's {'sum' if '-u' in opts else 'sum_received'}.bytes = netab "
                f"server's count", f"{got} vs {ours}")
        c.note(f"{name}: iperf3 {got}; netab server sent {line['sent']} received "
               f"{line['received']}, client reported sent {line['peer_sent']} received "
               f"{line['peer_received']}")
        out = doc.get("server_output_json") or {}
        c.check(str(out.get("start", {}).get("version", "")).startswith("netab")
                and isinstance(out.get("end", {}).get("netab", {}).get("cpu"), dict),
                f"{name}: --get-server-output carries netab's figures")


def concurrent(netab, c, srv):
    # Started one after the other (the harness is not for threads), running at once.
    procs = {key: h.start(["iperf3", "-c", "127.0.0.1", "-p", str(srv.port), "-J"] + opts)
             for key, opts in (("tcp", ["-t", "3"]), ("udp", ["-t", "3", "-u", "-b", "50M", "-R"]))}
    time.sleep(1)
    during = h.netab_run(netab, ["-c", "127.0.0.1", "-p", str(srv.port), "-t", "1"])
    c.check(during.doc.get("error") is None and during.doc["end"]["receiver"]["bytes"] > 0,
            "a netab client is served during two iperf3 tests")
    for key, proc in procs.items():
        r = proc.finish(timeout=60)
        doc = h.parse_one_json(r.stdout, r)
        got = doc.get("end", {}).get("sum_received", {}).get("bytes", 0)
        c.check(doc.get("error") is None and got > 0, f"concurrent iperf3 {key} test was served",
                f"{doc.get('error')} {got}")
    after = h.netab_run(netab, ["-c", "127.0.0.1", "-p", str(srv.port), "-t", "1"])
    c.check(after.doc.get("error") is None, "a netab client is served after them")
    loop = h.netab_run(netab, ["-c", "127.0.0.1", "-p", str(srv.port), "--iperf3", "-t", "1",
                               "-P", "2"])
    e = h.end_of(loop.doc)
    c.check(e and e["receiver"]["bytes"] == e["sender"]["bytes"] > 0,
            "netab run --iperf3 against netab's server: sender and receiver agree",
            json.dumps(e.get("receiver", {}))[:200])


def netns(netab, c):
    h.require_root_netns(tools=("ip", "nft"))
    with h.NetnsPair("i3s") as pair:
        with h.Server(netab, extra=["--iperf3-port"], netns=pair.ns_b, bind=pair.addr_b) as srv:
            # iperf3 without -p: its default port 5201, which --iperf3-port also serves.
            doc = iperf3_client(None, ["-t", "2", "-P", "4"], host=pair.addr_b, netns=pair.ns_a)
            lines = wait_lines(srv, 1)
            got = doc.get("end", {}).get("sum_received", {}).get("bytes", 0)
            c.check(doc.get("error") is None and lines and within(got, lines[-1]["received"]),
                    "netns -P 4: iperf3's sum_received = netab server's count",
                    f"{got} vs {lines[-1:]}")
            # Data datagrams only: iperf3's 4-byte hello, when dropped, is never answered;
            # netab's server gives the test up after its 2 s UDP hello limit ("only 0 of 1 UDP
            # streams said hello within 2000 ms ...") and the client fails. CI met that 2% once.
            pair.nft_drop_udp(pair.ns_b, 2, data_only=True)
            try:
                doc = iperf3_client(srv.port, ["-u", "-b", "100M", "-l", "1400", "-t", "3"],
                                    host=pair.addr_b, netns=pair.ns_a)
                dropped = pair.nft_dropped(pair.ns_b)
            finally:
                pair.nft_delete(pair.ns_b)
            s = doc.get("end", {}).get("sum", {})
            lost = s.get("lost_packets", -1)
            c.note(f"netns UDP: iperf3 sent {s.get('packets')}, lost {lost}, nft dropped {dropped}")
            c.check(doc.get("error") is None and abs(lost - dropped) <= 1,
                    "netns UDP: iperf3's lost_packets (netab's counts) = the nft drop counter",
                    f"lost {lost}, dropped {dropped}")


def received_bps(doc):
    return doc.get("end", {}).get("sum_received", {}).get("bits_per_second", 0)


def sendfile_calls(srv, opts):
    """Runs iperf3 with opts against srv under strace -f: (iperf3's document, sendfile calls)."""
    tracer = h.start(["strace", "-f", "-qq", "-e", "trace=sendfile", "-e", "signal=none",
                      "-p", str(srv.pid())])
    time.sleep(0.5)  # strace attaches to every thread before the test's first one starts
    doc = iperf3_client(srv.port, opts)
    tracer.send(signal.SIGINT)
    r = tracer.finish(expect_rc=(0, 130, -signal.SIGINT))
    return doc, len(re.findall(r"sendfile\(", r.stderr))


def send_paths(c, srv):
    for opts, rate in ((["--fq-rate", "200M"], 200e6), (["-b", "300M"], 300e6)):
        name = "-R " + " ".join(opts)
        doc = iperf3_client(srv.port, ["-t", "2", "-R"] + opts)
        got = received_bps(doc)
        c.check(doc.get("error") is None and abs(got - rate) <= 0.05 * rate,
                f"{name}: netab's server paces its sending to within 5% of the rate",
                f"{got / 1e6:.1f} Mbit/s, error {doc.get('error')}")
    h.need_tools("strace")
    doc, calls = sendfile_calls(srv, ["-t", "1", "-R", "-Z"])
    c.check(doc.get("error") is None and calls > 0, "-R -Z: netab's server sends with sendfile",
            f"{calls} sendfile calls, error {doc.get('error')}")
    doc, calls = sendfile_calls(srv, ["-t", "1", "-R"])
    c.check(doc.get("error") is None and calls == 0, "-R without -Z: no sendfile", calls)


def body(netab, c):
    h.need_tools("iperf3")
    with h.Server(netab) as srv:
        done_when(netab, c, srv)
        concurrent(netab, c, srv)
        send_paths(c, srv)
    netns(netab, c)


if __name__ == "__main__":
    h.main(body)
