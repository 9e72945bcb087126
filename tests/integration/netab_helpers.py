"""Shared helpers for netab's integration tests (Python 3 standard library only).

Every test is a standalone script run by meson as
    python3 tests/integration/<name>.py /path/to/netab
and exits 0 (pass), 1 (fail) or 77 (skip, with the reason on stderr).

The helpers start real `netab server` processes, wait for the port they
write with --port-file, run `netab run --json` and parse its one JSON
document, and make sure every process they started is killed, also when a
test fails half-way (use `with Server(...)` or `ServerPool`).
"""

import contextlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

PASS, FAIL, SKIP = 0, 1, 77

# Upper bound for any single netab invocation. This only prevents a hung
# test from hanging the suite; it is never a speed expectation.
HANG_TIMEOUT = 30.0


class TestFailure(Exception):
    """An assertion in an integration test did not hold."""


class TestSkip(Exception):
    """The test cannot run here (not root, no namespaces, ...)."""


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def check(cond, what, *details):
    """Fails the test with `what` (and details) unless cond holds."""
    if not cond:
        msg = what
        if details:
            msg += ": " + " ".join(str(d) for d in details)
        raise TestFailure(msg)


def check_eq(a, b, what):
    if a != b:
        raise TestFailure(f"{what}: {a!r} != {b!r}")


def netab_path():
    if len(sys.argv) < 2:
        log("usage: %s /path/to/netab" % sys.argv[0])
        sys.exit(SKIP)
    path = os.path.abspath(sys.argv[1])
    if not os.access(path, os.X_OK):
        log(f"netab binary {path} is not executable")
        sys.exit(FAIL)
    return path


def run_main(body):
    """Runs body(netab) and maps its outcome onto meson's exit codes."""
    netab = netab_path()
    try:
        body(netab)
    except TestSkip as e:
        log(f"SKIP: {e}")
        sys.exit(SKIP)
    except TestFailure as e:
        log(f"FAIL: {e}")
        sys.exit(FAIL)
    except Exception:  # a crash in the test itself is a failure, with its trace
        traceback.print_exc()
        log("FAIL: unexpected exception")
        sys.exit(FAIL)
    log("PASS")
    sys.exit(PASS)


# ---------------------------------------------------------------------------
# Processes


class Result:
    """What one netab invocation did: exit code, stdout, stderr, parsed JSON."""

    def __init__(self, argv, returncode, stdout, stderr):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self._doc = None

    def describe(self):
        return (
            f"`{' '.join(self.argv)}` exited {self.returncode}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )

    @property
    def doc(self):
        """stdout parsed as exactly one JSON document (fails the test otherwise)."""
        if self._doc is None:
            self._doc = parse_one_json(self.stdout, self)
        return self._doc


def parse_one_json(text, result=None):
    """Parses text as exactly one JSON document, nothing before or after it."""
    dec = json.JSONDecoder()
    stripped = text.lstrip()
    ctx = "\n" + result.describe() if result else ""
    try:
        doc, end = dec.raw_decode(stripped)
    except json.JSONDecodeError as e:
        raise TestFailure(f"stdout is not a JSON document ({e}){ctx}")
    rest = stripped[end:].strip()
    if rest:
        raise TestFailure(f"stdout holds more than one JSON document (trailing {rest[:80]!r}){ctx}")
    if not isinstance(doc, dict):
        raise TestFailure(f"stdout's JSON document is not an object{ctx}")
    return doc


def run_cmd(argv, timeout=HANG_TIMEOUT, netns=None):
    """Runs argv (optionally inside a network namespace) and returns a Result."""
    if netns:
        argv = ["ip", "netns", "exec", netns] + list(argv)
    try:
        p = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
            text=True,
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise TestFailure(
            f"`{' '.join(argv)}` did not finish within {timeout} s (hang?)\n"
            f"--- stdout ---\n{out[-2000:]}\n--- stderr ---\n{err[-2000:]}"
        )
    check_no_sanitizer_report(p.stderr, " ".join(argv))
    return Result(argv, p.returncode, p.stdout, p.stderr)


SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:")


def check_no_sanitizer_report(text, what):
    """Fails when a sanitizer (ASan/LSan/UBSan build) reported a problem in text."""
    for mark in SANITIZER_MARKS:
        if mark in text:
            i = text.index(mark)
            raise TestFailure(f"{what}: sanitizer report:\n{text[max(0, i - 200):i + 3000]}")


def netab_run(netab, args, expect_rc=0, timeout=HANG_TIMEOUT, netns=None):
    """Runs `netab run ARGS --json`, checks the exit code and returns the Result."""
    argv = [netab, "run"] + list(args)
    if "--json" not in argv and "-J" not in argv:
        argv.append("--json")
    r = run_cmd(argv, timeout=timeout, netns=netns)
    if expect_rc is not None and r.returncode != expect_rc:
        raise TestFailure(f"expected exit status {expect_rc}\n" + r.describe())
    return r


class Server:
    """A real `netab server -p 0 --port-file` process, killed on exit.

    Use as a context manager. `extra` are further server options; `netns`
    runs the server inside that network namespace. The server's log
    (stderr) goes to a file, readable with log_text().
    """

    def __init__(self, netab, extra=(), netns=None, bind=None):
        self.netab = netab
        self.extra = list(extra)
        self.netns = netns
        self.bind = bind
        self.proc = None
        self.port = None
        self.dir = tempfile.mkdtemp(prefix="netab-it-")
        self.port_file = os.path.join(self.dir, "port")
        self.log_file = os.path.join(self.dir, "server.log")
        self._log = None

    def start(self, timeout=15.0):
        argv = [self.netab, "server", "-p", "0", "--port-file", self.port_file]
        if self.bind:
            argv += ["-B", self.bind]
        argv += self.extra
        if self.netns:
            argv = ["ip", "netns", "exec", self.netns] + argv
        self._log = open(self.log_file, "w")
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise TestFailure(
                    f"netab server exited with {self.proc.returncode} before listening:\n"
                    + self.log_text()
                )
            with contextlib.suppress(OSError):
                with open(self.port_file) as f:
                    text = f.read()
                # The server writes "PORT\n"; only a whole line is trusted.
                if text.endswith("\n") and text.strip().isdigit():
                    self.port = int(text.strip())
                    return self
            time.sleep(0.02)
        raise TestFailure(f"netab server wrote no port file within {timeout} s:\n" + self.log_text())

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_text(self):
        with contextlib.suppress(OSError):
            with open(self.log_file, errors="replace") as f:
                return f.read()
        return ""

    def wait_log(self, needle, timeout=10.0):
        """Waits until the server's log contains needle; returns whether it did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.log_text():
                return True
            time.sleep(0.05)
        return needle in self.log_text()

    def stop(self):
        """Stops the server: SIGTERM, then SIGKILL for the whole process group.

        Returns a problem description (None if the server shut down cleanly:
        exit status 0 after SIGTERM and no sanitizer report in its log).
        """
        problem = None
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=HANG_TIMEOUT)
                if self.proc.returncode != 0:
                    problem = f"netab server exited with {self.proc.returncode} on SIGTERM"
            except subprocess.TimeoutExpired:
                problem = f"netab server did not stop within {HANG_TIMEOUT} s of SIGTERM"
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        elif self.proc is not None:
            problem = f"netab server had exited by itself with {self.proc.returncode}"
        if problem is None:
            try:
                check_no_sanitizer_report(self.log_text(), "netab server")
            except TestFailure as e:
                problem = str(e)
        if problem:
            problem += "\n--- server log ---\n" + self.log_text()[-6000:]
        if self._log:
            self._log.close()
            self._log = None
        shutil.rmtree(self.dir, ignore_errors=True)
        return problem

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        if exc[0] is not None:
            log("--- server log ---\n" + self.log_text()[-6000:])
        problem = self.stop()
        if problem and exc[0] is None:
            raise TestFailure(problem)
        return False


# ---------------------------------------------------------------------------
# Raw control-protocol access (for the bad-input tests)


def connect(host, port, timeout=10.0):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((host, port))
    return s


def frame(obj):
    body = json.dumps(obj).encode()
    return struct.pack(">I", len(body)) + body


def recv_exact(s, n):
    """Reads n bytes; returns fewer only if the peer closed."""
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def recv_frame(s):
    """Reads one control frame. Returns the JSON object, or None if the peer closed."""
    hdr = recv_exact(s, 4)
    if len(hdr) < 4:
        return None
    (n,) = struct.unpack(">I", hdr)
    check(0 < n <= 64 * 1024, "server sent a frame with an implausible length", n)
    body = recv_exact(s, n)
    check(len(body) == n, "server closed in the middle of a frame")
    msg = json.loads(body)
    check(isinstance(msg, dict) and isinstance(msg.get("type"), str), "frame is not a typed object", msg)
    return msg


def hello(version=1):
    return {"type": "hello", "magic": "netab", "version": version, "software": "netab-itest"}


# ---------------------------------------------------------------------------
# Result document checks


CPU_FIELDS = ("total_pct", "user_pct", "system_pct", "softirq_pct")
TEST_FIELDS = (
    "test", "duration", "bytes", "streams", "reverse", "bidir", "block", "sockbuf",
    "mss", "nodelay", "congestion", "omit", "interval", "server_cpu", "rate", "gso", "gro",
    "req_size", "resp_size", "outstanding", "rr_timeout_ms", "linger0",
)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_doc(doc, streams=1, reverse=False, bidir=False, nbytes=0, exact=True):
    """Checks the shape and internal consistency of a successful run's document."""
    check(doc.get("error") is None, "error is not null", doc.get("error"))
    test = doc.get("test")
    check(isinstance(test, dict), "no test object")
    for f in TEST_FIELDS:
        check(f in test, "test lacks parameter", f)
    check_eq(test["test"], "tcp_stream", "test.test")
    check_eq(test["streams"], streams, "test.streams")
    check_eq(test["reverse"], reverse, "test.reverse")
    check_eq(test["bidir"], bidir, "test.bidir")
    check_eq(test["bytes"], nbytes, "test.bytes")
    host = doc.get("host")
    check(isinstance(host, dict) and isinstance(host.get("local"), dict)
          and isinstance(host.get("remote"), dict), "host.local/host.remote missing", host)
    end = doc.get("end")
    check(isinstance(end, dict), "end is not an object", end)
    for side in ("sender", "receiver"):
        check(isinstance(end.get(side), dict), f"end.{side} missing")
        check(is_num(end[side].get("bytes")) and end[side]["bytes"] > 0, f"end.{side}.bytes", end[side])
        bps = end[side].get("bits_per_second")
        check(is_num(bps) and bps > 0, f"end.{side}.bits_per_second", end[side])
    if exact:
        check_eq(end["receiver"]["bytes"], end["sender"]["bytes"], "receiver bytes vs sender bytes")
    for where in ("local", "remote"):
        cpu = end.get("cpu", {}).get(where)
        check(isinstance(cpu, dict), f"end.cpu.{where} missing", end.get("cpu"))
        for f in CPU_FIELDS:
            v = cpu.get(f)
            check(is_num(v) and 0 <= v <= 100.0 + 1e-6, f"end.cpu.{where}.{f}", v)
        d = end.get("service_demand", {}).get(f"{where}_us_per_kib")
        check(is_num(d) and d >= 0, f"end.service_demand.{where}_us_per_kib", end.get("service_demand"))
    conns = streams * (2 if bidir else 1)
    st = doc.get("streams")
    check(isinstance(st, list), "streams is not a list")
    check_eq(len(st), conns, "number of streams[] entries")
    for i, s in enumerate(st):
        check_eq(s.get("id"), i, "streams[].id")
        server_sends = reverse or (bidir and i >= streams)
        check_eq(s.get("direction"), "server_to_client" if server_sends else "client_to_server",
                 f"streams[{i}].direction")
        for side in ("sender", "receiver"):
            check(isinstance(s.get(side), dict) and is_num(s[side].get("bytes")),
                  f"streams[{i}].{side}.bytes", s)
        if exact:
            check_eq(s["receiver"]["bytes"], s["sender"]["bytes"], f"streams[{i}] receiver vs sender bytes")
    # Per-stream bytes add up to the totals exactly.
    check_eq(sum(s["sender"]["bytes"] for s in st), end["sender"]["bytes"], "sum of streams' sender bytes")
    check_eq(sum(s["receiver"]["bytes"] for s in st), end["receiver"]["bytes"], "sum of streams' receiver bytes")
    check_eq(end.get("streams"), conns, "end.streams")
    if nbytes:
        # -n is per direction: N bytes across the direction's streams, exactly.
        dirs = end.get("directions", {})
        want = ["server_to_client"] if reverse else ["client_to_server"]
        if bidir:
            want = ["client_to_server", "server_to_client"]
        check_eq(sorted(dirs), sorted(want), "end.directions keys")
        for k in want:
            check_eq(dirs[k]["sender"]["bytes"], nbytes, f"{k} sender bytes (-n)")
            check_eq(dirs[k]["receiver"]["bytes"], nbytes, f"{k} receiver bytes (-n)")
    ivs = doc.get("intervals")
    check(isinstance(ivs, list), "intervals is not a list")
    for iv in ivs:
        for f in ("start", "end", "bits_per_second"):
            check(is_num(iv.get(f)), f"intervals[].{f}", iv)
        check(iv["end"] > iv["start"] >= 0, "interval end after start", iv)
        check(iv["bits_per_second"] >= 0, "interval bits_per_second >= 0", iv)
    for a, b in zip(ivs, ivs[1:]):
        check(abs(b["start"] - a["end"]) < 1e-6, "intervals are contiguous", a, b)
    return end


def interval_bytes(doc):
    return sum(iv["bytes"] for iv in doc["intervals"])


# ---------------------------------------------------------------------------
# Network namespaces


def require_root_netns():
    """Skips the test unless we are root and can create network namespaces."""
    if os.geteuid() != 0:
        raise TestSkip("needs root to create network namespaces (run as root; CI does)")
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            raise TestSkip(f"'{tool}' (iproute2) is not installed")
    probe = f"netab-probe-{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        raise TestSkip(f"cannot create a network namespace: {r.stderr.strip()}")
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)


def sh(*argv, netns=None):
    """Runs a set-up command; fails the test with its stderr if it fails."""
    argv = list(argv)
    if netns:
        argv = ["ip", "netns", "exec", netns] + argv
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise TestFailure(f"`{' '.join(argv)}` failed: {r.stderr.strip()}")
    return r.stdout


class NetnsPair:
    """Two namespaces joined by a veth pair, 198.18.0.1/24 and 198.18.0.2/24.

    Names carry the pid so parallel or stale runs do not collide; both
    namespaces (and with them the veth pair and its qdiscs) are deleted on
    exit, also on failure.
    """

    def __init__(self, tag="it"):
        pid = os.getpid()
        self.ns_a = f"netab-{tag}-a-{pid}"
        self.ns_b = f"netab-{tag}-b-{pid}"
        self.dev_a = f"nbva{pid % 100000}"
        self.dev_b = f"nbvb{pid % 100000}"
        self.addr_a = "198.18.0.1"
        self.addr_b = "198.18.0.2"
        self.created = []

    def __enter__(self):
        try:
            for ns in (self.ns_a, self.ns_b):
                sh("ip", "netns", "add", ns)
                self.created.append(ns)
            sh("ip", "link", "add", self.dev_a, "netns", self.ns_a, "type", "veth",
               "peer", "name", self.dev_b, "netns", self.ns_b)
            for ns, dev, addr in ((self.ns_a, self.dev_a, self.addr_a),
                                  (self.ns_b, self.dev_b, self.addr_b)):
                sh("ip", "addr", "add", addr + "/24", "dev", dev, netns=ns)
                sh("ip", "link", "set", dev, "up", netns=ns)
                sh("ip", "link", "set", "lo", "up", netns=ns)
            # The link must actually pass traffic before a test relies on it.
            if shutil.which("ping"):
                sh("ping", "-c", "1", "-W", "5", self.addr_b, netns=self.ns_a)
        except BaseException:
            self.cleanup()
            raise
        return self

    def cleanup(self):
        for ns in reversed(self.created):
            r = subprocess.run(["ip", "netns", "del", ns], capture_output=True, text=True)
            if r.returncode != 0:
                log(f"warning: cannot delete namespace {ns}: {r.stderr.strip()}")
        self.created = []

    def __exit__(self, *exc):
        self.cleanup()
        return False
