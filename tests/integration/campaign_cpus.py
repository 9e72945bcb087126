#!/usr/bin/env python3
"""CPU-constrained campaigns (cpus: 1) put the machine back:
- a campaign with a `cpus: 1` variant runs with CPU 1 offline during that
  variant's runs and online again afterwards;
- SIGTERM in the middle of such a run: exit 143, CPU 1 online again at once,
  the run recorded as interrupted, no state file left;
- SIGKILL in the middle of such a run leaves CPU 1 offline; `resume` restores
  it from the state file before anything else, then completes the campaign.
Where the machine has no such controls (not root, or one CPU: no hotplug
file), `netab experiment run` must refuse with a clear message and exit 2, and
the rest is skipped with the reason (exit 77). As root with a hotplug file it
always runs: a file root cannot write fails the test.

This changes a real machine setting; the test always writes the original
value back itself too, also when it fails.
"""
import os
import signal
import sqlite3
import sys
import tempfile
import time

from netab_helpers import PIPE, TestFailure, TestSkip, run_main, start as start_proc

NETAB = sys.argv[1]
ONLINE = "/sys/devices/system/cpu/cpu1/online"


def fail(msg):
    raise TestFailure(msg)


def skip(msg, ci_reason=None):
    raise TestSkip(msg, ci_reason=ci_reason)


def cpu1():
    with open(ONLINE) as f:
        return f.read().strip()


def experiment(time_s, both=True):
    other = '  - name: all\n    opts: "-l 64K"\n' if both else ""
    return f"""name: cpus
runs: 1
warmup: 0
seed: 1
test:
  time: {time_s}
  interval: 0
variants:
  - name: one
    cpus: 1
{other}"""


def wait_for(cond, secs, every=0.02):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(every)
    return False


def status_rows(db):
    con = sqlite3.connect(db, timeout=30)
    r = list(con.execute("SELECT variant, status FROM runs ORDER BY id"))
    con.close()
    return r


def start(tmp, db, text, *verb):
    path = os.path.join(tmp, "cpus.yaml")
    with open(path, "w") as f:
        f.write(text)
    args = verb if verb else ("run", "--db", db, path)
    return start_proc([NETAB, "experiment", *args], stdout=PIPE)


def kill_session(p):
    """SIGKILL the runner, then every process of its session (its `netab run` child)."""
    p.send(signal.SIGKILL)
    p.finish(expect_rc=-signal.SIGKILL, timeout=30)
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == p.pid and fields[0] != "Z":
                os.kill(int(d), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        # As root (CI) with a CPU 1 that can go offline, the test runs; a hotplug file that
        # root cannot write, or a CPU 1 already offline, is a failure, not a reason to skip.
        # It skips only where the machine cannot provide the control at all: not root, or no
        # hotplug file for CPU 1 (one CPU; a reason CI may name: tests/ci-skip-reasons).
        root, hotplug = os.geteuid() == 0, os.path.exists(ONLINE)
        if root and hotplug and cpu1() != "1":
            fail(f"CPU 1 is offline before the test ({ONLINE}); bring it online first")
        p = start(tmp, db, experiment(0.3))
        if not (root and hotplug):
            p = p.finish(expect_rc=2, timeout=120)
            err = p.stderr
            if p.returncode != 2 or "refusing to start" not in err or "cpus" not in err:
                fail(f"no CPU controls here, but run did not refuse clearly: {p.returncode} {err}")
            why = "not root" if not root else f"no {ONLINE} (one CPU?)"
            skip(f"CPU 1 cannot be taken offline here ({why}); the refusal was clear: "
                 f"{err.strip()}", ci_reason=None if not root else "no-cpu-hotplug")
        try:
            p = p.finish(expect_rc=0, timeout=120)
            run_tests(tmp, db, p, p.stdout, p.stderr)
        finally:
            if cpu1() != "1":
                with open(ONLINE, "w") as f:
                    f.write("1")
                fail("CPU 1 was left offline (the test put it back)")
        print("ok", flush=True)


def run_tests(tmp, db, p, out, err):
    if p.returncode != 0 or cpu1() != "1":
        fail(f"cpus: 1 campaign: exit {p.returncode}, cpu1/online {cpu1()}: {err}")
    if sorted(status_rows(db)) != [("all", "ok"), ("one", "ok")]:
        fail(f"cpus: 1 campaign runs: {status_rows(db)}")
    state = db + ".cpuctl"

    # SIGTERM while CPU 1 is offline.
    p = start(tmp, db, experiment(5, both=False))
    if not wait_for(lambda: cpu1() == "0", 20):
        p.abandon()
        fail("CPU 1 never went offline during the cpus: 1 run")
    p.send(signal.SIGTERM)
    p = p.finish(expect_rc=128 + signal.SIGTERM, timeout=30)
    out, err = p.stdout, p.stderr
    if p.returncode != 128 + signal.SIGTERM or cpu1() != "1":
        fail(f"SIGTERM: exit {p.returncode}, cpu1/online {cpu1()}: {err}")
    if "resume" not in err or os.path.exists(state):
        fail(f"SIGTERM: no resume hint or state file left: {err}")
    xid = out.split()[0]
    if status_rows(db)[-1] != ("one", "interrupted"):
        fail(f"SIGTERM: the run is not recorded as interrupted: {status_rows(db)}")
    print("SIGTERM mid-run: CPU 1 back online, run interrupted, exit 143", flush=True)

    # SIGKILL while CPU 1 is offline: only the state file knows; resume restores it.
    p = start(tmp, db, "", "resume", "--db", db, xid)
    if not wait_for(lambda: cpu1() == "0", 20):
        p.abandon()
        fail("CPU 1 never went offline during the resumed run")
    kill_session(p)
    if cpu1() != "0" or not os.path.exists(state):
        fail("after SIGKILL the CPU setting and its state file should still be there")
    p = start(tmp, db, "", "resume", "--db", db, xid)
    # Resume restores CPU 1 first, then its re-run takes CPU 1 offline again a few fsyncs later:
    # poll tightly so that short window is seen, and also accept the state file's removal.
    if not wait_for(lambda: cpu1() == "1" or not os.path.exists(state), 10, every=0.0005):
        p.abandon()
        fail("resume did not restore CPU 1 from the state file")
    p = p.finish(expect_rc=0, timeout=120)
    out, err = p.stdout, p.stderr
    if p.returncode != 0 or cpu1() != "1":
        fail(f"resume after SIGKILL: exit {p.returncode}, cpu1/online {cpu1()}: {err}")
    print("SIGKILL mid-run: resume restored CPU 1 from the state file and completed", flush=True)


if __name__ == "__main__":
    run_main(lambda netab: main())
