#!/usr/bin/env python3
"""Campaigns and imports with iperf3 (docs/iperf3.md, docs/experiment.md).

1. An experiment whose test says `protocol: iperf3`, one variant saying it
   again and one relying on the test, against `iperf3 -s`: every planned run
   completes, and the report shows the peer's CPU only as the peer process's
   (cpu_remote_process, with the value the run document holds), never as
   system-wide remote CPU (cpu_remote has no values).
2. `netab compare --opts '--iperf3 ...'` runs its variants against the same
   iperf3 server and counts every run ok.
3. `netab import` of an iperf3 -J file: its cpu_utilization_percent becomes
   the local and remote *process* CPU (cpu_local_process, cpu_remote_process
   with iperf3's own numbers), not netab's system-wide cpu_local/cpu_remote;
   `netab stats --metric end.cpu_utilization_percent.host_total` labels it
   as one process's CPU.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402
from iperf3_client import Iperf3Server, free_port  # noqa: E402


def report(netab, db, exp):
    r = h.netab_cmd(netab, "report", "--db", db, str(exp), "--format", "json",
                    expect_rc=(0, 1))
    return h.parse_one_json(r.stdout, r)


def values(rep, metric):
    return [v for res in rep["results"] if res["metric"] == metric for v in res["values"]]


def campaign(netab, c, port):
    db = os.path.join(h.WORK_DIR, "i3.db")
    exp = os.path.join(h.WORK_DIR, "i3.yaml")
    with open(exp, "w") as f:
        f.write(f"""name: iperf3-peer
runs: 2
warmup: 0
seed: 5
test:
  test: tcp_stream
  time: 1
  protocol: iperf3
  server: 127.0.0.1
  port: {port}
variants:
  - name: big
    protocol: iperf3
    opts: "-l 128K"
  - name: small
    opts: "-l 16K"
""")
    r = h.netab_cmd(netab, "experiment", "run", "--db", db, exp, timeout=120)
    c.check("4 planned, 4 ok, 0 failed" in r.stdout + r.stderr,
            "protocol: iperf3 campaign: every run ok", (r.stdout + r.stderr)[-300:])
    rep = report(netab, db, 1)
    proc = values(rep, "cpu_remote_process")
    c.check(len(proc) == 4 and all(v > 0 for v in proc),
            "the report shows the peer's process CPU for every run", str(proc))
    c.check(values(rep, "cpu_remote") == [], "and no system-wide remote CPU",
            str(values(rep, "cpu_remote")))


def compare(netab, c, port):
    opts = f"--iperf3 -c 127.0.0.1 -p {port}"
    r = h.netab_cmd(netab, "compare", "--runs", "2", "--seed", "1", "--variant", "a", "--opts",
                    opts + " -l 128K", "--variant", "b", "--opts", opts + " -l 64K", "--", "-t",
                    "1", expect_rc=(0, 1), timeout=120)
    c.check("4 runs ok, 0 failed" in r.stdout + r.stderr, "compare --opts '--iperf3': every run ok",
            r.stdout[-400:])


def imported(netab, c, port):
    srv = Iperf3Server(free_port())
    try:
        r = h.run_cmd(["iperf3", "-c", "127.0.0.1", "-p", str(srv.port), "-J", "-t", "1"],
                      timeout=60)
    finally:
        srv.stop()
    doc = h.parse_one_json(r.stdout, r)
    cpu = doc["end"]["cpu_utilization_percent"]
    path = os.path.join(h.WORK_DIR, "iperf3.json")
    with open(path, "w") as f:
        f.write(r.stdout)
    db = os.path.join(h.WORK_DIR, "imp.db")
    h.netab_cmd(netab, "import", "--db", db, "--variant", "old", path)
    rep = report(netab, db, 1)
    c.check(values(rep, "cpu_local_process") == [cpu["host_total"]]
            and values(rep, "cpu_remote_process") == [cpu["remote_total"]],
            "import: iperf3's CPU is the local and remote process CPU",
            f"{values(rep, 'cpu_local_process')} {values(rep, 'cpu_remote_process')} {cpu}")
    c.check(values(rep, "cpu_local") == [] and values(rep, "cpu_remote") == [],
            "import: never reported as system-wide CPU")
    # netab stats on iperf3's CPU figure labels it as one process's.
    twice = os.path.join(h.WORK_DIR, "iperf3x2.json")
    with open(twice, "w") as f:
        f.write(r.stdout + "\n" + r.stdout)
    st = h.netab_cmd(netab, "stats", "--json", "--metric", "end.cpu_utilization_percent.host_total",
                     twice, twice, expect_rc=(0, 1))
    sdoc = h.parse_one_json(st.stdout, st)
    labels = {s.get("metric") for s in sdoc.get("sets", [])}
    c.check(labels and all("one process's CPU" in (m or "") for m in labels),
            "stats: iperf3's CPU is labelled as one process's", str(labels))


def body(netab, c):
    h.need_tools("iperf3")
    port = free_port()
    srv = Iperf3Server(port)
    try:
        campaign(netab, c, port)
        compare(netab, c, port)
    finally:
        srv.stop()
    imported(netab, c, port)


if __name__ == "__main__":
    h.main(body)
