"""The one harness for netab's Python integration tests (Python 3 standard library only).

Every test is a standalone script run by meson as
    python3 tests/integration/<name>.py /path/to/netab
and exits 0 (pass), 1 (fail) or 77 (skip, with the reason on stderr).

Every process a test starts goes through this module: `run_cmd` (run to
completion), `start` (a process the test signals or reads while it runs),
`Server` (a real `netab server`), and the netab shorthands built on them
(`netab_run`, `run_netab`, `run_against`, `netab_cmd`). For each process the
harness

* checks the exit status against what the test expects (`expect_rc`, 0
  unless the test says otherwise; a negative value is a signal, as in
  subprocess: -9 is SIGKILL);
* sends stderr to a file (never a pipe that can fill) and scans it for
  sanitizer reports (AddressSanitizer, LeakSanitizer, UBSan's "runtime
  error:", ...), failing the test with the process named and the report
  quoted;
* at every such check also scans the logs of the processes still running
  (servers), so a server's report fails the client run that triggered it;
* points ASan/LSan at a log directory of its own (ASAN_OPTIONS log_path),
  so that a report from a process the test never sees directly (a `netab
  run` child of `netab compare` or `netab experiment`, whose stderr its
  parent keeps) still fails the test. GCC's UBSan ignores log_path and
  writes to stderr, so a UBSan report of such a child is not seen: with
  halt_on_error=1 (scripts/test) it fails that run, which the test sees
  only as a failed run;
* kills whatever is still running when the test ends, and fails a test
  that passed but left a process it started unchecked.

Tests therefore never call subprocess themselves. `run_main(body)` runs
body(netab) and raises on the first failure; `main(test)` runs
test(netab, checks) for tests that collect many checks in one run.
"""

import atexit
import contextlib
import json
import os
import re
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

PIPE = subprocess.PIPE

# An interval line of `netab run`'s text output ("  0.00-1.00   s   1.18 MiB ..."): data
# flowed for one interval, so the test is running. Wait for it with Proc.wait_output().
INTERVAL_LINE = re.compile(r"(?m)^\s*\d+\.\d+-\d+\.\d+\s+s\s")


class TestFailure(Exception):
    """An assertion in an integration test did not hold."""


class TestSkip(Exception):
    """The test cannot run here (not root, ...).

    ci_reason names, from tests/ci-skip-reasons, why CI itself cannot provide
    what the test needs (one CPU, ...); under CI=true scripts/test fails on a
    skip without one. Not root is never such a reason: CI runs as root.
    """

    def __init__(self, msg, ci_reason=None):
        super().__init__(msg)
        self.ci_reason = ci_reason


Skip = TestSkip


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


def field(obj, path, kind=None):
    """obj's member at the dotted path ("end.receiver.packets"); fails the test if it is absent.

    kind, when given, is a type (or tuple of types) the value must have;
    "num" means an int or float that is not a bool. Use it instead of
    .get(key, default), which turns a missing field into a passing value.
    """
    cur = obj
    for key in path.split("."):
        if not isinstance(cur, dict) or key not in cur:
            raise TestFailure(f"the document has no {path!r} (missing {key!r})")
        cur = cur[key]
    if kind == "num":
        check(is_num(cur), f"{path} is not a number", repr(cur))
    elif kind is not None:
        check(isinstance(cur, kind), f"{path} has the wrong type", repr(cur))
    return cur


# ---------------------------------------------------------------------------
# Sanitizer reports

# What starts a report of ASan, LSan, TSan, MSan or UBSan (GCC and clang).
SANITIZER_RE = re.compile(
    r"ERROR: (?:Address|Leak|Thread|Memory)Sanitizer"
    r"|WARNING: (?:Thread|Memory)Sanitizer"
    r"|SUMMARY: \w*Sanitizer"
    r"|\w+Sanitizer:DEADLYSIGNAL"
    r"|: runtime error: ")


def sanitizer_report(text):
    """The sanitizer report in text (from the start of its line, at most 4000 characters), or None."""
    m = SANITIZER_RE.search(text or "")
    if not m:
        return None
    start = text.rfind("\n", 0, m.start()) + 1
    return text[start:start + 4000]


def check_no_sanitizer_report(text, what):
    """Fails when a sanitizer (ASan/LSan/UBSan build) reported a problem in text."""
    rep = sanitizer_report(text)
    if rep is not None:
        raise TestFailure(f"{what}: sanitizer report:\n{rep}")


def _sanitizer_log_dir():
    """Makes ASan and LSan of every process we start write their reports into a directory of ours."""
    d = tempfile.mkdtemp(prefix="netab-san-")
    atexit.register(shutil.rmtree, d, True)
    for var in ("ASAN_OPTIONS", "LSAN_OPTIONS"):
        old = os.environ.get(var, "")
        os.environ[var] = (old + ":" if old else "") + f"log_path={d}/report"
    return d


SAN_DIR = _sanitizer_log_dir()
WORK_DIR = tempfile.mkdtemp(prefix="netab-it-")
atexit.register(shutil.rmtree, WORK_DIR, True)
_seen_reports = set()


def check_sanitizer_logs():
    """Fails the test if any process reported a problem since the last call.

    That is a report file in SAN_DIR (named report.PID: a PID the harness
    started is named with its command line, any other is a process started by
    one of them), or a report in the stderr of a process that still runs (a
    server: UBSan writes to stderr, and without halt_on_error the server
    goes on, so its report must fail the client run that triggered it, before
    any check on that run's figures).
    """
    for p in _procs:
        if not p.checked and not p.reported:
            rep = sanitizer_report(p.stderr_text())
            if rep is not None:
                p.reported = True
                state = "still running" if p.alive() else _rc_text(p.poll())
                raise TestFailure(f"{p.what} ({state}): sanitizer report:\n{rep}")
    for name in sorted(os.listdir(SAN_DIR)):
        if name in _seen_reports:
            continue
        _seen_reports.add(name)
        path = os.path.join(SAN_DIR, name)
        with open(path, errors="replace") as f:
            text = f.read()
        pid = name.rsplit(".", 1)[-1]
        owner = next((p.what for p in reversed(_procs) if str(p.pid) == pid), None)
        who = owner or f"a process (pid {pid}) started by a netab process of this test"
        raise TestFailure(f"{who}: sanitizer report ({path}):\n{text[:4000]}")


# ---------------------------------------------------------------------------
# Processes

_procs = []


def _rc_ok(rc, expect):
    if isinstance(expect, int):
        return rc == expect
    return rc in expect


def _rc_text(rc):
    if rc is not None and rc < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-rc).name}"
    return f"exited {rc}"


class Result:
    """What one finished process did: exit code, stdout, stderr, parsed JSON."""

    def __init__(self, argv, returncode, stdout, stderr):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self._doc = None

    def describe(self):
        return (
            f"`{' '.join(self.argv)}` {_rc_text(self.returncode)}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )

    @property
    def doc(self):
        """stdout parsed as exactly one JSON document (fails the test otherwise)."""
        if self._doc is None:
            self._doc = parse_one_json(self.stdout, self)
        return self._doc


class Proc:
    """One process started by the harness; see start(). Finish it with finish()."""

    def __init__(self, argv, netns=None, stdout=None, env=None, stdin=None, new_session=True):
        self.argv = list(argv)
        if netns:
            self.argv = ["ip", "netns", "exec", netns] + self.argv
        self.what = f"`{' '.join(self.argv)}`"
        n = len(_procs)
        self.err_path = os.path.join(WORK_DIR, f"proc{n}.err")
        self.out_path = os.path.join(WORK_DIR, f"proc{n}.out")
        self.checked = False
        self.reported = False
        self.result = None
        full_env = None
        if env:
            full_env = dict(os.environ)
            full_env.update(env)
        err = open(self.err_path, "w")
        if stdout is None:
            out = open(self.out_path, "w")
        elif stdout == subprocess.STDOUT:
            out = err  # one log of both, in the order written (servers)
        else:
            out = stdout
        try:
            self.popen = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL if stdin is None else stdin, stdout=out,
                stderr=err, env=full_env, start_new_session=new_session,
                text=True if stdout == PIPE else None)
        finally:
            err.close()
            if stdout is None:
                out.close()
        self.pid = self.popen.pid
        self.stdout = self.popen.stdout  # a pipe only if the caller asked for one
        _procs.append(self)

    def poll(self):
        return self.popen.poll()

    def wait_exit(self, timeout):
        """Waits up to timeout seconds; returns the exit status, or None if it still runs.

        The process must still be finished (checked) with finish().
        """
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def alive(self):
        return self.popen.poll() is None

    def send(self, sig):
        """Sends sig to the process (only to it, not its process group)."""
        with contextlib.suppress(ProcessLookupError):
            self.popen.send_signal(sig)

    def kill_group(self, sig=signal.SIGKILL):
        """Sends sig to the process's whole process group (it has one of its own)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def stderr_text(self):
        with contextlib.suppress(OSError):
            with open(self.err_path, errors="replace") as f:
                return f.read()
        return ""

    def stdout_text(self):
        with contextlib.suppress(OSError):
            with open(self.out_path, errors="replace") as f:
                return f.read()
        return ""

    def wait_output(self, needle, timeout=HANG_TIMEOUT):
        """Waits until the process's stdout or stderr holds needle (a str, or a compiled regex).

        Returns True once it does; False if the process ended or timeout
        passed first (timeout only guards against a hang; callers fail on
        False, they never treat the wait as a speed check). needle must not
        be empty: an empty needle is found at once, a check that cannot fail.
        """
        if not needle:
            raise TestFailure("wait_output: an empty needle matches at once")
        found = (lambda t: needle in t) if isinstance(needle, str) else needle.search
        deadline = time.monotonic() + timeout
        while True:
            ended = self.popen.poll() is not None  # read after the exit: nothing is missed
            if found(self.stdout_text() + self.stderr_text()):
                return True
            if ended or time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def finish(self, expect_rc=0, timeout=HANG_TIMEOUT):
        """Waits for the process, then checks it; returns its Result.

        Fails the test if it does not end within timeout (it is killed), if
        its stderr or the sanitizer log directory holds a sanitizer report
        (checked first, so a report is never hidden behind the crash it
        caused), or if its exit status is not expect_rc (an int or a
        collection of ints).
        """
        out = ""
        hung = False
        try:
            if self.popen.stdout is not None:
                out, _ = self.popen.communicate(timeout=timeout)
            else:
                self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            hung = True
            self.kill_group()
            self.popen.wait(timeout=10)
        if self.popen.stdout is None:
            out = self.stdout_text()
        self.checked = True
        err = self.stderr_text()
        self.result = Result(self.argv, self.popen.returncode, out or "", err)
        check_no_sanitizer_report(err, self.what)
        own = os.path.join(SAN_DIR, f"report.{self.pid}")
        if os.path.exists(own):  # also when another process's check saw it first
            self.reported = True
            _seen_reports.add(os.path.basename(own))
            with open(own, errors="replace") as f:
                raise TestFailure(f"{self.what} ({_rc_text(self.popen.returncode)}): sanitizer "
                                  f"report ({own}):\n{f.read()[:4000]}")
        check_sanitizer_logs()
        if hung:
            raise TestFailure(f"{self.what} did not finish within {timeout} s (hang?)\n"
                              + self.result.describe())
        if not _rc_ok(self.popen.returncode, expect_rc):
            raise TestFailure(f"expected exit status {expect_rc}\n" + self.result.describe())
        return self.result

    def abandon(self):
        """Kills the process if it still runs and scans what it wrote; for clean-up paths."""
        if self.popen.poll() is None:
            self.kill_group()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=10)
        if self.popen.stdout is not None:
            self.popen.stdout.close()
        self.checked = True
        rep = sanitizer_report(self.stderr_text())
        if rep:
            log(f"FAIL: {self.what}: sanitizer report:\n{rep}")
        return rep


def start(argv, netns=None, stdout=None, env=None, stdin=None, new_session=True):
    """Starts argv (optionally in a network namespace) and returns its Proc.

    stderr goes to a file. stdout goes to a file too, unless stdout=PIPE (the
    test reads it as text while the process runs) or another file object.
    The process gets a session and process group of its own unless
    new_session is False. The caller must call finish(expect_rc) on it.
    """
    return Proc(argv, netns=netns, stdout=stdout, env=env, stdin=stdin, new_session=new_session)


NAN_INF_WORD = re.compile(r"\b(nan|inf|infinity)\b", re.I)


def check_report_numbers(argv, result):
    """A `netab report` prints no nan or inf, in any format, for any experiment a test stores
    (an undefined figure says why in words). Ids and references of the HTML figures' glyph
    definitions are names, not shown numbers, and are left out of the search."""
    if len(argv) < 2 or os.path.basename(str(argv[0])) != "netab" or argv[1] != "report":
        return
    text = re.sub(r'\b(id|xlink:href|href)="[^"]*"', "", result.stdout or "")
    bad = NAN_INF_WORD.findall(text)
    if bad:
        raise TestFailure(f"netab report printed {bad[:5]}:\n" + result.describe())


def run_cmd(argv, timeout=HANG_TIMEOUT, netns=None, expect_rc=0, env=None):
    """Runs argv to completion (optionally inside a network namespace) and returns its Result.

    Every check of Proc.finish applies: exit status expect_rc, no sanitizer report, no hang;
    and a report's output holds no nan or inf (check_report_numbers).
    """
    r = start(argv, netns=netns, env=env).finish(expect_rc=expect_rc, timeout=timeout)
    check_report_numbers(argv, r)
    return r


def netab_cmd(netab, *args, expect_rc=0, timeout=HANG_TIMEOUT, env=None, netns=None):
    """Runs `netab ARGS` and returns its Result (see run_cmd)."""
    return run_cmd([netab] + list(args), timeout=timeout, netns=netns, expect_rc=expect_rc,
                   env=env)


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


def netab_run(netab, args, expect_rc=0, timeout=HANG_TIMEOUT, netns=None):
    """Runs `netab run ARGS --json`, checks the exit code and returns the Result."""
    argv = [netab, "run"] + list(args)
    if "--json" not in argv and "-J" not in argv:
        argv.append("--json")
    return run_cmd(argv, timeout=timeout, netns=netns, expect_rc=expect_rc)


def run_netab(netab, args, ns=None, timeout=60, expect_rc=0):
    """Runs `netab run --json ARGS`; returns (exit status, parsed JSON or None, stderr).

    The exit status is checked (expect_rc) like every other; the document is
    None when stdout is not JSON, which the caller's checks then report.
    """
    r = run_cmd([netab, "run", "--json"] + list(args), timeout=timeout, netns=ns,
                expect_rc=expect_rc)
    try:
        doc = json.loads(r.stdout) if r.stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return r.returncode, doc, r.stderr


def run_against(netab, server, args, host="127.0.0.1", ns=None, timeout=60, expect_rc=0):
    return run_netab(netab, ["-c", host, "-p", str(server.port)] + list(args), ns=ns,
                     timeout=timeout, expect_rc=expect_rc)


def _finish_all(test_ok):
    """At the end of a test: every process finished and checked, no report left unread.

    Returns a failure message, or None.
    """
    problems = []
    for p in _procs:
        if not p.checked:
            rep = p.abandon()
            if rep:
                problems.append(f"{p.what}: sanitizer report:\n{rep}")
            elif test_ok:
                problems.append(f"{p.what} was started but never finished and checked "
                                "(a harness misuse in the test)")
    try:
        check_sanitizer_logs()
    except TestFailure as e:
        problems.append(str(e))
    return "\n".join(problems) or None


def netab_path():
    if len(sys.argv) < 2:
        log("usage: %s /path/to/netab" % sys.argv[0])
        sys.exit(FAIL)
    path = os.path.abspath(sys.argv[1])
    if not os.access(path, os.X_OK):
        log(f"netab binary {path} is not executable")
        sys.exit(FAIL)
    return path


def _outcome(fn):
    """Runs fn(); returns (exit code, message)."""
    try:
        fn()
    except TestSkip as e:
        if e.ci_reason:
            return SKIP, f"SKIP: {e}\nci-skip-reason: {e.ci_reason}"
        return SKIP, f"SKIP: {e}"
    except TestFailure as e:
        return FAIL, f"FAIL: {e}"
    except Exception:  # a crash in the test itself is a failure, with its trace
        traceback.print_exc()
        return FAIL, "FAIL: unexpected exception"
    return PASS, "PASS"


def _exit(code, msg):
    problem = _finish_all(code == PASS)
    if problem:
        if code != FAIL:
            code, msg = FAIL, ""
        log(f"FAIL: {problem}")
    if msg:
        log(msg)
    sys.exit(code)


def run_main(body):
    """Runs body(netab) and maps its outcome onto meson's exit codes."""
    netab = netab_path()
    _exit(*_outcome(lambda: body(netab)))


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


def main(test_fn):
    """Runs test_fn(netab, checks) and exits with 0/1/77.

    A failed check lets the test go on (to report every failure); a
    TestFailure raised by the harness (a sanitizer report, an unexpected exit
    status) ends it at once.
    """
    netab = netab_path()
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    c = Checks(name)
    code, msg = _outcome(lambda: test_fn(netab, c))
    print(f"[{name}] {c.passed} passed, {c.failed} failed", flush=True)
    if code == PASS and c.failed:
        code, msg = FAIL, f"FAIL: {c.failed} check(s) failed"
    _exit(code, msg)


def fd_count(pid):
    """The open file descriptors of process pid (/proc/PID/fd)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_fds(pid, want, timeout=20):
    """Whether pid's open fds come down to want within timeout seconds (a server freeing a
    vanished client's connections)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if fd_count(pid) <= want:
            return True
        time.sleep(0.1)
    return False


def sanitized(netab):
    """True when netab was built with ASan/UBSan (or NETAB_SANITIZED is set).

    Sanitizer builds run 2-3x slower, so a check that needs the sender to
    reach a high rate is skipped there (never loosened). The binary is what
    decides: the harness itself sets ASAN_OPTIONS for every build.
    """
    if os.environ.get("NETAB_SANITIZED"):
        return True
    try:
        with open(netab, "rb") as f:
            blob = f.read()
        return b"__asan_init" in blob or b"__ubsan_handle" in blob
    except OSError:
        return False


# ---------------------------------------------------------------------------
# Servers


class Server:
    """A real `netab server -p 0 --port-file` process, stopped and checked on exit.

    Use as a context manager. `extra` are further server options; `netns`
    runs the server inside that network namespace. The server's log
    (stdout and stderr) goes to a file, readable with log_text(). On exit it
    gets SIGTERM, must exit with expect_rc (0: SIGTERM is a clean stop) and
    its log must hold no sanitizer report; otherwise the test fails.
    """

    def __init__(self, netab, extra=(), netns=None, bind=None, expect_rc=0):
        self.netab = netab
        self.extra = list(extra)
        self.netns = netns
        self.bind = bind
        self.expect_rc = expect_rc
        self.proc = None
        self.port = None
        self.dir = tempfile.mkdtemp(prefix="netab-srv-", dir=WORK_DIR)
        self.port_file = os.path.join(self.dir, "port")

    def start(self, timeout=15.0):
        argv = [self.netab, "server", "-p", "0", "--port-file", self.port_file]
        if self.bind:
            argv += ["-B", self.bind]
        argv += self.extra
        self.proc = start(argv, netns=self.netns, stdout=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                check_no_sanitizer_report(self.log_text(), "netab server")
                raise TestFailure(
                    f"netab server {_rc_text(self.proc.poll())} before listening:\n"
                    + self.log_text())
            with contextlib.suppress(OSError):
                with open(self.port_file) as f:
                    text = f.read()
                # The server writes "PORT\n"; only a whole line is trusted.
                if text.endswith("\n") and text.strip().isdigit():
                    self.port = int(text.strip())
                    return self
            time.sleep(0.02)
        raise TestFailure(f"netab server wrote no port file within {timeout} s:\n" + self.log_text())

    def pid(self):
        """The pid of the netab server itself (`ip netns exec` execs it, so it keeps the pid)."""
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.alive()

    def log_text(self):
        return self.proc.stderr_text() if self.proc else ""

    def wait_log(self, needle, timeout=10.0):
        """Waits until the server's log contains needle; returns whether it did.

        needle must not be empty (it would be found at once: a check that cannot fail).
        """
        if not needle:
            raise TestFailure("wait_log: an empty needle matches at once")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.log_text():
                return True
            time.sleep(0.05)
        return needle in self.log_text()

    def stop(self):
        """Stops the server: SIGTERM (SIGKILL for the whole group if it hangs), then checks it.

        Returns a problem description, or None if the server shut down
        cleanly: still running until SIGTERM, exit status expect_rc, and no
        sanitizer report in its log or the sanitizer log directory. Calling
        it again returns None.
        """
        if self.proc is None or self.proc.checked:
            return None
        problem = None
        if self.proc.alive():
            self.proc.kill_group(signal.SIGTERM)
        else:
            problem = f"netab server had exited by itself ({_rc_text(self.proc.poll())})"
        try:
            self.proc.finish(expect_rc=self.expect_rc, timeout=HANG_TIMEOUT)
        except TestFailure as e:
            problem = f"{problem or 'netab server stopped with SIGTERM'} (pid {self.proc.pid}): {e}"
        if problem:
            problem += "\n--- server log ---\n" + self.log_text()[-6000:]
        return problem

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            problem = self.stop()
            if problem:
                log(problem)
            raise

    def __exit__(self, *exc):
        if exc[0] is not None and self.proc is not None:
            log("--- server log ---\n" + self.log_text()[-6000:])
        problem = self.stop()
        if problem and exc[0] is None:
            raise TestFailure(problem)
        if problem and self.proc.reported and exc[0] is not None:
            log(f"FAIL: the netab server (pid {self.proc.pid}) wrote the sanitizer report below")
        elif problem:
            log("FAIL (while the test was failing already): " + problem)
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


def recv_frame(s, limit=64 * 1024):
    """Reads one control frame of at most limit bytes. Returns the JSON object, or None if the peer closed."""
    hdr = recv_exact(s, 4)
    if len(hdr) < 4:
        return None
    (n,) = struct.unpack(">I", hdr)
    check(0 < n <= limit, "server sent a frame with an implausible length", n, "limit", limit)
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
    check("error" in doc and doc["error"] is None, "error is not null", doc.get("error"))
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
        cpu = field(end, f"cpu.{where}", dict)
        for f in CPU_FIELDS:
            v = cpu.get(f)
            check(is_num(v) and 0 <= v <= 100.0 + 1e-6, f"end.cpu.{where}.{f}", v)
        d = field(end, f"service_demand.{where}_us_per_kib", "num")
        check(d >= 0, f"end.service_demand.{where}_us_per_kib", end.get("service_demand"))
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
        dirs = field(end, "directions", dict)
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


def end_of(doc):
    """doc['end'], or {} when the run produced no summary (the caller checks it is not empty)."""
    if not doc or not isinstance(doc.get("end"), dict):
        return {}
    return doc["end"]


def within(value, target, rel):
    return bool(target) and abs(value - target) <= rel * target


def ordered_percentiles(lat):
    keys = ["p50", "p90", "p99", "p999", "p9999", "max"]
    vals = [lat.get(k) for k in keys]
    if any(not is_num(v) for v in vals):
        return False
    return all(vals[i] <= vals[i + 1] for i in range(len(vals) - 1))


# ---------------------------------------------------------------------------
# Set-up commands and network namespaces


def need_tools(*tools):
    """Fails the test (not a skip: scripts/deps installs them, CI has them) if a tool is missing."""
    missing = [t for t in tools if shutil.which(t) is None]
    check(not missing, "missing tools (run sh scripts/deps)", " ".join(missing))


def sh(*argv, netns=None, check_rc=True, timeout=30):
    """Runs a set-up command (ip, tc, nft, ...); returns its stdout.

    Fails the test with its stderr if it exits non-zero, unless check_rc is
    False (for clean-up that may find nothing to remove).
    """
    r = run_cmd(list(argv), netns=netns, timeout=timeout,
                expect_rc=0 if check_rc else range(-64, 256))
    return r.stdout


def require_root_netns(tools=("ip", "tc")):
    """Skips the test unless we are root; as root, namespaces and the tools must work.

    Only "not root" is a reason to skip (CI runs as root): a missing tool, or
    a root that cannot create a namespace, fails the test.
    """
    if os.geteuid() != 0:
        raise TestSkip("needs root to create network namespaces (run as root; CI does)")
    need_tools(*tools)
    probe = f"netab-probe-{os.getpid()}"
    sh("ip", "netns", "add", probe)
    sh("ip", "netns", "del", probe)


class NetnsPair:
    """Two namespaces joined by a veth pair: ns_a/dev_a 198.18.0.1/24, ns_b/dev_b 198.18.0.2/24.

    Names carry the pid and a tag so parallel or stale runs do not collide.
    Deleting a namespace deletes its end of the veth pair, its qdiscs and its
    nft tables, so __exit__ removes everything the test made, also on failure.
    """

    def __init__(self, tag="it"):
        pid = os.getpid()
        self.ns_a = f"netab-{tag}-a-{pid}"
        self.ns_b = f"netab-{tag}-b-{pid}"
        # Interface names are limited to 15 characters.
        self.dev_a = f"nb{pid % 100000}{tag[:2]}a"[:15]
        self.dev_b = f"nb{pid % 100000}{tag[:2]}b"[:15]
        self.addr_a = "198.18.0.1"
        self.addr_b = "198.18.0.2"
        self.created = []

    def __enter__(self):
        try:
            need_tools("ip", "ping")
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
            sh("ping", "-c", "1", "-W", "5", self.addr_b, netns=self.ns_a)
        except BaseException:
            self.cleanup()
            raise
        return self

    def nft_drop_udp(self, ns, percent, data_only=False):
        """Drops percent% of incoming UDP in ns, chosen at random per packet, and counts them
        (nft_dropped). data_only: only datagrams over 64 bytes, never a 4-byte iperf3 hello."""
        need_tools("nft")
        sh("nft", "add", "table", "inet", "netab_t", netns=ns)
        sh("nft", "add", "chain", "inet", "netab_t", "input",
           "{ type filter hook input priority 0; }", netns=ns)
        match = ["udp", "length", ">", "64"] if data_only else ["meta", "l4proto", "udp"]
        # nft's numgen takes values below 100 only: 100% drops every match.
        chance = ["numgen", "random", "mod", "100", "<", str(percent)] if percent < 100 else []
        sh("nft", "add", "rule", "inet", "netab_t", "input", *match, *chance, "counter", "drop",
           netns=ns)

    def nft_dropped(self, ns):
        """The packets nft_drop_udp's rule has dropped so far."""
        return nft_counter(ns)

    def nft_delete(self, ns):
        nft_delete(ns)

    def tbf(self, ns, dev, rate="100mbit", burst="64kb", latency="20ms"):
        sh(*tbf_argv(dev, rate, burst, latency, "add"), netns=ns)

    def tbf_delete(self, ns, dev):
        sh("tc", "qdisc", "del", "dev", dev, "root", netns=ns, check_rc=False)

    def cleanup(self):
        for ns in reversed(self.created):
            try:
                sh("ip", "netns", "del", ns)
            except TestFailure as e:
                log(f"warning: cannot delete namespace {ns}: {e}")
        self.created = []

    def __exit__(self, *exc):
        self.cleanup()
        return False


def nft_counter(ns, table="netab_t"):
    """The packets the (first) counter of nft table inet TABLE in ns has counted so far."""
    out = json.loads(sh("nft", "-j", "list", "table", "inet", table, netns=ns))
    for item in out.get("nftables", []):
        for expr in item.get("rule", {}).get("expr", []):
            if "counter" in expr:
                return expr["counter"]["packets"]
    raise TestFailure("no nft counter found")


def nft_delete(ns, table="netab_t"):
    sh("nft", "delete", "table", "inet", table, netns=ns, check_rc=False)


def tbf_argv(dev, rate, burst, latency, verb="replace"):
    """tc's command for a tbf root qdisc on dev (its queue limit: rate x latency + burst)."""
    return ["tc", "qdisc", verb, "dev", dev, "root", "tbf", "rate", rate, "burst", burst,
            "latency", latency]


class NetnsRouted:
    """Three namespaces in a line, client - router - server, the router forwarding:

        ns_c  dev_c 198.18.1.2 -- dev_rc 198.18.1.1  ns_r  198.18.2.1 dev_rs -- dev_s 198.18.2.2  ns_s

    A bottleneck belongs on the router's egress (router_tbf(): dev_rc toward the
    client, dev_rs toward the server): a qdisc on a sender's own veth never fills,
    since TCP small queues keep the data in the sending socket. Names carry the pid
    and a tag; deleting the namespaces removes the veths, their qdiscs and nft tables,
    so __exit__ removes everything, also on failure.
    """

    def __init__(self, tag="rt"):
        pid = os.getpid()
        self.ns_c, self.ns_r, self.ns_s = (f"netab-{tag}-{x}-{pid}" for x in "crs")
        base = f"nb{pid % 100000}{tag[:2]}"  # interface names: 15 characters at most
        self.dev_c, self.dev_rc, self.dev_rs, self.dev_s = (base + x
                                                            for x in ("c", "rc", "rs", "s"))
        self.addr_c, self.addr_rc = "198.18.1.2", "198.18.1.1"
        self.addr_s, self.addr_rs = "198.18.2.2", "198.18.2.1"
        self.created = []

    def __enter__(self):
        try:
            need_tools("ip", "ping", "sysctl")
            for ns in (self.ns_c, self.ns_r, self.ns_s):
                sh("ip", "netns", "add", ns)
                self.created.append(ns)
                sh("ip", "link", "set", "lo", "up", netns=ns)
            for ns, dev, peer in ((self.ns_c, self.dev_c, self.dev_rc),
                                  (self.ns_s, self.dev_s, self.dev_rs)):
                sh("ip", "link", "add", dev, "netns", ns, "type", "veth", "peer", "name", peer,
                   "netns", self.ns_r)
            for ns, dev, addr in ((self.ns_c, self.dev_c, self.addr_c),
                                  (self.ns_r, self.dev_rc, self.addr_rc),
                                  (self.ns_r, self.dev_rs, self.addr_rs),
                                  (self.ns_s, self.dev_s, self.addr_s)):
                sh("ip", "addr", "add", addr + "/24", "dev", dev, netns=ns)
                sh("ip", "link", "set", dev, "up", netns=ns)
            sh("ip", "route", "add", "default", "via", self.addr_rc, netns=self.ns_c)
            sh("ip", "route", "add", "default", "via", self.addr_rs, netns=self.ns_s)
            sh("sysctl", "-qw", "net.ipv4.ip_forward=1", netns=self.ns_r)
            # The path must actually pass traffic, through the router, before a test relies on it.
            sh("ping", "-c", "1", "-W", "5", self.addr_s, netns=self.ns_c)
        except BaseException:
            self.cleanup()
            raise
        return self

    def router_tbf_cmd(self, rate, burst, latency):
        """A shell command that sets (replaces) the tbf on both router egresses, as a hook can."""
        return " && ".join(" ".join(["ip", "netns", "exec", self.ns_r] + tbf_argv(d, rate, burst,
                                                                                  latency))
                           for d in (self.dev_rc, self.dev_rs))

    def router_tbf(self, rate, burst, latency):
        for d in (self.dev_rc, self.dev_rs):
            sh(*tbf_argv(d, rate, burst, latency), netns=self.ns_r)

    def router_tbf_delete(self):
        for d in (self.dev_rc, self.dev_rs):
            sh("tc", "qdisc", "del", "dev", d, "root", netns=self.ns_r, check_rc=False)

    def router_qdisc_drops(self):
        """Packets the router's egress qdiscs have dropped so far, summed over both."""
        n = 0
        for d in (self.dev_rc, self.dev_rs):
            for q in json.loads(sh("tc", "-s", "-j", "qdisc", "show", "dev", d, netns=self.ns_r)):
                n += q.get("drops", 0)
        return n

    def nft_drop_forward_udp(self, percent, saddr):
        """Drops percent% of the UDP the router forwards from saddr, at random per packet, and
        counts them (nft_counter(ns_r)). One direction only: the answers are never dropped."""
        need_tools("nft")
        ns = self.ns_r
        sh("nft", "add", "table", "inet", "netab_t", netns=ns)
        sh("nft", "add", "chain", "inet", "netab_t", "forward",
           "{ type filter hook forward priority 0; }", netns=ns)
        # nft's numgen takes values below 100 only: 100% drops every match.
        chance = ["numgen", "random", "mod", "100", "<", str(percent)] if percent < 100 else []
        sh("nft", "add", "rule", "inet", "netab_t", "forward", "ip", "saddr", saddr, "meta",
           "l4proto", "udp", *chance, "counter", "drop", netns=ns)

    def cleanup(self):
        for ns in reversed(self.created):
            try:
                sh("ip", "netns", "del", ns)
            except TestFailure as e:
                log(f"warning: cannot delete namespace {ns}: {e}")
        self.created = []

    def __exit__(self, *exc):
        self.cleanup()
        return False


class LoopbackNetns:
    """A namespace of our own with only lo up, for loopback tests that need their own port
    space and TIME_WAIT table (other test runs on the host cannot collide with fixed ports).

    Yields the namespace name when root; when not root it yields None and the
    caller uses the host's loopback. As root the namespace must be created
    (failing the test otherwise). Deleted on exit.
    """

    def __init__(self, tag):
        self.name = f"netab-{tag}-{os.getpid()}"
        self.made = False

    def __enter__(self):
        if os.geteuid() != 0:
            return None
        need_tools("ip")
        sh("ip", "netns", "add", self.name)
        self.made = True
        sh("ip", "-n", self.name, "link", "set", "lo", "up")
        return self.name

    def __exit__(self, *exc):
        if self.made:
            sh("ip", "netns", "del", self.name, check_rc=False, timeout=15)
        return False


def udp_ports_of_pid(pid, ns=None):
    """UDP ports of sockets owned by pid, from `ss -uanp` (run in ns when given)."""
    out = sh("ss", "-uanpH", netns=ns)
    ports = set()
    for line in out.splitlines():
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


def session_pids(sid):
    """Every live process whose session id is sid (what a killed process group left behind)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # Fields after "(comm)": state ppid pgrp session. A zombie is dead already
        # (in a container, PID 1 may be slow or never reap orphans).
        if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            pids.append(int(d))
    return pids


def kill_session(p, expect_rc=-signal.SIGKILL, within=5.0):
    """SIGKILL p's process group and check its exit status, then SIGKILL whatever else of its
    session still lives (children in process groups of their own) until none is left; fails
    when some survive for `within` seconds."""
    p.kill_group(signal.SIGKILL)
    p.finish(expect_rc=expect_rc, timeout=30)
    deadline = time.monotonic() + within
    while left := session_pids(p.pid):
        check(time.monotonic() < deadline, "processes of the killed session survive", left)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.02)


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
