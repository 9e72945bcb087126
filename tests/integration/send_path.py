#!/usr/bin/env python3
"""netab run's send paths and TCP pacing (issue 32) on loopback, against a netab server.

* -Z (sendfile), --splice and --msg-zerocopy with -n 200M: exit 0, the
  receiver gets exactly 200 MiB, the JSON names the path (test.send_path,
  end.path); --msg-zerocopy reports its completions and that the kernel
  copied every one (loopback always copies), in the JSON and in the text.
* -Z -R: the server sends, on the path the client asked for (end.path.remote).
* --fq-rate 1G -t 3 and TCP -b 1G -t 3: the receiver's rate within 3% of
  1 Gbit/s; SO_MAX_PACING_RATE read back. Skipped in sanitizer builds (the
  sender must reach the rate: never loosened, skipped).
* --notsent-lowat 128K: TCP_NOTSENT_LOWAT read back.
* --splice with --iperf3 is refused before anything runs, naming --splice.
"""
from netab_helpers import Server, check, check_eq, log, netab_cmd, run_against, run_main, sanitized

NBYTES = 200 * 1024 * 1024
PATHS = (("-Z", "sendfile"), ("--splice", "splice"), ("--msg-zerocopy", "msg_zerocopy"))


def direction(doc, reverse):
    return doc["end"]["directions"]["server_to_client" if reverse else "client_to_server"]


def one_path(netab, srv, opt, name, reverse=False):
    what = f"{opt}{' -R' if reverse else ''} -n 200M"
    args = [opt, "-n", "200M", "-i", "0"] + (["-R"] if reverse else [])
    rc, doc, err = run_against(netab, srv, args)
    check(doc is not None, f"{what}: no JSON document", err)
    check(doc["error"] is None, f"{what}: the run failed", doc["error"])
    check_eq(direction(doc, reverse)["receiver"]["bytes"], NBYTES, f"{what}: receiver bytes")
    check_eq(doc["test"].get("send_path"), name, f"{what}: test.send_path")
    path = doc["end"].get("path")
    check(isinstance(path, dict), f"{what}: no end.path", doc["end"].keys())
    check_eq(path["send_path"], name, f"{what}: end.path.send_path")
    sender = path["remote" if reverse else "local"]
    check(isinstance(sender, dict), f"{what}: the sending end reports no path", path)
    check_eq(sender["send_path"], name, f"{what}: the sender's path")
    check(path["local" if reverse else "remote"] is None, f"{what}: the receiving end reports "
          "a send path", path)
    check(sender["calls"] > 0, f"{what}: no sending calls", sender)
    return sender


def zerocopy(netab, srv):
    z = one_path(netab, srv, "--msg-zerocopy", "msg_zerocopy")["msg_zerocopy"]
    check(z["completions"] > 0, "--msg-zerocopy: no completions", z)
    check_eq(z["completions"], z["sends"], "--msg-zerocopy: every send completed")
    # Loopback hands the pages to the receiving socket: the kernel copies every send.
    check_eq(z["copied"], z["completions"], "--msg-zerocopy: copied on loopback")
    check(z["all_copied"] is True, "--msg-zerocopy: all_copied", z)
    r = netab_cmd(netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "--msg-zerocopy", "-n",
                  "20M", "-i", "0")
    check("copied every send" in r.stdout, "--msg-zerocopy: the text does not say the kernel "
          "copied", r.stdout)


def paced(netab, srv, args, what):
    rc, doc, err = run_against(netab, srv, args + ["-t", "3", "-i", "0"])
    check(doc is not None and doc["error"] is None, f"{what}: the run failed", err)
    bps = direction(doc, False)["receiver"]["bits_per_second"]
    log(f"{what}: receiver {bps / 1e6:.1f} Mbit/s")
    check(abs(bps - 1e9) <= 0.03 * 1e9, f"{what}: receiver rate {bps:.0f} bit/s is not within "
          "3% of 1 Gbit/s")
    return doc["end"]["path"]["local"]


def pacing(netab, srv):
    fq = paced(netab, srv, ["--fq-rate", "1G"], "--fq-rate 1G")["fq_rate"]
    check_eq(fq["asked_bps"], 1000000000, "--fq-rate: asked")
    check_eq(fq["max_pacing_rate_bps"], 1000000000, "--fq-rate: SO_MAX_PACING_RATE read back")
    b = paced(netab, srv, ["-b", "1G"], "-b 1G")["tcp_rate"]
    check_eq(b["asked_bps"], 1000000000, "-b: asked")


def lowat(netab, srv):
    rc, doc, err = run_against(netab, srv, ["--notsent-lowat", "128K", "-t", "1", "-i", "0"])
    check(doc is not None and doc["error"] is None, "--notsent-lowat: the run failed", err)
    low = doc["end"]["path"]["local"]["notsent_lowat"]
    check_eq(low["asked"], 131072, "--notsent-lowat: asked")
    check_eq(low["read_back"], 131072, "--notsent-lowat: TCP_NOTSENT_LOWAT read back")


def body(netab):
    with Server(netab) as srv:
        for opt, name in PATHS:
            if name != "msg_zerocopy":
                one_path(netab, srv, opt, name)
        zerocopy(netab, srv)
        one_path(netab, srv, "-Z", "sendfile", reverse=True)
        lowat(netab, srv)
        if sanitized(netab):
            log("sanitizer build: the 1 Gbit/s pacing runs are skipped (the sender is too slow)")
        else:
            pacing(netab, srv)
    r = netab_cmd(netab, "run", "--iperf3", "-c", "127.0.0.1", "--splice", expect_rc=2)
    check("--splice" in r.stderr, "--splice --iperf3: the refusal does not name --splice",
          r.stderr)


if __name__ == "__main__":
    run_main(body)
