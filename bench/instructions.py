#!/usr/bin/env python3
"""User-space instructions per datagram / per write: netab's stream loops vs the bare loops.

Wall-clock ceilings (udp_stream.py, tcp_stream.py) need a quiet machine; an
instruction count does not. This runs each tool once under valgrind's
callgrind for a fixed amount of work and counts the instructions its data
threads execute in user space, from the moment they enter their loop:

  netab      stream_udp_run / stream_tcp_run (run -n, so a fixed count)
  udp_bare   sender_main / receiver_main     (udp_bare -n DATAGRAMS)
  bare       sender_main / receiver_main     (bare -t; its byte count)

and prints them per datagram sent and received (UDP) and per KiB (TCP).
Kernel work is not counted (callgrind sees user space only), nor is anything
the loops do not do (connecting, the control connection, reports). Under
valgrind the threads run one at a time, so UDP loses many datagrams; the
receiver's figure is per datagram it received. glibc's memset and memcpy use
`rep stos`/`rep movs` for large blocks, which callgrind counts once per
repetition, so those count more here than they cost a CPU.

    python3 bench/instructions.py --build build [--datagrams 20000] [--sizes 1400,64]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIMEOUT_S = 600


def callgrind(argv, toggles, workdir):
    """Runs argv under callgrind; returns (stdout, {thread file: (instructions, text)})."""
    out = os.path.join(workdir, "cg.%p")
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
           "--callgrind-out-file=" + out] + ["--toggle-collect=" + t for t in toggles] + argv
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    if r.returncode != 0:
        sys.exit("instructions: %s exited %d: %s" % (argv[0], r.returncode, r.stderr[-2000:]))
    threads = {}
    for f in glob.glob(os.path.join(workdir, "cg.*-*")):
        text = open(f, errors="replace").read()
        m = re.search(r"^totals: (\d+)", text, re.M)
        threads[f] = (int(m.group(1)) if m else 0, text)
        os.unlink(f)
    for f in glob.glob(os.path.join(workdir, "cg.*")):
        os.unlink(f)
    return r.stdout, threads


def pick(threads, call):
    """The instructions of the one thread that called `call` (sendmmsg, recv, ...)."""
    pat = re.compile(r"fn=\(\d+\) (__libc_|__)?%s\b" % call)
    found = [n for n, text in threads.values() if n and pat.search(text)]
    if len(found) != 1:
        sys.exit("instructions: expected one thread calling %s, found %d" % (call, len(found)))
    return found[0]


def udp_netab(args, size, workdir):
    argv = [args.netab, "run", "-u", "-b", "0", "-l", str(size), "-n",
            str(args.datagrams * size), "-i", "0", "--json"]
    out, th = callgrind(argv, ["stream_udp_run"], workdir)
    e = json.loads(out)["end"]
    return (pick(th, "sendmmsg"), e["sender"]["packets"],
            pick(th, "recvmmsg"), e["receiver"]["packets"])


def udp_bare(args, size, workdir):
    argv = [args.udp_bare, "-n", str(args.datagrams), "-l", str(size)]
    out, th = callgrind(argv, ["sender_main", "receiver_main"], workdir)
    f = dict(kv.split("=") for kv in out.split()[1:])
    return pick(th, "sendmmsg"), int(f["sent"]), pick(th, "recvmmsg"), int(f["datagrams"])


def tcp_netab(args, workdir):
    argv = [args.netab, "run", "-l", "128K", "-n", str(args.tcp_mib) + "M", "-i", "0", "--json"]
    out, th = callgrind(argv, ["stream_tcp_run"], workdir)
    e = json.loads(out)["end"]
    return pick(th, "send"), e["sender"]["bytes"], pick(th, "recv"), e["receiver"]["bytes"]


def tcp_bare(args, workdir):
    # bare has no byte quota; its receiver counts what arrived in the -t window.
    out, th = callgrind([args.bare, "-t", "1", "-l", "128K"], ["sender_main", "receiver_main"],
                        workdir)
    f = dict(kv.split("=") for kv in out.split()[1:])
    got = int(f["bytes"])
    return pick(th, "send"), got, pick(th, "recv"), got


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build-b"),
                   help="meson build dir holding netab and bench/ (default %(default)s)")
    p.add_argument("--datagrams", type=int, default=20000,
                   help="datagrams per UDP run (default %(default)s)")
    p.add_argument("--sizes", default="1400,64", help="UDP datagram sizes (default %(default)s)")
    p.add_argument("--tcp-mib", type=int, default=256,
                   help="MiB netab's TCP run sends (default %(default)s)")
    p.add_argument("--no-tcp", action="store_true", help="UDP only")
    args = p.parse_args()
    if not 1000 <= args.datagrams <= 10**7 or not 1 <= args.tcp_mib <= 65536:
        sys.exit("instructions: --datagrams must be 1000..10^7 and --tcp-mib 1..65536")
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    if any(not 24 <= s <= 65507 for s in sizes):
        sys.exit("instructions: sizes must be 24..65507")
    if not shutil.which("valgrind"):
        sys.exit("instructions: valgrind is not installed (apt-get install valgrind)")
    args.netab = os.path.join(args.build, "netab")
    args.udp_bare = os.path.join(args.build, "bench", "udp_bare")
    args.bare = os.path.join(args.build, "bench", "bare")
    for b in (args.netab, args.udp_bare, args.bare):
        if not os.access(b, os.X_OK):
            sys.exit("instructions: %s missing; build first" % b)

    print("user-space instructions in the data threads' loops (callgrind)")
    print("%-10s %-8s %14s %14s %14s %14s" % ("tool", "case", "sender instr", "per datagram",
                                             "receiver instr", "per datagram"))
    with tempfile.TemporaryDirectory(prefix="netab-instr-") as wd:
        for size in sizes:
            for name, fn in (("netab", udp_netab), ("udp_bare", udp_bare)):
                si, sn, ri, rn = fn(args, size, wd)
                print("%-10s %-8s %14d %14.1f %14d %14.1f" % (
                    name, "%d B" % size, si, si / max(sn, 1), ri, ri / max(rn, 1)))
        if not args.no_tcp:
            print("\n%-10s %-8s %14s %14s %14s %14s" % ("tool", "case", "sender instr", "per KiB",
                                                       "receiver instr", "per KiB"))
            for name, fn in (("netab", tcp_netab), ("bare", tcp_bare)):
                si, sb, ri, rb = fn(args, wd)
                print("%-10s %-8s %14d %14.3f %14d %14.3f" % (
                    name, "128K", si, si * 1024 / max(sb, 1), ri, ri * 1024 / max(rb, 1)))


if __name__ == "__main__":
    main()
