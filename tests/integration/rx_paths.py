#!/usr/bin/env python3
"""The receive and socket paths of tcp_stream (issue 32), on loopback.

* Each of --skip-rx-copy, --mptcp, --busy-poll 50 and --io-uring with
  -n 200M --json (and --skip-rx-copy --io-uring with -R, against a separate
  `netab server`): exit 0, receiver bytes exactly 200 MiB, start.rx_path
  names what was asked and end.rx_path what each end's kernel did: the
  receiver's MSG_TRUNC, SO_BUSY_POLL read back, MPTCP's subflows, io_uring's
  operations.
* --io-uring=zc where the kernel has IORING_OP_SEND_ZC: its notifications
  counted (and copied, on loopback, where the kernel reports copies); where
  it lacks it, the refusal names IORING_OP_SEND_ZC.
* --ktls on a kernel without kTLS (this one: no CONFIG_TLS): refused before
  the run, exit 1, the message naming the missing feature, no text header;
  on a kernel that has it, refused all the same (netab has no kTLS path).
* --mptcp through a path that strips the MPTCP option from the client's
  SYN (nft's `reset tcp option mptcp`, two namespaces), over IPv4 and IPv6:
  the connection falls back to TCP, and both ends report it as a fallback
  (IPv6's fallback answers MPTCP_INFO with ENOPROTOOPT, IPv4's with
  EOPNOTSUPP), not as an unknown state.
* The text summary names each end's path.
* A send path the receive and socket paths cannot carry is refused before
  the run, never dropped: --io-uring with -Z (io_uring sends itself), and
  --mptcp with --msg-zerocopy where MPTCP sockets refuse SO_ZEROCOPY.
"""
import socket

from netab_helpers import Server, check, check_eq, log, netab_cmd, run_against, run_main
import netab_helpers as h

MIB200 = 200 * 1024 * 1024


def kernel_has_ktls():
    s = socket.socket()
    try:
        s.setsockopt(socket.IPPROTO_TCP, 31, b"tls")  # TCP_ULP
    except OSError as e:
        return e.errno != 2  # ENOENT: no tls ULP
    finally:
        s.close()
    return True


def run_path(netab, opts, what):
    doc = netab_cmd(netab, "run", "-n", "200M", "-i", "0", "--json", *opts, timeout=60).doc
    check(doc["error"] is None, f"{what}: the run failed", doc["error"])
    check_eq(doc["end"]["receiver"]["bytes"], MIB200, f"{what}: receiver bytes")
    check(isinstance(doc["start"].get("rx_path"), dict), f"{what}: start.rx_path", doc["start"])
    rx = doc["end"].get("rx_path")
    check(isinstance(rx, dict) and rx["local"] and rx["remote"], f"{what}: end.rx_path", rx)
    return doc, rx


def receiver_of(rx, reverse):
    return rx["local"] if reverse else rx["remote"]


def skip_rx_copy(netab):
    doc, rx = run_path(netab, ["--skip-rx-copy"], "--skip-rx-copy")
    check(doc["start"]["rx_path"]["skip_rx_copy"], "--skip-rx-copy: asked")
    rcv = receiver_of(rx, False)["skip_rx_copy"]
    check_eq((rcv["receivers"], rcv["recv_flags"]), (1, "MSG_TRUNC"), "--skip-rx-copy: receiver")
    check_eq(rx["local"]["skip_rx_copy"]["receivers"], 0, "--skip-rx-copy: the sender's end")
    log("ok: --skip-rx-copy: 200 MiB received with MSG_TRUNC")


def busy_poll(netab):
    doc, rx = run_path(netab, ["--busy-poll", "50"], "--busy-poll 50")
    for end in ("local", "remote"):
        b = rx[end]["busy_poll"]
        check_eq((b["asked_us"], b["so_busy_poll_us"]), (50, 50), f"--busy-poll: {end} read back")
        check("prefer_busy_poll" in b and "budget" in b, f"--busy-poll: {end} record", b)
    log(f"ok: --busy-poll 50: SO_BUSY_POLL read back 50 on both ends, {rx['local']['busy_poll']}")


def mptcp(netab):
    doc, rx = run_path(netab, ["--mptcp"], "--mptcp")
    for end in ("local", "remote"):
        m = rx[end]["mptcp"]
        check_eq((m["connections"], m["mptcp"], m["fallback"]), (1, 1, 0), f"--mptcp: {end}")
        check(isinstance(m["subflows"][0], int) and m["subflows"][0] >= 1,
              f"--mptcp: {end} subflows", m)
    log(f"ok: --mptcp: MPTCP on both ends, subflows {rx['local']['mptcp']['subflows']}")


def io_uring(netab):
    doc, rx = run_path(netab, ["--io-uring"], "--io-uring")
    for end in ("local", "remote"):
        u = rx[end]["io_uring"]
        check_eq(u["mode"], "plain", f"--io-uring: {end} mode")
        check(u["completed"] > 0 and u["completed"] == u["submitted"], f"--io-uring: {end}", u)
    log("ok: --io-uring: sends and receives through io_uring")


def io_uring_zc(netab):
    r = netab_cmd(netab, "run", "-n", "200M", "-i", "0", "--json", "--io-uring=zc", timeout=60,
                  expect_rc=(0, 1))
    if r.returncode:
        check("IORING_OP_SEND_ZC" in r.doc["error"], "--io-uring=zc: the refusal names it",
              r.doc["error"])
        log("ok: --io-uring=zc refused: " + r.doc["error"])
        return
    check_eq(r.doc["end"]["receiver"]["bytes"], MIB200, "--io-uring=zc: receiver bytes")
    u = r.doc["end"]["rx_path"]["local"]["io_uring"]
    check(u["mode"] == "zc" and u["zc_notifications"] > 0, "--io-uring=zc: notifications", u)
    # Loopback always copies: where the kernel reports it, every buffer was copied.
    if u["zc_copied"] is not None:
        check_eq(u["zc_copied"], u["zc_notifications"], "--io-uring=zc: copied on loopback")
    check("zc_notifications" not in r.doc["end"]["rx_path"]["remote"]["io_uring"],
          "--io-uring=zc: the receiving end has no notifications")
    log(f"ok: --io-uring=zc: {u['zc_notifications']} notifications, {u['zc_copied']} copied")


def reverse_against_server(netab):
    what = "--skip-rx-copy --io-uring -R (netab server)"
    with Server(netab) as srv:
        rc, doc, err = run_against(netab, srv, ["-n", "200M", "-i", "0", "-R", "--skip-rx-copy",
                                                "--io-uring"])
    check(doc and doc["error"] is None, f"{what}: the run failed", err)
    check_eq(doc["end"]["receiver"]["bytes"], MIB200, f"{what}: receiver bytes")
    rx = doc["end"]["rx_path"]
    check_eq(rx["local"]["skip_rx_copy"]["recv_flags"], "MSG_TRUNC", f"{what}: the client receives")
    check_eq(rx["remote"]["skip_rx_copy"]["receivers"], 0, f"{what}: the server sends")
    check_eq(rx["remote"]["io_uring"]["mode"], "plain", f"{what}: the server's io_uring")
    log(f"ok: {what}: the server applied the paths it was sent")


def ktls(netab):
    has = kernel_has_ktls()
    r = netab_cmd(netab, "run", "-n", "1M", "--ktls", "--json", expect_rc=1)
    err = r.doc["error"] or ""
    want = "netab has no kTLS data path" if has else "this kernel has no kTLS"
    check(want in err, "--ktls: the refusal", err)
    if not has:
        check("TCP_ULP" in err and "CONFIG_TLS" in err, "--ktls: the missing feature named", err)
    check(r.doc["end"] is None, "--ktls: nothing ran", r.doc["end"])
    t = netab_cmd(netab, "run", "-n", "1M", "--ktls", expect_rc=1)
    check_eq(t.stdout, "", "--ktls: no header of a run that never starts")
    check(want in t.stderr, "--ktls (text): the refusal on stderr", t.stderr)
    log("ok: --ktls refused: " + err)


def text_summary(netab):
    out = netab_cmd(netab, "run", "-n", "20M", "-i", "0", "--mptcp", "--skip-rx-copy").stdout
    check("rx path local " in out and "rx path remote " in out, "text: the rx path lines", out)
    check("MSG_TRUNC" in out and "MPTCP on 1 of 1 connections" in out, "text: what they say", out)
    log("ok: the text summary names each end's path")


def mptcp_takes(opt, value):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)  # IPPROTO_MPTCP
    try:
        s.setsockopt(socket.SOL_SOCKET, opt, value)
        return True
    except OSError:
        return False
    finally:
        s.close()


def combinations(netab):
    r = netab_cmd(netab, "run", "-n", "1M", "--io-uring", "-Z", expect_rc=2)
    check("--io-uring sends through its own ring: not with -Z" in r.stderr,
          "--io-uring -Z: refused, naming -Z", r.stderr)
    if mptcp_takes(60, 1):  # SO_ZEROCOPY
        r = netab_cmd(netab, "run", "-n", "1M", "--mptcp", "--msg-zerocopy", "--json")
        check_eq(r.doc["end"]["receiver"]["bytes"], 1 << 20, "--mptcp --msg-zerocopy: bytes")
    else:
        r = netab_cmd(netab, "run", "-n", "1M", "--mptcp", "--msg-zerocopy", "--json",
                      expect_rc=1)
        err = r.doc["error"] or ""
        check("--mptcp with --msg-zerocopy" in err and "SO_ZEROCOPY" in err,
              "--mptcp --msg-zerocopy: refused, naming SO_ZEROCOPY", err)
        check(r.doc["end"] is None, "--mptcp --msg-zerocopy: nothing ran", r.doc["end"])
    r = netab_cmd(netab, "run", "-n", "1M", "--io-uring", "--fq-rate", "1G", expect_rc=2)
    check("not with --fq-rate" in r.stderr, "--io-uring --fq-rate: refused, naming it", r.stderr)
    if not mptcp_takes(47, (125000000).to_bytes(8, "little")):  # SO_MAX_PACING_RATE
        r = netab_cmd(netab, "run", "-n", "1M", "--mptcp", "--fq-rate", "1G", "--json",
                      expect_rc=1)
        err = r.doc["error"] or ""
        check("--mptcp with --fq-rate" in err, "--mptcp --fq-rate: refused before the run", err)
        check(r.doc["end"] is None, "--mptcp --fq-rate: nothing ran", r.doc["end"])
    log("ok: combinations a path cannot carry are refused before the run")


def mptcp_fallback(netab):
    h.require_root_netns(tools=("ip", "nft"))
    with h.NetnsPair("mpf") as pair:
        h.sh("nft", "add", "table", "inet", "netab_t", netns=pair.ns_a)
        h.sh("nft", "add", "chain", "inet", "netab_t", "output",
             "{ type filter hook output priority 0; }", netns=pair.ns_a)
        h.sh("nft", "add", "rule", "inet", "netab_t", "output", "tcp", "flags", "syn", "reset",
             "tcp", "option", "mptcp", netns=pair.ns_a)
        h.sh("ip", "-6", "addr", "add", "fd00::1/64", "dev", pair.dev_a, "nodad", netns=pair.ns_a)
        h.sh("ip", "-6", "addr", "add", "fd00::2/64", "dev", pair.dev_b, "nodad", netns=pair.ns_b)
        with Server(netab, netns=pair.ns_b, bind="::") as srv:
            for addr in (pair.addr_b, "fd00::2"):
                what = f"--mptcp with the option stripped, to {addr}"
                rc, doc, err = run_against(netab, srv, ["--mptcp", "-t", "1", "--json"],
                                           host=addr, ns=pair.ns_a, timeout=60)
                check(rc == 0, f"{what}: the run completes over plain TCP", err[:300])
                for end in ("local", "remote"):
                    m = doc["end"]["rx_path"][end]["mptcp"]
                    check_eq((m["connections"], m["mptcp"], m["fallback"]), (1, 0, 1),
                             f"{what}: {end} reports the fallback")
                log(f"ok: {what}: both ends report the fallback to TCP")


def body(netab):
    skip_rx_copy(netab)
    busy_poll(netab)
    mptcp(netab)
    mptcp_fallback(netab)
    io_uring(netab)
    io_uring_zc(netab)
    reverse_against_server(netab)
    ktls(netab)
    text_summary(netab)
    combinations(netab)


run_main(body)
