#!/usr/bin/env python3
"""Bad values for the UDP, request/response and connection-rate options exit 2 with a message.

Each case must exit 2 (usage), print a message on stderr that names the
offending option or value, and print nothing else on stdout; with --json,
stdout holds one JSON document whose "error" carries the message. No case
may start a test (each is bounded by a 10 s timeout and -t 0.2).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402

# (arguments, words that must all appear in stderr, case-insensitive)
CASES = [
    (["--test", "udp_rr", "--req-size", "10"], ["24", "udp_rr"]),
    (["--test", "udp_rr", "--resp-size", "70000"], ["24", "udp_rr"]),
    (["-u", "--gso", "--test", "tcp_rr"], ["--gso", "udp_stream"]),
    (["--test", "tcp_rr", "--gro"], ["--gro", "udp_stream"]),
    (["--test", "tcp_crr", "--cport-range", "5-1"], ["--cport-range", "5-1"]),
    (["--test", "tcp_crr", "--cport-range", "1000"], ["--cport-range", "1000"]),
    (["--test", "tcp_crr", "--cport-range", "60000-70000"], ["--cport-range", "70000"]),
    (["--linger0"], ["--linger0", "tcp_crr"]),
    (["--test", "tcp_rr", "--linger0"], ["--linger0", "tcp_crr"]),
    (["-u", "-b", "abc"], ["-b", "abc"]),
    (["--test", "udp_rr", "--outstanding", "0"], ["--outstanding", "0"]),
    (["--test", "tcp_crr", "--outstanding", "2"], ["outstanding", "tcp_crr"]),
    (["--test", "udp_rr", "--rr-timeout", "0"], ["--rr-timeout", "0"]),
    (["--test", "nonsense"], ["nonsense"]),
]


def run(netab, args):
    return h.netab_cmd(netab, "run", "-t", "0.2", "-i", "0", *args, expect_rc=2, timeout=10)


def test(netab, c):
    for args, words in CASES:
        label = " ".join(args)
        r = run(netab, args)
        err = r.stderr.strip()
        c.check(r.returncode == 2, f"'{label}' exits 2", f"rc={r.returncode} stderr={err[:200]!r}")
        missing = [w for w in words if w.lower() not in err.lower()]
        c.check(err and not missing, f"'{label}' says why on stderr",
                f"{err.splitlines()[0] if err else '(empty)'}; missing {missing}" if missing
                else err.splitlines()[0])
        c.check(r.stdout.strip() == "", f"'{label}' prints nothing on stdout", r.stdout[:200])
        # With --json the failure is a JSON document too.
        rj = run(netab, ["--json"] + args)
        try:
            doc = json.loads(rj.stdout)
        except json.JSONDecodeError:
            doc = None
        c.check(rj.returncode == 2 and isinstance(doc, dict) and doc.get("error"),
                f"'--json {label}' exits 2 with a JSON error document",
                f"rc={rj.returncode} stdout={rj.stdout[:200]!r}")


if __name__ == "__main__":
    h.main(test)
