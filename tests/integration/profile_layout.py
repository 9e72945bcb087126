#!/usr/bin/env python3
"""From profile to layout: `netab layout OLD NEW --hot-from` a sampled profile.

Builds two versions of a small program with gcc (-falign-functions=1, so
functions pack): in the second, an extra function placed before the hot
loop pushes it by 40 bytes, changing its offset within a 64-byte line.
The first version runs pinned on CPU 0 while `netab run -A 0,0 --profile`
samples CPU 0, so the profile holds the program's hot loop (named through
its maps and ELF symbols while it still runs). Then:

1. `--hot-from RUN.json`: the loop is a hot function, and layout says it
   changed its offset within the line, as nm's addresses say.
2. The same from a stored experiment (`profile: true`, the program running
   beside it): `--hot-from EXPERIMENT:VARIANT --db F`.
3. Errors: a run document without a profile, an experiment without one, a
   bad EXPERIMENT reference, --hot with --hot-from: exit 2 with the reason.
"""
import json
import os
import shutil
import tempfile
import time

from netab_helpers import (TestSkip, check, log, need_tools, netab_cmd, netab_run, parse_one_json,
                           run_cmd, run_main, start)

PROG = r"""
#define NI __attribute__((noinline))
%(extra)s
NI unsigned long netab_hot_loop(unsigned long n)
{
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++)
        x += i * i;
    return x;
}
int main(void)
{
    unsigned long s = 0;
    for (int k = 0; k < 200000; k++) /* ends by itself within minutes; the test kills it sooner */
        s += netab_hot_loop(1000000);
    return (int)(s & 1);
}
"""
EXTRA = r"""
NI long netab_pad_fn(long x) { return x * 7 + 3 - (x >> 2) + (x << 3) * 5 - (x ^ 0x55) * 3; }
"""


def build(d, name, extra):
    c = os.path.join(d, name + ".c")
    with open(c, "w") as f:
        f.write(PROG % {"extra": extra})
    exe = os.path.join(d, name)
    run_cmd(["gcc", "-O2", "-fno-inline", "-fno-reorder-functions", "-falign-functions=1", "-o",
             exe, c], timeout=60)
    return exe


def nm_addr(exe, name):
    for line in run_cmd(["nm", exe], timeout=30).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError(f"{name} not in nm {exe}")


class Busy:
    """The old build running pinned on CPU 0 until stopped."""

    def __init__(self, exe):
        self.p = start(["taskset", "-c", "0", exe])
        self.name = os.path.basename(exe)

    def __enter__(self):
        # Until it runs its own code: taskset has exec'd it and it has used CPU time.
        for _ in range(1000):
            try:
                with open(f"/proc/{self.p.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{self.p.pid}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                break
            if comm == self.name and int(fields[11]) > 0:
                return self
            time.sleep(0.01)
        self.__exit__()
        raise AssertionError(f"{self.name} did not start running")

    def __exit__(self, *exc):
        if not self.p.alive():
            raise AssertionError(f"{self.name} ended early")
        self.p.kill_group()
        self.p.finish(expect_rc=-9, timeout=30)


def check_layout(netab, old, new, hot_args, what):
    doc = parse_one_json(netab_cmd(netab, "layout", old, new, "--json", *hot_args).stdout)
    check(doc["summary"]["hot"]["source"] == "netab profile", f"{what}: hot set from the profile",
          doc["summary"]["hot"])
    fn = [f for f in doc["functions"] if f["name"] == "netab_hot_loop"]
    check(len(fn) == 1 and fn[0]["hot"], f"{what}: the profiled loop is hot", fn)
    a, b = nm_addr(old, "netab_hot_loop"), nm_addr(new, "netab_hot_loop")
    log(f"{what}: netab_hot_loop at {a:#x} (offset {a % 64}) and {b:#x} (offset {b % 64})")
    check(a % 64 != b % 64, "the builds place the loop at different offsets in its line", a, b)
    check(fn[0]["offset_changed"], f"{what}: layout says the hot loop changed its offset", fn[0])


def body(netab):
    if os.geteuid() != 0:
        raise TestSkip("needs root to sample system-wide (CI runs as root)")
    need_tools("gcc", "nm", "taskset")
    d = tempfile.mkdtemp(prefix="netab-proflayout-")
    try:
        old, new = build(d, "old", ""), build(d, "new", EXTRA)
        run_json = os.path.join(d, "run.json")
        with Busy(old):
            r = netab_run(netab, ["-t", "2", "-A", "0,0", "--profile", "-i", "0"], timeout=60)
        with open(run_json, "w") as f:
            f.write(r.stdout)
        p = parse_one_json(r.stdout)["end"]["profile"]["local"]
        loop = [f for f in p["functions"] if f["symbol"] == "netab_hot_loop"]
        check(loop and loop[0]["module"] == "old", "the profile names the program's loop",
              p["functions"][:5])
        check_layout(netab, old, new, ["--hot-from", run_json], "run document")

        db = os.path.join(d, "r.db")
        exp = os.path.join(d, "e.yaml")
        with open(exp, "w") as f:
            f.write("name: proflayout\nruns: 1\nwarmup: 0\nseed: 1\ncooldown: 0\n"
                    "test:\n  time: 1\n  profile: true\n  affinity: \"0,0\"\n"
                    "variants:\n  - name: base\n    opts: \"-l 128K\"\n")
        with Busy(old):
            netab_cmd(netab, "experiment", "run", exp, "--db", db, timeout=120)
        check_layout(netab, old, new, ["--hot-from", "1:base", "--db", db], "stored experiment")

        plain = os.path.join(d, "plain.json")
        with open(plain, "w") as f:
            f.write(netab_run(netab, ["-t", "0.5", "-i", "0"]).stdout)
        for args, want in ((["--hot-from", plain], "no sampled profile"),
                           (["--hot-from", "1:nosuch", "--db", db], "has no ok run of variant"),
                           (["--hot-from", "x:y", "--db", db], "neither a file nor"),
                           (["--hot-from", plain, "--hot", "ip_rcv"], "give one")):
            r = netab_cmd(netab, "layout", old, new, *args, expect_rc=2)
            check(want in r.stderr, f"{args}: refused with the reason", r.stderr)
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
