"""Helpers for netab's UDP, request/response and connection-rate integration tests.

Standard library only. Every test script imports this module from its own
directory and exits 0 (pass), 1 (fail) or 77 (skip, with a reason).

Network rules (docs: /work/shared/DESIGN.md): traffic goes only to loopback
or to namespaces created here with 198.18.0.0/15 addresses; everything a
test creates (server processes, namespaces, veth pairs, qdiscs, nft tables)
is removed in `finally`, and every wait is bounded.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

PASS, FAIL, SKIP = 0, 1, 77


class Skip(Exception):
    """Raised to end a test with exit status 77 and a reason."""


class Checks:
    """Collects assertion results so that one run reports every failure, not only the first."""

    def __init__(self, name):
        self.name = name
        self.failed = 0
        self.passed = 0

    def check(self, cond, what, detail=""):
        tag = "ok  " if cond else "FAIL"
        print(f"[{self.name}] {tag} {what}" + (f"  ({detail})" if detail else ""), flush=True)
        if cond:
            self.passed += 1
        else:
            self.failed += 1
        return cond

    def note(self, text):
        print(f"[{self.name}] .... {text}", flush=True)

    def exit_code(self):
        print(f"[{self.name}] {self.passed} passed, {self.failed} failed", flush=True)
        return FAIL if self.failed else PASS


def main(test_fn):
    """Runs test_fn(netab_path, checks) and exits with 0/1/77."""
    if len(sys.argv) < 2:
        print("usage: script.py PATH-TO-NETAB", file=sys.stderr)
        sys.exit(FAIL)
    netab = sys.argv[1]
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    checks = Checks(name)
    try:
        test_fn(netab, checks)
    except Skip as e:
        print(f"[{name}] SKIP: {e}", flush=True)
        sys.exit(SKIP)
    except Exception as e:  # a crash of the test itself is a failure, with the traceback
        import traceback

        traceback.print_exc()
        print(f"[{name}] FAIL: test raised {e!r}", flush=True)
        sys.exit(FAIL)
    sys.exit(checks.exit_code())


def sanitized(netab):
    """True when netab was built with ASan/UBSan, or the environment says so.

    Sanitizer builds run 2-3x slower, so a check that needs the sender to
    reach a high rate is skipped there (never loosened).
    """
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "NETAB_SANITIZED"):
        if os.environ.get(var):
            return True
    try:
        with open(netab, "rb") as f:
            blob = f.read()
        return b"__asan_init" in blob or b"__ubsan_handle" in blob
    except OSError:
        return False


def ns_prefix(ns):
    return ["ip", "netns", "exec", ns] if ns else []


def run_cmd(argv, timeout=30, check=True):
    """Runs a command with a time limit; returns CompletedProcess (text)."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {r.returncode}: {r.stderr.strip()}")
    return r


class Server:
    """A real `netab server -p 0 --port-file F` process, optionally inside a namespace.

    Use as a context manager: the process is killed (by its own pid) on exit.
    """

    def __init__(self, netab, ns=None, bind=None, extra=()):
        self.netab = netab
        self.ns = ns
        self.bind = bind
        self.extra = list(extra)
        self.proc = None
        self.port = None
        self.dir = None
        self.log = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="netab-udp-")
        pf = os.path.join(self.dir, "port")
        self.log = open(os.path.join(self.dir, "server.log"), "w+")
        argv = ns_prefix(self.ns) + [self.netab, "server", "-p", "0", "--port-file", pf]
        if self.bind:
            argv += ["-B", self.bind]
        argv += self.extra
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"netab server exited early ({self.proc.returncode}): "
                                   f"{self.log_text()}")
            try:
                with open(pf) as f:
                    text = f.read().strip()
                if text:
                    self.port = int(text)
                    return self
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        raise RuntimeError("netab server did not write its port within 15 s")

    def pid(self):
        """The pid of the netab server itself (not of `ip netns exec`, which execs it)."""
        return self.proc.pid

    def log_text(self):
        try:
            self.log.flush()
            self.log.seek(0)
            return self.log.read()[-4000:]
        except (OSError, ValueError):
            return ""

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self.log:
            self.log.close()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


def run_netab(netab, args, ns=None, timeout=60):
    """Runs `netab run ... --json`; returns (exit status, parsed JSON or None, stderr)."""
    argv = ns_prefix(ns) + [netab, "run", "--json"] + list(args)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    doc = None
    try:
        doc = json.loads(r.stdout) if r.stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return r.returncode, doc, r.stderr


def run_against(netab, server, args, host="127.0.0.1", ns=None, timeout=60):
    return run_netab(netab, ["-c", host, "-p", str(server.port)] + list(args), ns=ns,
                     timeout=timeout)


def require_root_netns():
    """Skips unless we can create namespaces and have ip/nft/tc."""
    if os.geteuid() != 0:
        raise Skip("needs root for network namespaces")
    for tool in ("ip", "tc", "nft"):
        if shutil.which(tool) is None:
            raise Skip(f"'{tool}' is not installed")


class NetnsPair:
    """Two namespaces joined by a veth pair: A=198.18.0.1/24, B=198.18.0.2/24.

    Names carry the pid and a tag so concurrent tests never collide. Deleting
    a namespace deletes its end of the veth pair, its qdiscs and its nft
    tables, so __exit__ removes everything the test made, also on failure.
    """

    A_ADDR = "198.18.0.1"
    B_ADDR = "198.18.0.2"

    def __init__(self, tag):
        pid = os.getpid()
        self.a = f"nbu-{tag}-{pid}-a"
        self.b = f"nbu-{tag}-{pid}-b"
        # Interface names are limited to 15 characters.
        self.va = f"nu{pid % 100000}{tag[:2]}a"[:15]
        self.vb = f"nu{pid % 100000}{tag[:2]}b"[:15]
        self.made = []

    def __enter__(self):
        try:
            for ns in (self.a, self.b):
                run_cmd(["ip", "netns", "add", ns])
                self.made.append(ns)
                run_cmd(["ip", "-n", ns, "link", "set", "lo", "up"])
            run_cmd(["ip", "link", "add", self.va, "netns", self.a, "type", "veth", "peer",
                     "name", self.vb, "netns", self.b])
            run_cmd(["ip", "-n", self.a, "addr", "add", f"{self.A_ADDR}/24", "dev", self.va])
            run_cmd(["ip", "-n", self.b, "addr", "add", f"{self.B_ADDR}/24", "dev", self.vb])
            run_cmd(["ip", "-n", self.a, "link", "set", self.va, "up"])
            run_cmd(["ip", "-n", self.b, "link", "set", self.vb, "up"])
            # Bounded wait until B answers (link up, no DAD for IPv4 but the veth needs a moment).
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                r = run_cmd(["ip", "netns", "exec", self.a, "ping", "-c1", "-W1", self.B_ADDR],
                            check=False, timeout=5) if shutil.which("ping") else None
                if r is None or r.returncode == 0:
                    break
                time.sleep(0.1)
        except Exception as e:
            self.__exit__(None, None, None)
            msg = str(e)
            if "Operation not permitted" in msg or "Permission denied" in msg:
                raise Skip(f"cannot create network namespaces here: {msg}")
            raise
        return self

    def nft_drop_udp(self, ns, percent):
        """Drops percent% of incoming UDP in ns, chosen at random per packet."""
        for cmd in (
            ["nft", "add", "table", "inet", "netab_t"],
            ["nft", "add", "chain", "inet", "netab_t", "input",
             "{ type filter hook input priority 0; }"],
            ["nft", "add", "rule", "inet", "netab_t", "input", "meta", "l4proto", "udp",
             "numgen", "random", "mod", "100", "<", str(percent), "drop"],
        ):
            run_cmd(ns_prefix(ns) + cmd)

    def nft_delete(self, ns):
        run_cmd(ns_prefix(ns) + ["nft", "delete", "table", "inet", "netab_t"], check=False)

    def tbf(self, ns, dev, rate="100mbit", burst="64kb", latency="20ms"):
        run_cmd(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf",
                 "rate", rate, "burst", burst, "latency", latency])

    def tbf_delete(self, ns, dev):
        run_cmd(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"],
                check=False)

    def __exit__(self, *exc):
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=15)
        self.made = []
        return False


class LoopbackNetns:
    """A namespace of our own with only lo up, for loopback tests that need their own port
    space and TIME_WAIT table (other test runs on the host cannot collide with fixed ports).

    Yields the namespace name, or None when we may not create one (the caller then uses the
    host's loopback). Deleted on exit.
    """

    def __init__(self, tag):
        self.name = f"nbu-{tag}-{os.getpid()}"
        self.made = False

    def __enter__(self):
        if os.geteuid() != 0 or shutil.which("ip") is None:
            return None
        r = run_cmd(["ip", "netns", "add", self.name], check=False)
        if r.returncode != 0:
            return None
        self.made = True
        run_cmd(["ip", "-n", self.name, "link", "set", "lo", "up"])
        return self.name

    def __exit__(self, *exc):
        if self.made:
            subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=15)
        return False


def udp_ports_of_pid(pid, ns=None):
    """UDP ports of sockets owned by pid, from `ss -uanp` (run in ns when given)."""
    r = run_cmd(ns_prefix(ns) + ["ss", "-uanpH"], check=False)
    ports = set()
    for line in r.stdout.splitlines():
        if f"pid={pid}," not in line:
            continue
        fields = line.split()
        # Netid-less -u output: State Recv-Q Send-Q Local:Port Peer:Port Process
        for f in fields:
            if ":" in f and not f.startswith("users:"):
                port = f.rsplit(":", 1)[1]
                if port.isdigit():
                    ports.add(int(port))
                break
    return sorted(ports)


def udp_ports_of_pid_proc(pid):
    """Same as udp_ports_of_pid but from /proc/net/udp{,6} and /proc/PID/fd socket inodes."""
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in (f"/proc/{pid}/net/udp", f"/proc/{pid}/net/udp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    cols = line.split()
                    if len(cols) > 9 and cols[9] in inodes:
                        ports.add(int(cols[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return sorted(ports)


def end_of(doc):
    """doc['end'] or {} when the run produced no summary."""
    if not doc or not isinstance(doc.get("end"), dict):
        return {}
    return doc["end"]


def within(value, target, rel):
    return target and abs(value - target) <= rel * target


def ordered_percentiles(lat):
    keys = ["p50", "p90", "p99", "p999", "p9999", "max"]
    vals = [lat.get(k) for k in keys]
    if any(v is None for v in vals):
        return False
    return all(vals[i] <= vals[i + 1] for i in range(len(vals) - 1))
