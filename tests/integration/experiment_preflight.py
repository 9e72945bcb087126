#!/usr/bin/env python3
"""`netab experiment validate` checks what `run` checks before its first run
(campaign_preflight, issue 24):
- max_freq_mhz: 1000: where this machine has no cpufreq control (this VM)
  validate exits 2 with exactly the line run prints before refusing (exit
  2, nothing recorded); where it has, validate accepts and the line is absent;
- cpus: N with N the CPUs online: validate warns that it changes nothing and
  accepts (exit 0), and run prints the same warning;
- a hook whose program is not on PATH: a warning naming it;
- a server on this host with nothing listening: a warning; none once a
  netab server listens there;
- --cport on a local port that server holds: a warning naming that port;
- a DUT that does not answer: validate accepts it without --check-dut and
  refuses it (exit 2, naming the DUT) with --check-dut.
"""
import os
import sqlite3
import sys
import tempfile

from netab_helpers import Server, TestFailure, need_tools, netab_cmd, run_main

NETAB = sys.argv[1]
FREQ = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"


def fail(msg):
    raise TestFailure(msg)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def experiment(variant, extra="", test=""):
    return f"""name: pre
runs: 1
warmup: 0
seed: 1
{extra}test:
  time: 0.2
  interval: 0
{test}variants:
  - name: v
{variant}"""


def lines(text, marker):
    return [ln for ln in text.splitlines() if marker in ln]


def validate(path, *opts, rc):
    return netab_cmd(NETAB, "experiment", "validate", *opts, path, expect_rc=rc, timeout=60)


def test_max_freq(tmp):
    path = write(tmp, "freq.yaml", experiment("    max_freq_mhz: 1000\n"))
    db = os.path.join(tmp, "freq.db")
    if os.path.exists(FREQ):
        r = validate(path, rc=(0, 2))
        print(f"max_freq_mhz: this machine has cpufreq; validate exited {r.returncode}")
        return
    v = validate(path, rc=2)
    want = (f"netab experiment: {path}: refusing to start: variant v: cannot cap CPU 0 at 1000 "
            f"MHz: {FREQ} does not exist; no cpufreq control")
    got = lines(v.stderr, "refusing to start")
    if len(got) != 1 or not got[0].startswith(want) or "valid" in v.stdout:
        fail(f"validate of max_freq_mhz without cpufreq: want one line starting\n{want}\n"
             f"got:\n{v.stdout}{v.stderr}")
    r = netab_cmd(NETAB, "experiment", "run", "--db", db, path, expect_rc=2, timeout=60)
    if lines(r.stderr, "refusing to start") != got:
        fail(f"run and validate differ:\nvalidate: {got}\nrun: {r.stderr}")
    if os.path.exists(db):
        con = sqlite3.connect(db)
        n = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        con.close()
        if n:
            fail(f"run refused but recorded {n} runs")
    print(f"max_freq_mhz: validate and run both refuse: {got[0]}")


def test_cpus_all(tmp):
    online = os.sysconf("SC_NPROCESSORS_ONLN")
    path = write(tmp, "cpus.yaml", experiment(f"    cpus: {online}\n"))
    want = (f"netab experiment: {path}: warning: variant v: cpus: {online} is the number of CPUs "
            "online here, so it changes nothing")
    v = validate(path, rc=0)
    if not any(ln.startswith(want) for ln in v.stderr.splitlines()) or "valid" not in v.stdout:
        fail(f"validate of cpus: {online} on {online} CPUs: want a warning\n{want}\ngot:\n"
             f"{v.stdout}{v.stderr}")
    r = netab_cmd(NETAB, "experiment", "run", "--db", os.path.join(tmp, "cpus.db"), path,
                  timeout=120)
    if not any(ln.startswith(want) for ln in r.stderr.splitlines()):
        fail(f"run does not print validate's warning:\n{r.stderr}")
    print(f"cpus: {online} of {online} online: warned by validate and run")


def test_hooks_and_server(tmp):
    need_tools("true")
    with Server(NETAB, bind="127.0.0.1") as srv:
        port = srv.port
        text = experiment('    setup: "netab-no-such-program --x"\n    teardown: "true"\n',
                          test=f"  server: 127.0.0.1\n  port: {port}\n")
        path = write(tmp, "hook.yaml", text)
        v = validate(path, rc=0)
        hook = (f"netab experiment: {path}: warning: variant v: setup: 'netab-no-such-program' "
                "is not a program on PATH")
        if lines(v.stderr, "warning") != [hook]:
            fail(f"want exactly the hook warning\n{hook}\ngot:\n{v.stderr}")
        # --cport on the port the server holds: the run's first data connection could not bind.
        cport = write(tmp, "cport.yaml", experiment("", test=f"  cport: {port}\n"))
        v = validate(cport, rc=0)
        want = (f"netab experiment: {cport}: warning: variant v: --cport {port}: local TCP port "
                f"{port} (data connection 1) is in use on this host")
        if not any(ln.startswith(want) for ln in v.stderr.splitlines()):
            fail(f"--cport on a port in use: want exactly\n{want}\ngot:\n{v.stderr}")
    # The server has stopped: nothing listens on its port any more.
    v = validate(path, rc=0)
    srvw = (f"netab experiment: {path}: warning: server 127.0.0.1 port {port} is on this host, "
            "but nothing listens there")
    if not any(ln.startswith(srvw) for ln in v.stderr.splitlines()):
        fail(f"no warning about the missing local server; want\n{srvw}\ngot:\n{v.stderr}")
    print("hook not on PATH and a local server not listening: warned")


def test_dut(tmp):
    need_tools("ssh")
    text = experiment("", extra='dut:\n  ssh: nobody@127.0.0.1\n  ssh_opts: "-p 1"\n')
    path = write(tmp, "dut.yaml", text)
    validate(path, rc=0)
    v = validate(path, "--check-dut", rc=2)
    want = f"netab experiment: {path}: refusing to start: dut nobody@127.0.0.1: "
    if not any(ln.startswith(want) for ln in v.stderr.splitlines()):
        fail(f"--check-dut of an unreachable DUT: want a line starting\n{want}\ngot:\n{v.stderr}")
    print("dut: checked only with --check-dut, refused there")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_max_freq(tmp)
        test_cpus_all(tmp)
        test_hooks_and_server(tmp)
        test_dut(tmp)


if __name__ == "__main__":
    run_main(lambda netab: main())
