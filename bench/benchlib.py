"""Shared helpers for the bench/*.py figures (python3 stdlib only).

Each benchmark runs netab and its peers side by side in one run, alternating
them in a seeded random order each round, and prints medians and ratios
(docs: /work/shared/DESIGN.md "Figures"). Everything here is bounded: every
child process has a timeout and every server started is killed in a finally.
"""
import argparse
import datetime
import json
import os
import random
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLK_TCK = os.sysconf("SC_CLK_TCK")
# A client may run this much longer than its -t before we give up on it.
SLACK_S = 30.0
# Put in front of every tool's command line (clients and servers alike): --fifo's chrt.
PREFIX = []


class ToolError(Exception):
    """One run of one tool failed; the benchmark reports it and goes on."""


def common_args(description, rounds=5, seconds=5.0):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("-r", "--rounds", type=int, default=rounds, help="rounds (default %(default)s)")
    p.add_argument("-t", "--seconds", type=float, default=seconds,
                   help="seconds per run (default %(default)s)")
    p.add_argument("--seed", type=int, default=None, help="order seed (default: random, printed)")
    p.add_argument("--build", default=os.path.join(ROOT, "build-b"),
                   help="meson build dir holding netab and bench/ (default %(default)s)")
    p.add_argument("--gap", type=float, default=1.0,
                   help="pause between runs, seconds (default %(default)s)")
    p.add_argument("--raw", default=None, help="append every run's raw output to this file")
    p.add_argument("--fifo", type=int, default=None, metavar="PRIO",
                   help="run every tool (clients and servers) under SCHED_FIFO at this priority "
                        "(chrt -f PRIO, 1..99): the other processes of a shared host can then "
                        "neither preempt the tools nor share their CPUs. The figures are then the "
                        "tools' data paths with each busy thread on a CPU of its own, not what "
                        "the default scheduler gives; the host's other work waits meanwhile")
    return p


def finish_args(args):
    if not 1 <= args.rounds <= 1000:
        sys.exit("rounds must be 1..1000")
    if not 0.5 <= args.seconds <= 3600:
        sys.exit("seconds must be 0.5..3600")
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2**31)
    if args.fifo is not None:
        if not 1 <= args.fifo <= 99:
            sys.exit("--fifo priority must be 1..99")
        PREFIX[:] = ["chrt", "-f", str(args.fifo)]
    args.netab = os.path.join(args.build, "netab")
    args.bare = os.path.join(args.build, "bench", "bare")
    args.crr_bare = os.path.join(args.build, "bench", "crr_bare")
    return args


def header(args, what):
    print("# %s  %s" % (what, datetime.datetime.now().isoformat(timespec="seconds")))
    print("# host: %s, %d CPUs (online %s), %s, kernel %s; loadavg %s" % (
        socket.gethostname(), os.cpu_count(), online_cpus(), cpu_model(), os.uname().release,
        " ".join(open("/proc/loadavg").read().split()[:3])))
    print("# rounds=%d seconds=%g seed=%d (rerun with --seed %d for the same order)" % (
        args.rounds, args.seconds, args.seed, args.seed))
    if PREFIX:
        print("# every tool runs under %s (SCHED_FIFO)" % " ".join(PREFIX))
    sys.stdout.flush()


def online_cpus():
    """The kernel's list of online CPUs, e.g. "0-1"."""
    try:
        with open("/sys/devices/system/cpu/online") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


# ---------------------------------------------------------------- /proc/stat

def cpu_ticks():
    """(busy, total) ticks of the aggregate cpu line; busy = total - idle - iowait
    (netperf's definition). total = user+nice+system+idle+iowait+irq+softirq+steal
    (guest time is already inside user/nice)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    assert fields[0] == "cpu"
    v = [int(x) for x in fields[1:9]]
    v += [0] * (8 - len(v))
    total = sum(v)
    return total - v[3] - v[4], total


def service_demand(before, after, rx_bytes):
    """System-wide busy CPU microseconds per KiB received, or None."""
    busy = after[0] - before[0]
    if rx_bytes <= 0:
        return None
    return busy * 1e6 / CLK_TCK / (rx_bytes / 1024.0)


# ---------------------------------------------------------------- processes

def free_port():
    """A TCP/UDP port that was free a moment ago (tiny race, fine on loopback)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                u.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
    raise ToolError("no free port")


def _listening(port):
    want = ":%04X" % port
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    # local_address ends with :PORT, st 0A = LISTEN
                    if parts[1].endswith(want) and parts[3] == "0A":
                        return True
        except OSError:
            pass
    return False


class Server:
    """A peer's server process, started for one run and always killed."""

    def __init__(self, argv, port, raw=None, wait_listen=True):
        self.argv, self.port, self.raw = argv, port, raw
        self.wait_listen = wait_listen
        self.proc = None
        self.out = ""

    def __enter__(self):
        # A file, not a pipe: a chatty server must never block on a full pipe.
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(PREFIX + self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, text=True)
        if self.wait_listen:
            deadline = time.monotonic() + 5.0
            while not _listening(self.port):
                if self.proc.poll() is not None:
                    self._reap()
                    raise ToolError("server %s exited early (rc %s): %s" % (
                        self.argv[0], self.proc.returncode, self.out.strip()[-300:]))
                if time.monotonic() > deadline:
                    self._reap()
                    raise ToolError("server %s not listening on %d after 5 s" % (
                        self.argv[0], self.port))
                time.sleep(0.02)
        else:
            time.sleep(0.3)
        return self

    def _reap(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        self.log.seek(0)
        self.out = self.log.read()
        self.log.close()
        self.proc = None

    def output(self):
        """What the server has printed so far, while it runs."""
        self.log.flush()
        self.log.seek(0)
        text = self.log.read()
        self.log.seek(0, os.SEEK_END)
        return text

    def stop(self, grace=0.0):
        """Stops the server and returns all it printed. With grace, first
        waits that long for it to exit by itself (e.g. iperf3 -s -1)."""
        if self.proc is not None and grace > 0:
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self._reap()
        if self.raw:
            log_raw(self.raw, "server: " + " ".join(self.argv), self.out)
        return self.out

    def __exit__(self, *exc):
        self._reap()
        return False


def run(argv, seconds, raw=None, with_stderr=False):
    """Runs a client to completion; returns stdout (and stderr if with_stderr).
    Raises ToolError on failure or when it overruns seconds + SLACK_S."""
    try:
        p = subprocess.run(PREFIX + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=seconds + SLACK_S)
    except FileNotFoundError:
        raise ToolError("%s: not found" % argv[0])
    except subprocess.TimeoutExpired as e:
        if raw:
            log_raw(raw, " ".join(argv) + "  [TIMEOUT]", str(e.stdout or ""))
        raise ToolError("%s timed out after %.0f s" % (os.path.basename(argv[0]), seconds + SLACK_S))
    if raw:
        log_raw(raw, "%s  [rc %d]" % (" ".join(shlex.quote(a) for a in argv), p.returncode),
                p.stdout + ("\n[stderr]\n" + p.stderr if p.stderr.strip() else ""))
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip())[-300:]
        raise ToolError("%s exited %d: %s" % (os.path.basename(argv[0]), p.returncode, msg))
    return (p.stdout, p.stderr) if with_stderr else p.stdout


def log_raw(path, title, text):
    with open(path, "a") as f:
        f.write("==== %s %s\n%s\n" % (datetime.datetime.now().isoformat(timespec="seconds"),
                                     title, text.rstrip()))


def load_json(text, tool):
    try:
        return json.loads(text)
    except ValueError as e:
        raise ToolError("%s: bad JSON (%s)" % (tool, e))


# ---------------------------------------------------------------- rounds

def alternate(args, runners, on_result):
    """runners: list of (name, fn); each fn() returns a dict of metrics or
    raises ToolError. Every round runs all of them once in a seeded random
    order. Returns {name: [metric dicts]} and {name: [error strings]}."""
    rng = random.Random(args.seed)
    cpus0 = online_cpus()
    results = {name: [] for name, _ in runners}
    errors = {name: [] for name, _ in runners}
    for rnd in range(1, args.rounds + 1):
        order = list(runners)
        rng.shuffle(order)
        print("round %d/%d: %s" % (rnd, args.rounds, ", ".join(n for n, _ in order)))
        for name, fn in order:
            time.sleep(args.gap)
            try:
                before = online_cpus()
                m = fn()
                after = online_cpus()
                # Another user of a shared host may take CPUs offline (netab's own campaign
                # `cpus:` does): a run that did not have the CPUs the others had is no figure.
                if before != cpus0 or after != cpus0:
                    raise ToolError("online CPUs changed: %s at the start of the benchmark, "
                                    "%s before this run, %s after it" % (cpus0, before, after))
            except ToolError as e:
                errors[name].append(str(e))
                print("  %-14s FAILED: %s" % (name, e))
            except Exception as e:  # a parsing surprise must not lose the other tools
                errors[name].append("%s: %s" % (type(e).__name__, e))
                print("  %-14s FAILED (%s): %s" % (name, type(e).__name__, e))
            else:
                results[name].append(m)
                print("  %-14s %s" % (name, on_result(m)))
            sys.stdout.flush()
    return results, errors


def med(results, name, key):
    vals = [m[key] for m in results.get(name, []) if m.get(key) is not None]
    return statistics.median(vals) if vals else None


def spread(results, name, key):
    vals = [m[key] for m in results.get(name, []) if m.get(key) is not None]
    return (min(vals), max(vals)) if vals else None


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if abs(x) >= 1000:
        return "{:,.0f}".format(x)
    return "%.*g" % (digits, x)


def table(rows, cols):
    """rows: list of lists of strings; cols: header strings."""
    widths = [max(len(str(r[i])) for r in rows + [cols]) for i in range(len(cols))]
    line = lambda r: "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths)))
    print(line(cols))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def target(label, value, op, goal):
    """Prints one ratio against its target; op is '>=' or '<='."""
    if value is None:
        verdict = "n/a (missing data)"
    elif (op == ">=" and value >= goal) or (op == "<=" and value <= goal):
        verdict = "PASS"
    else:
        verdict = "MISS"
    print("  %-44s %8s   target %s %g   %s" % (label, fmt(value), op, goal, verdict))
    return verdict


def info(label, value):
    """Prints a ratio that has no target."""
    print("  %-44s %8s   (no target)" % (label, fmt(value)))


def report_errors(errors):
    bad = {k: v for k, v in errors.items() if v}
    if bad:
        print("\nfailures:")
        for k, v in bad.items():
            print("  %s: %d failed run(s); first: %s" % (k, len(v), v[0]))


# ---------------------------------------------------------------- memory

def vm_hwm_kib(pid):
    """A running process's peak resident set (VmHWM in /proc/PID/status), KiB, or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def run_rss(argv, seconds, raw=None):
    """Like run(), but also returns the client's peak resident set in KiB:
    (stdout, stderr, rss). The figure is the VmHWM of /proc/PID/status, read
    every 50 ms while the client runs (its exit is polled at the same pace;
    the clients print their own figures, so this costs them no precision).
    An exited process has no VmHWM left to read, and wait4()'s ru_maxrss is no
    substitute for a small one: exec() keeps the larger of the old and new
    address spaces' peaks, and the old one is this python's (vfork shares it).
    So ru_maxrss is taken only where it exceeds this python's own VmHWM, i.e.
    where it must be the client's: then it also covers its last 50 ms."""
    out, err = tempfile.TemporaryFile(mode="w+"), tempfile.TemporaryFile(mode="w+")
    try:
        try:
            p = subprocess.Popen(PREFIX + argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise ToolError("%s: not found" % argv[0])
        own = vm_hwm_kib(os.getpid()) or 0
        deadline = time.monotonic() + seconds + SLACK_S
        timed_out = False
        rss = 0
        while True:
            rss = max(rss, vm_hwm_kib(p.pid) or 0)
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                timed_out = True
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        # Reaped here, not by Popen: tell it so that it never waits on a reused pid.
        p.returncode = os.waitstatus_to_exitcode(status)
        if ru.ru_maxrss > own:
            rss = max(rss, ru.ru_maxrss)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    finally:
        out.close()
        err.close()
    if raw:
        log_raw(raw, "%s  [rc %d, VmHWM %d KiB]%s" % (
            " ".join(shlex.quote(a) for a in argv), p.returncode, rss,
            "  [TIMEOUT]" if timed_out else ""),
            stdout + ("\n[stderr]\n" + stderr if stderr.strip() else ""))
    if timed_out:
        raise ToolError("%s timed out after %.0f s" % (os.path.basename(argv[0]), seconds + SLACK_S))
    if p.returncode != 0:
        msg = (stderr.strip() or stdout.strip())[-300:]
        raise ToolError("%s exited %d: %s" % (os.path.basename(argv[0]), p.returncode, msg))
    return stdout, stderr, rss or None
