#!/usr/bin/env python3
"""Command-line errors: clear messages, exit status 2, one JSON document with --json.

Also: a refused connection is exit 1 with one JSON document whose error is
set, and --version/--help of every command exit 0.
"""

import json
import os
import re
import socket
import tempfile

from netab_helpers import WORK_DIR, check, check_eq, log, parse_one_json, run_cmd, run_main

# (arguments, words the message must contain). Each word is a substring the
# user needs to see to fix the command: the option and the offending value.
RUN_USAGE_ERRORS = [
    (["-t", "abc"], ["-t", "abc"]),
    (["-t", "-1"], ["-t", "-1"]),
    (["-t", "0"], ["-t", "0"]),
    (["-P", "0"], ["-P", "0"]),
    (["-P", "100000"], ["-P", "100000"]),
    (["-l", "10Q"], ["-l", "10Q"]),
    (["-l", "0"], ["-l"]),
    (["-n", "0"], ["-n"]),
    (["-n", "lots"], ["-n", "lots"]),
    (["-p", "70000"], ["-p", "70000"]),
    (["-p", "0"], ["-p", "0"]),
    (["--test", "nosuch"], ["--test", "nosuch"]),
    (["--no-such-option"], ["--no-such-option"]),
    # Long options by their exact names only: an abbreviation is refused, with the option meant.
    (["--tim", "1"], ["'--tim'", "did you mean '--time'?"]),
    (["--tim=1"], ["'--tim=1'", "did you mean '--time'?"]),
    (["--paralel", "2"], ["'--paralel'", "did you mean '--parallel'?"]),
    (["--revrese"], ["'--revrese'", "did you mean '--reverse'?"]),
    # send path (issue 32): its values and combinations, each named.
    (["-Z", "--splice"], ["-Z", "--splice"]),
    (["--fq-rate", "fast"], ["--fq-rate", "fast"]),
    (["--fq-rate", "0"], ["--fq-rate", "0"]),
    (["--notsent-lowat", "0"], ["--notsent-lowat"]),
    (["--notsent-lowat", "2G"], ["--notsent-lowat", "2G"]),
    (["--msg-zerocopy", "-u"], ["--msg-zerocopy", "udp_stream"]),
    (["--splice", "--flows", "4"], ["--splice", "--flows"]),
    (["-b", "1G", "--test", "tcp_rr"], ["-b", "tcp_rr"]),
    (["--msg-zerocopy", "--iperf3"], ["--msg-zerocopy", "--iperf3"]),
    (["-R", "--bidir"], ["--bidir"]),
    (["-A", "x"], ["-A", "x"]),
    (["-A", "0,y"], ["-A", "y"]),
    (["-i", "0.01"], ["-i"]),
    (["--connect-timeout", "soon"], ["--connect-timeout", "soon"]),
    (["extra-argument"], ["extra-argument"]),
    (["--plot", "timeline.txt"], ["--plot timeline.txt", ".png, .svg or .pdf"]),
    # receive and socket paths (issue 32): values, and the tests and engines they run on.
    (["--busy-poll", "0"], ["--busy-poll", "'0'"]),
    (["--busy-poll", "2000000"], ["--busy-poll", "2000000"]),
    (["--busy-poll", "soon"], ["--busy-poll", "soon"]),
    (["--io-uring=fast"], ["--io-uring", "fast"]),
    (["--test", "tcp_rr", "--mptcp"], ["--mptcp", "tcp_rr"]),
    (["-u", "--skip-rx-copy"], ["--skip-rx-copy", "udp_stream"]),
    (["--flows", "2", "--io-uring"], ["--io-uring", "--flows"]),
    (["--mptcp", "--cport", "6000"], ["--mptcp", "--cport"]),
    (["-c", "127.0.0.1", "--iperf3", "--busy-poll", "50"], ["--busy-poll", "--iperf3"]),
    (["-c", "127.0.0.1", "--iperf3", "--skip-rx-copy"], ["--skip-rx-copy", "--iperf3"]),
]


def check_usage_error(netab, args, words):
    what = " ".join(args)
    # Plain: exit 2, the message on stderr, nothing on stdout.
    r = run_cmd([netab, "run"] + args, timeout=20, expect_rc=2)
    check_eq(r.returncode, 2, f"`netab run {what}` exit status")
    check(r.stdout.strip() == "", f"`netab run {what}` printed to stdout", r.stdout)
    for w in words:
        check(w in r.stderr, f"`netab run {what}`: stderr does not mention {w!r}", r.stderr)
    check_eq(r.stderr.count("netab run:"), 1, f"`netab run {what}`: messages on stderr")
    # --json: still exit 2, and stdout is exactly one JSON document whose
    # error is a non-empty string that names the problem, too.
    for pos in ("last", "first"):
        argv = [netab, "run"] + (args + ["--json"] if pos == "last" else ["--json"] + args)
        r = run_cmd(argv, timeout=20, expect_rc=2)
        check_eq(r.returncode, 2, f"`netab run {what} --json` ({pos}) exit status")
        doc = parse_one_json(r.stdout, r)
        err = doc.get("error")
        check(isinstance(err, str) and err, f"`netab run {what} --json`: error is not a non-empty string", doc)
        for w in words:
            check(w in err, f"`netab run {what} --json`: JSON error does not mention {w!r}", err)
        check(err in r.stderr, f"`netab run {what} --json`: the JSON error is not on stderr too", r.stderr)
        check_eq(r.stderr.count(err), 1, f"`netab run {what} --json`: times the message is on stderr")


def json_stream_errors(netab):
    """--json-stream: a usage error is the error event and the end event with the --json
    document; --json with it is refused with nothing on stdout (which form would be a guess)."""
    r = run_cmd([netab, "run", "--json-stream", "-t", "abc"], timeout=20, expect_rc=2)
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    check_eq([o["event"] for o in lines], ["error", "end"], "--json-stream -t abc: the events")
    check_eq(lines[1]["data"]["error"], lines[0]["data"], "--json-stream -t abc: the end's error")
    check("abc" in lines[0]["data"], "--json-stream -t abc: the error names the value", lines[0])
    for args in (["--json", "--json-stream"], ["--json-stream", "-J", "-t", "1"]):
        r = run_cmd([netab, "run"] + args, timeout=20, expect_rc=2)
        check_eq(r.stdout, "", f"`netab run {' '.join(args)}`: stdout")
        check("--json and --json-stream cannot be combined" in r.stderr,
              f"`netab run {' '.join(args)}`: the message", r.stderr)
    for args, want in ((["--format", "ktap", "--json"], "--json and --format ktap"),
                       (["--format", "tap"], "--format: 'tap' is not text, json or ktap")):
        r = run_cmd([netab, "compare"] + args + ["--variant", "a", "--variant", "b"], timeout=20,
                    expect_rc=2)
        check(want in r.stderr, f"`netab compare {' '.join(args)}`: the message", r.stderr)
    r = run_cmd([netab, "report", "1", "--format", "ktap", "--sections", "verdict"], timeout=20,
                expect_rc=2)
    check("KTAP has only the tests" in r.stderr, "report --format ktap --sections", r.stderr)


def body(netab):
    for args, words in RUN_USAGE_ERRORS:
        log("usage error: netab run " + " ".join(args))
        check_usage_error(netab, args, words)
    log("--json-stream and --format ktap usage errors")
    json_stream_errors(netab)

    # A port where nothing listens: a bound, non-listening socket refuses
    # connections and keeps the port from being taken while we test.
    log("refused connection")
    blocker = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        blocker.bind(("127.0.0.1", 0))
        port = blocker.getsockname()[1]
        r = run_cmd([netab, "run", "-c", "127.0.0.1", "-p", str(port), "-t", "1", "--json"], timeout=20,
                    expect_rc=1)
        check_eq(r.returncode, 1, "refused connection: exit status")
        doc = parse_one_json(r.stdout, r)
        err = doc.get("error")
        check(isinstance(err, str) and err, "refused connection: error is not set", doc)
        check(str(port) in err, "refused connection: error does not name the port", err)
        check(doc.get("end") is None, "refused connection: end is not null", doc.get("end"))
        # Without --json the reason is on stderr.
        r = run_cmd([netab, "run", "-c", "127.0.0.1", "-p", str(port), "-t", "1"], timeout=20, expect_rc=1)
        check_eq(r.returncode, 1, "refused connection (text): exit status")
        check("refused" in r.stderr.lower(), "refused connection (text): stderr", r.stderr)
    finally:
        blocker.close()

    log("help and version")
    for argv in (["--version"], ["--help"], ["run", "--help"], ["server", "--help"], ["run", "-h"],
                 ["server", "-h"]):
        r = run_cmd([netab] + argv, timeout=20)
        check_eq(r.returncode, 0, f"`netab {' '.join(argv)}` exit status")
        check(r.stdout.strip(), f"`netab {' '.join(argv)}` printed nothing")
    r = run_cmd([netab, "--version"])
    check("netab" in r.stdout, "--version does not name netab", r.stdout)
    r = run_cmd([netab, "run", "--help"])
    for opt in ("--client", "--time", "--bytes", "--parallel", "--reverse", "--bidir", "--json"):
        check(opt in r.stdout, f"`netab run --help` does not mention {opt}")
    r = run_cmd([netab, "server", "--help"])
    for opt in ("--port", "--max-clients", "--max-duration", "--max-streams", "--idle-timeout",
                "--port-file"):
        check(opt in r.stdout, f"`netab server --help` does not mention {opt}")

    log("server usage errors")
    for args, words in [
        (["-p", "abc"], ["-p", "abc"]),
        (["-p", "70000"], ["-p", "70000"]),
        (["--max-clients", "0"], ["--max-clients", "0"]),
        (["--max-streams", "many"], ["--max-streams", "many"]),
        (["--max-duration", "-5"], ["--max-duration", "-5"]),
        (["--idle-timeout", "1"], ["--idle-timeout", "1"]),
        (["--no-such-option"], ["--no-such-option"]),
        (["stray"], ["stray"]),
    ]:
        r = run_cmd([netab, "server"] + args, timeout=20, expect_rc=2)
        what = " ".join(args)
        check_eq(r.returncode, 2, f"`netab server {what}` exit status")
        for w in words:
            check(w in r.stderr, f"`netab server {what}`: stderr does not mention {w!r}", r.stderr)

    log("unknown subcommand")
    r = run_cmd([netab, "nosuchcommand"], timeout=20, expect_rc=2)
    check_eq(r.returncode, 2, "`netab nosuchcommand` exit status")
    check("nosuchcommand" in r.stderr, "unknown subcommand not named", r.stderr)
    check("did you mean" not in r.stderr, "a hint for a word close to no command", r.stderr)
    did_you_mean(netab)
    no_abbreviations(netab)
    exit_statuses(netab)


def exit_statuses(netab):
    """The one table (src/cli/cli.h, netab(1) EXIT STATUS): 1 is an answer ("failed",
    "regressed"), 2 is "not done". The same error gives the same status in every command:
    a missing or unreadable store, a file that cannot be read, an id that does not exist."""
    tmp = tempfile.mkdtemp(dir=WORK_DIR)
    missing = os.path.join(tmp, "missing.db")
    notdb = os.path.join(tmp, "notes.txt")
    with open(notdb, "w") as f:
        f.write("not a database, but long enough to have a header of some sort\n" * 20)
    nofile = os.path.join(tmp, "nosuch.json")
    for db, what in ((missing, "no results database"), (notdb, "not a SQLite database")):
        for argv in (["runs", "list"], ["runs", "show", "1"], ["runs", "export", "--format", "csv"],
                     ["runs", "experiments"], ["runs", "status", "1"], ["report", "1"],
                     ["experiment", "list"], ["experiment", "status", "1"],
                     ["experiment", "resume", "1"]):
            r = run_cmd([netab] + argv + ["--db", db], timeout=20, expect_rc=2)
            check(what in r.stderr, f"`netab {' '.join(argv)}` on a store that is {what}",
                  r.stderr)
    # A file that cannot be read: 2 in both importers.
    good = os.path.join(tmp, "good.db")
    for argv in (["import", "--variant", "x", nofile], ["runs", "import", nofile]):
        r = run_cmd([netab] + argv + ["--db", good], timeout=20, expect_rc=2)
        check(nofile in r.stderr, f"`netab {' '.join(argv)}` names the unreadable file", r.stderr)
    # An id the store does not have: 2 everywhere.
    run_cmd([netab, "runs", "import", "-", "--db", good], timeout=20, expect_rc=2)
    r = run_cmd([netab, "run", "-t", "0.2", "-i", "0", "--db", good], timeout=20)
    for argv in (["runs", "show", "99"], ["runs", "status", "99"], ["report", "99"],
                 ["experiment", "status", "99"], ["experiment", "resume", "99"]):
        r = run_cmd([netab] + argv + ["--db", good], timeout=20, expect_rc=2)
        check("99" in r.stderr, f"`netab {' '.join(argv)}` names the missing id", r.stderr)
    # An output that cannot be written: 2, also when the test itself succeeded.
    r = run_cmd([netab, "run", "-t", "0.2", "-i", "0", "--db", os.path.join(notdb, "x.db")],
                timeout=20, expect_rc=2)
    check("not stored" in r.stderr, "`netab run --db` into a store that cannot be made", r.stderr)
    r = run_cmd([netab, "runs", "export", "--format", "csv", "-o", os.path.join(notdb, "x.csv"),
                 "--db", good], timeout=20, expect_rc=2)
    check("cannot write" in r.stderr, "`netab runs export -o` into a directory that is not there",
          r.stderr)


def did_you_mean(netab):
    """Typos of commands, verbs and options name what was meant; exit 2, no usage dump."""
    for argv, meant in [(["comapre"], "'compare'"), (["rnu"], "'run'"), (["sever"], "'server'"),
                        (["ru"], "'run' or 'runs'"), (["runs", "lsit"], "'list'"),
                        (["experiment", "satus"], "'status'"),
                        (["server", "--max-clinets", "3"], "'--max-clients'"),
                        (["stats", "--jsno"], "'--json'"),
                        (["compare", "--paralel", "2"], None),
                        (["env", "--idenity"], "'--identity'"),
                        (["runs", "list", "--experiement", "1"], "'--experiment'")]:
        what = " ".join(argv)
        r = run_cmd([netab] + argv, timeout=20, expect_rc=2)
        check(argv[-1] in r.stderr or argv[-2] in r.stderr, f"`netab {what}` names the typo",
              r.stderr)
        if meant:
            check(f"did you mean {meant}?" in r.stderr, f"`netab {what}` suggests {meant}",
                  r.stderr)
        check(len(r.stderr.splitlines()) <= 3, f"`netab {what}`: a short message, not the usage",
              r.stderr)


def no_abbreviations(netab):
    """No command takes an option by a prefix of its name: every long option its --help lists,
    less its last letter (unless that is itself an option), is refused as unknown."""
    total = 0
    for cmd in (["run"], ["server"], ["stats"], ["compare"], ["report"], ["import"], ["layout"],
                ["env"], ["runs", "list"], ["experiment", "run"], ["history"], ["bisect", "run"]):
        help_text = run_cmd([netab] + cmd + ["--help"], timeout=20).stdout
        opts = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+[a-z0-9]", help_text))
        check(len(opts) >= 2, f"`netab {' '.join(cmd)} --help` lists long options", help_text)
        for opt in sorted(opts):
            short = opt[:-1]
            if short in opts or len(short) < 4:
                continue
            r = run_cmd([netab] + cmd + [short, "1"], timeout=20, expect_rc=2)
            check(f"unknown option '{short}'" in r.stderr,
                  f"`netab {' '.join(cmd)} {short} 1` is refused, not taken as {opt}", r.stderr)
            total += 1
    log(f"{total} abbreviated long options refused")


if __name__ == "__main__":
    run_main(body)
