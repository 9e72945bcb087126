#!/usr/bin/env python3
"""netab run --json-stream (issue 32): one JSON object per line as the test goes.

* tcp_stream -t 3 -i 0.5 on loopback: every line is a JSON object
  {"event", "data"}; start first, end last, at least 6 intervals, the first
  interval on stdout while the test still runs (flushed per line); the end
  event's document holds exactly the intervals streamed, and has the
  structure of a --json run's document (the same keys, recursively).
* -n: the end document's receiver bytes are the byte count, as --json's are.
* tcp_rr and udp_stream stream their intervals too (rr with its rate).
* A run that fails (connection refused): start, error, end with the error
  in the document; exit status 1 as without the stream.
* The congestion state per interval (TCP_INFO at each boundary) of the
  tcp_stream -t 3 -i 0.5 run: every interval has cwnd > 0 and srtt > 0 for
  its stream and in its sum, and the intervals' retransmits add up to the
  end's (each sender's total_retrans as it stopped: the kernel's count).
"""
import json
import socket

from netab_helpers import check, check_eq, log, netab_cmd, run_main, start

EVENTS = ("start", "interval", "error", "end")


def events(text, what):
    """stdout as its list of (event, data), every line checked to be one JSON object."""
    out = []
    lines = text.splitlines()
    check(lines, f"{what}: printed nothing")
    for n, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            check(False, f"{what}: line {n} is not JSON ({e})", line[:200])
        check(isinstance(obj, dict) and set(obj) == {"event", "data"},
              f"{what}: line {n} is not {{event, data}}", line[:200])
        check(obj["event"] in EVENTS, f"{what}: line {n}: unknown event", obj["event"])
        out.append((obj["event"], obj["data"]))
    check_eq(out[0][0], "start", f"{what}: the first event")
    check_eq(out[-1][0], "end", f"{what}: the last event")
    check_eq([e for e, _ in out].count("end"), 1, f"{what}: end events")
    return out


def key_paths(v, prefix=""):
    """Every dotted path of an object key in v (lists: their first element), but the kernel's
    counters (end.kernel: those that moved, which differs from run to run)."""
    paths = set()
    if isinstance(v, dict):
        for k, x in v.items():
            if prefix + k == "end.kernel":
                continue
            paths.add(prefix + k)
            paths |= key_paths(x, prefix + k + ".")
    elif isinstance(v, list) and v:
        paths |= key_paths(v[0], prefix + "[].")
    return paths


def check_tcp_state(intervals, doc, what):
    """intervals[].tcp against the kernel's own end figures (docs/json.md, intervals[].tcp)."""
    for n, iv in enumerate(intervals):
        tcp = iv.get("tcp")
        check(tcp and tcp["sum"]["connections"] == 1 and tcp["sum"]["senders"],
              f"{what}: interval {n}: tcp.sum of the one sending connection", iv)
        check_eq(len(tcp["streams"]), 1, f"{what}: interval {n}: tcp.streams")
        for o in (tcp["sum"], tcp["streams"][0]):
            check(o["cwnd"] > 0 and o["cwnd_bytes"] > 0 and o["srtt_us"] > 0,
                  f"{what}: interval {n}: cwnd and srtt", o)
    got = sum(iv["tcp"]["sum"]["retransmits"] for iv in intervals)
    want = sum(s["sender"]["tcp_info"]["retransmits"] for s in doc["streams"])
    check_eq(got, want, f"{what}: the intervals' retransmits add up to the end's")
    check_eq(want, doc["end"]["sender"]["retransmits"], f"{what}: end.sender.retransmits")
    return got


def stream_tcp(netab):
    what = "--json-stream -t 3 -i 0.5"
    p = start([netab, "run", "--json-stream", "-t", "3", "-i", "0.5"])
    check(p.wait_output('"event":"interval"', timeout=30), f"{what}: no interval event")
    check(p.alive(), f"{what}: the first interval reached stdout only after the run ended")
    evs = events(p.finish(timeout=60).stdout, what)
    intervals = [d for e, d in evs if e == "interval"]
    check(len(intervals) >= 6, f"{what}: at least 6 interval events", len(intervals))
    start_data, doc = evs[0][1], evs[-1][1]
    check_eq(start_data["test"], doc["test"], f"{what}: the start event's test is the document's")
    check_eq(doc["intervals"], intervals, f"{what}: the document's intervals are those streamed")
    check(doc["error"] is None, f"{what}: the run failed", doc["error"])
    retr = check_tcp_state(intervals, doc, what)
    ref = netab_cmd(netab, "run", "--json", "-t", "1", "-i", "0.5").doc
    a, b = key_paths(doc), key_paths(ref)
    check(a == b, f"{what}: the end document's keys are a --json document's",
          f"only streamed: {sorted(a - b)}", f"only --json: {sorted(b - a)}")
    log(f"ok: {what}: {len(evs)} lines, {len(intervals)} intervals, the end holds --json's document; "
        f"cwnd and srtt in each, {retr} retransmits as the end counts")


def stream_bytes(netab):
    n = 50 * 1024 * 1024
    evs = events(netab_cmd(netab, "run", "--json-stream", "-n", "50M", "-i", "0.1").stdout, "-n 50M")
    doc = evs[-1][1]
    ref = netab_cmd(netab, "run", "--json", "-n", "50M").doc
    check_eq(doc["end"]["receiver"]["bytes"], n, "--json-stream -n 50M: receiver bytes")
    check_eq(doc["end"]["receiver"]["bytes"], ref["end"]["receiver"]["bytes"],
             "-n 50M: --json-stream's receiver bytes are --json's")
    log("ok: -n 50M: the end document has the bytes --json has")


def stream_kinds(netab):
    for args in (["--test", "tcp_rr"], ["-u", "-b", "100M"]):
        what = " ".join(args)
        evs = events(netab_cmd(netab, "run", "--json-stream", "-t", "1", "-i", "0.25", *args).stdout,
                     what)
        intervals = [d for e, d in evs if e == "interval"]
        check(len(intervals) >= 3, f"{what}: interval events", len(intervals))
        check_eq(evs[-1][1]["intervals"], intervals, f"{what}: the document's intervals")
        if "tcp_rr" in args:
            check(all(d["transactions_per_second"] > 0 for d in intervals),
                  f"{what}: every interval has its transaction rate", intervals)
        log(f"ok: {what}: {len(intervals)} intervals streamed")


def stream_failure(netab):
    blocker = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        blocker.bind(("127.0.0.1", 0))
        port = str(blocker.getsockname()[1])
        r = netab_cmd(netab, "run", "--json-stream", "-c", "127.0.0.1", "-p", port, "-t", "1",
                      expect_rc=1)
    finally:
        blocker.close()
    evs = events(r.stdout, "refused connection")
    check_eq([e for e, _ in evs], ["start", "error", "end"], "refused connection: the events")
    check_eq(evs[1][1], evs[2][1]["error"], "refused connection: the error event is the document's")
    check(port in evs[1][1], "refused connection: the error names the port", evs[1][1])
    log("ok: a failed run streams start, error, end and exits 1")


def body(netab):
    stream_tcp(netab)
    stream_bytes(netab)
    stream_kinds(netab)
    stream_failure(netab)


run_main(body)
