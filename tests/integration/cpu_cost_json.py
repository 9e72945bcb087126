#!/usr/bin/env python3
"""The process CPU cost figures of a run document against their definitions (docs/json.md).

For each end of a run, recomputed from the document's own members:
- cpu.X.process_us_per_kib = process_us / (end.receiver.bytes / 1024);
- cpu.X.process_us_per_tran = process_us / end.transactions (tcp_rr);
- cpu.X.others_pct = max(0, (user_pct + system_pct) / 100 x seconds x
  online_cpus x 10^6 - the test's own netab CPU time) / busy_us x 100, where
  the test's own time is the one process's (in-process loopback) or both
  ends' processes' (a server in a namespace of this host).
The text of `netab run` prints the process figure beside the system-wide one.
Loopback runs always; the namespace case needs root (skips 77 otherwise).
"""

import re

from netab_helpers import (NetnsPair, Server, check, log, netab_run, require_root_netns,
                           run_cmd, run_main)


def close(a, b, what):
    check(abs(a - b) <= 1e-6 * max(1.0, abs(b)), f"{what}: {a!r} != {b!r}")


def others(cpu, own_us):
    procs = (cpu["user_pct"] + cpu["system_pct"]) / 100 * cpu["seconds"] * cpu["online_cpus"] * 1e6
    return max(0.0, procs - own_us) / cpu["busy_us"] * 100


def check_doc(doc, separate, what):
    end = doc["end"]
    kib = end["receiver"]["bytes"] / 1024
    check(kib > 0, f"{what}: bytes arrived")
    cpu = end["cpu"]
    for side in ("local", "remote"):
        c = cpu[side]
        close(c["process_us_per_kib"], c["process_us"] / kib, f"{what}: {side} process_us_per_kib")
        if "transactions" in end:
            check(end["transactions"] > 0, f"{what}: transactions")
            close(c["process_us_per_tran"], c["process_us"] / end["transactions"],
                  f"{what}: {side} process_us_per_tran")
        other = cpu["remote" if side == "local" else "local"]
        own = c["process_us"] + (other["process_us"] if separate else 0)
        close(c["others_pct"], others(c, own), f"{what}: {side} others_pct")
        check(0 <= c["others_pct"] <= 100, f"{what}: {side} others_pct is a share", c)
    log(f"ok: {what}: process {cpu['local']['process_us_per_kib']:.3f} us/KiB, others "
        f"{cpu['local']['others_pct']:.0f}% of busy CPU")


def body(netab):
    for args, what in ((["-t", "1"], "tcp_stream in-process"),
                       (["-t", "1", "--test", "tcp_rr"], "tcp_rr in-process")):
        doc = netab_run(netab, args).doc
        check(doc["start"]["in_process_server"], f"{what}: in-process")
        check_doc(doc, False, what)
    text = run_cmd([netab, "run", "-t", "1"]).stdout
    check(re.search(r"^CPU local .* us/KiB, process [0-9.]+ us/KiB$", text, re.M),
          "text: the process cost beside the system-wide one", text)
    text = run_cmd([netab, "run", "-t", "1", "--test", "tcp_rr"]).stdout
    check(re.search(r"^CPU local .* us/transaction, process [0-9.]+ us/transaction$", text,
                    re.M), "text: the process cost per transaction", text)
    require_root_netns()
    with NetnsPair("cj") as net, Server(netab, netns=net.ns_a, bind=net.addr_a) as srv:
        doc = netab_run(netab, ["-c", net.addr_a, "-p", str(srv.port), "-t", "1"],
                        netns=net.ns_b).doc
        check(not doc["start"]["in_process_server"], "namespace run: a separate server")
        check_doc(doc, True, "tcp_stream across namespaces")


if __name__ == "__main__":
    run_main(body)
