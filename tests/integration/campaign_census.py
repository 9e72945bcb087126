#!/usr/bin/env python3
"""The competing-process census of a campaign (issue 24):
- a campaign in namespace A against a `netab server` in namespace B (same
  host) prints no competing-process warning; every run's stored snapshot
  has no competitor and lists that server (by its pid) among the test's own
  processes, and the campaign report (default or --full) has no "competing" line;
- the same campaign while an unrelated `netab server` listens on another
  port on loopback and a `netab run` (1 Mbit/s of UDP) is in flight against
  it: the warnings name both with their command lines and pids, the stored
  snapshots list exactly those two, the --full report counts each command line in
  every run, the default one counts them by program name ("netab x4").

The test runs itself in a PID namespace of its own (unshare --pid
--mount-proc), so that the census sees only what this test started and not
the netab processes of other test runs on the same machine.
"""
import json
import os
import signal
import sqlite3
import sys
import tempfile

from netab_helpers import (NetnsPair, Server, TestFailure, TestSkip, need_tools, netab_cmd,
                           require_root_netns, run_main, start)

NETAB = sys.argv[1]
INNER = "NETAB_CENSUS_INNER"


def fail(msg):
    raise TestFailure(msg)


def experiment(server, port):
    return f"""name: census
runs: 2
warmup: 0
seed: 5
test:
  server: {server}
  port: {port}
  time: 0.2
  interval: 0
variants:
  - name: only
"""


def run_campaign(tmp, db, pair, server, tag):
    path = os.path.join(tmp, f"{tag}.yaml")
    with open(path, "w") as f:
        f.write(experiment(pair.addr_b, server.port))
    r = netab_cmd(NETAB, "experiment", "run", "--db", db, path, netns=pair.ns_a, timeout=120)
    xid = int(r.stdout.strip())
    con = sqlite3.connect(db, timeout=30)
    envs = [json.loads(e) for (e,) in con.execute(
        "SELECT env_json FROM runs WHERE experiment_id = ? ORDER BY id", (xid,))]
    con.close()
    if len(envs) != 2:
        fail(f"{tag}: {len(envs)} runs stored, want 2")
    # The default report counts competitors by program name; --full names their command lines.
    rep = netab_cmd(NETAB, "report", str(xid), "--db", db, timeout=60)
    full = netab_cmd(NETAB, "report", str(xid), "--db", db, "--full", timeout=60)
    return r.stderr, envs, (rep.stdout, full.stdout)


def check_own_server(tag, envs, server):
    for i, env in enumerate(envs):
        ours = {p["pid"]: p for p in env["test_processes"]}
        if server.pid() not in ours or "run's server" not in ours[server.pid()]["why"]:
            fail(f"{tag}: run {i + 1}: the campaign's server (pid {server.pid()}) is not among "
                 f"the test's processes: {env['test_processes']}")
        if any(p["pid"] == server.pid() for p in env["noise_processes"]):
            fail(f"{tag}: run {i + 1}: the campaign's own server counted as a competitor")


def check_other(tmp, db, pair, server, other, flight, run_cmd):
    err, envs, report = run_campaign(tmp, db, pair, server, "other")
    check_own_server("other", envs, server)
    srv_cmd = f"{NETAB} server -p 0 --port-file {other.port_file} -B 127.0.0.1"
    for cmd, pid in ((srv_cmd, other.pid()), (run_cmd, flight.pid)):
        want = f"another benchmark process is running: netab ({cmd}) (pid {pid})"
        if want not in err:
            fail(f"other: the warning does not name pid {pid}; want\n{want}\ngot:\n{err}")
    for i, env in enumerate(envs):
        pids = [p["pid"] for p in env["noise_processes"]]
        if pids != sorted([other.pid(), flight.pid]):
            fail(f"other: run {i + 1}: competitors {env['noise_processes']}, want pids "
                 f"{other.pid()} and {flight.pid}")
    brief, full = report
    flat = " ".join(full.split())
    for cmd in (srv_cmd, run_cmd):
        if f"netab ({cmd}) x2" not in flat or "competing benchmark processes in 2 of 2 runs" \
                not in flat:
            fail(f"other: the --full report does not count `{cmd}` in 2 of 2 runs:\n{full}")
    # Two netab processes in each of 2 runs, counted by name in one line, no command line.
    want = "- competing processes in 2 of 2 runs: netab x4\n"
    if want not in brief or srv_cmd in brief or run_cmd in brief:
        fail(f"other: the default report does not say {want!r} alone:\n{brief}")
    print(f"other: warned, named: {srv_cmd} and {run_cmd}", flush=True)


def inner():
    with tempfile.TemporaryDirectory() as tmp, NetnsPair("cs") as pair:
        db = os.path.join(tmp, "results.db")
        with Server(NETAB, netns=pair.ns_b, bind=pair.addr_b) as server:
            err, envs, report = run_campaign(tmp, db, pair, server, "alone")
            check_own_server("alone", envs, server)
            if "another benchmark process" in err:
                fail(f"alone: a competing-process warning with only the campaign's own "
                     f"server running:\n{err}")
            for i, env in enumerate(envs):
                if env["noise_processes"] != []:
                    fail(f"alone: run {i + 1} has competitors: {env['noise_processes']}")
            if any("competing processes" in text or "competing benchmark" in text
                   for text in report):
                fail(f"alone: the report warns of competition:\n{report}")
            print("alone: no competing-process warning; the server in the other namespace "
                  f"(pid {server.pid()}) is the test's own", flush=True)

            with Server(NETAB, bind="127.0.0.1") as other:
                # Long enough to outlast the campaign; stopped below.
                run_argv = [NETAB, "run", "-c", "127.0.0.1", "-p", str(other.port), "-u", "-b",
                            "1M", "-t", "600", "-i", "0"]
                flight = start(run_argv)
                try:
                    check_other(tmp, db, pair, server, other, flight, " ".join(run_argv))
                finally:
                    flight.kill_group(signal.SIGTERM)
                    flight.finish(expect_rc=-signal.SIGTERM, timeout=30)


def outer():
    require_root_netns()
    need_tools("unshare")
    p = start(["unshare", "--pid", "--fork", "--mount-proc", sys.executable,
               os.path.abspath(__file__), NETAB], env={INNER: "1"})
    r = p.finish(expect_rc=(0, 1, 77), timeout=240)
    print(r.stdout, end="", flush=True)
    if r.returncode == 77:
        raise TestSkip(r.stderr.strip())
    if r.returncode != 0:
        fail(f"in its PID namespace the test failed:\n{r.stderr[-6000:]}")


if __name__ == "__main__":
    run_main(lambda netab: inner() if os.environ.get(INNER) else outer())
