#!/usr/bin/env python3
"""netab import and the report over several experiments, with real tools.

Real iperf3 -J and iperf2 runs on loopback are imported as variants; a small
netab experiment goes into the same store; `netab report --experiments`
compares them, and the medians it shows equal the ones this test reads
itself from the iperf3 JSON, the iperf2 text and netab's stored documents.
`--metric perf.local.task_clock` and a kernel counter read from the stored
documents are checked against `netab runs export`. Bad inputs import
nothing and exit 2 naming the file; resume of an import experiment has
nothing to run.

Plain numbers (issue 29): the AIM9 thread's -EINTR entries become failed
runs with that error, counted as failed by the report; a sorted set
imported with its order unknown (the default for plain numbers) gives no
drift warning but the one sentence that drift cannot be judged, and the
same values imported with --order run do get the drift warning.
"""
import csv
import io
import json
import os
import re
import shutil
import signal
import socket
import statistics
import tempfile
import time

from netab_helpers import TestFailure, check, check_eq, netab_cmd, run_cmd, run_main, start

RUNS = 3


def need(tool):
    if not shutil.which(tool):
        raise TestFailure(f"{tool} is not installed (scripts/deps installs it)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def close(a, b, what, rel=1e-9):
    check(abs(a - b) <= rel * max(abs(a), abs(b)), what, f"{a!r} != {b!r}")


def iperf3_runs(path):
    """RUNS real iperf3 -J runs, appended to one file as `iperf3 -J >> f` leaves them."""
    need("iperf3")
    port = str(free_port())
    server = start(["iperf3", "-s", "-p", port])
    values = []
    try:
        with open(path, "w") as out:
            for _ in range(RUNS):
                for _attempt in range(50):  # until the server listens
                    r = run_cmd(["iperf3", "-c", "127.0.0.1", "-p", port, "-t", "1", "-J"],
                                expect_rc=(0, 1))
                    # iperf3 3.12 exits 0 with an "error" document when the connection is refused.
                    doc = json.loads(r.stdout)
                    if r.returncode == 0 and not doc.get("error"):
                        break
                    time.sleep(0.1)
                check(r.returncode == 0 and not doc.get("error"), "iperf3 client ran",
                      r.stdout[-300:])
                values.append(doc["end"]["sum_received"]["bits_per_second"] / 1e6)
                out.write(r.stdout)
    finally:
        server.send(signal.SIGTERM)
        server.finish(expect_rc=(0, 1, -signal.SIGTERM))
    return values


def iperf2_runs(path):
    """RUNS real iperf2 client runs, their text concatenated into one log."""
    need("iperf")
    port = str(free_port())
    server = start(["iperf", "-s", "-p", port])
    values = []
    try:
        deadline = time.monotonic() + 10
        while "Server listening" not in server.stdout_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        check("Server listening" in server.stdout_text(), "iperf2 server listens")
        text = ""
        for _ in range(RUNS):
            r = run_cmd(["iperf", "-c", "127.0.0.1", "-p", port, "-t", "1"])
            final = re.findall(r"\]\s+0\.0+-\d+\.\d+ sec\s+\S+ \S+\s+(\S+) (\S)bits/sec", r.stdout)
            check_eq(len(final), 1, "one final line per iperf2 run: " + r.stdout[-300:])
            scale = {"K": 1e-3, "M": 1, "G": 1e3}[final[0][1]]
            values.append(float(final[0][0]) * scale)
            text += r.stdout
        with open(path, "w") as out:
            out.write(text)
    finally:
        server.send(signal.SIGTERM)
        server.finish(expect_rc=(0, 1, -signal.SIGTERM))
    return values


def report_json(netab, db, *args, expect_rc=(0, 1)):
    r = netab_cmd(netab, "report", "--db", db, "--format", "json", *args, expect_rc=expect_rc,
                  timeout=60)
    return json.loads(r.stdout)


def entry(doc, variant, metric):
    for e in doc["results"]:
        if e["variant"] == variant and e["metric"] == metric and e["cell"] == "default":
            return e
    return None


def check_bad_inputs(netab, db, tmp, good):
    """Every bad input: exit 2, the file named, nothing imported (also with a good file)."""
    before = len(json.loads(netab_cmd(netab, "runs", "list", "--db", db, "--json").stdout))
    cases = {
        "notjson.json": ("{ this is not json", "invalid JSON"),
        "netab.json": ('{"netab": "0.1.0", "end": {}}', "not an iperf3"),
        "other.json": ('{"hello": 1}', "not an iperf3"),
        "nofinal.txt": ("Client connecting to 127.0.0.1, TCP port 5001\n"
                        "[  1] local 127.0.0.1 port 4 connected with 127.0.0.1 port 5001\n",
                        "no iperf2 run"),
        "empty.txt": ("", "empty"),
        "binary.txt": ("a\0b", "binary"),
    }
    for name, (text, why) in cases.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        r = netab_cmd(netab, "import", "--db", db, "--variant", "bad", good, path, expect_rc=2)
        check(path in r.stderr and why in r.stderr and "nothing imported" in r.stderr,
              f"bad input {name} is named with its reason", r.stderr.strip())
        # The good file before it was read: the bad one is the reason, not memory.
        check("out of memory" not in r.stderr, f"bad input {name} is not called out of memory",
              r.stderr.strip())
    missing = os.path.join(tmp, "missing.json")
    r = netab_cmd(netab, "import", "--db", db, "--variant", "bad", missing, expect_rc=2)
    check(missing in r.stderr, "a missing file is named", r.stderr.strip())
    r = netab_cmd(netab, "import", "--db", db, "--variant", "bad", "--experiment", "99", good,
                  expect_rc=2)
    check("no experiment 99" in r.stderr, "an unknown experiment id is named", r.stderr.strip())
    after = len(json.loads(netab_cmd(netab, "runs", "list", "--db", db, "--json").stdout))
    check_eq(after, before, "no bad import left a run behind")


def hostile_copy(src, dst, kernel):
    """src's first iperf3 document, RUNS times, with kernel as the release uname -a shows."""
    with open(src) as f:
        doc = json.JSONDecoder().raw_decode(f.read().lstrip())[0]
    doc["start"]["system_info"] = f"Linux evilhost {kernel} #1 SMP x86_64"
    with open(dst, "w") as f:
        for _ in range(RUNS):
            f.write(json.dumps(doc) + "\n")


def csv_formulas(text):
    """The CSV fields a spreadsheet would evaluate: = + @ tab CR first, or - and no number."""
    bad = []
    for row in csv.reader(io.StringIO(text)):
        for field in row:
            if field[:1] in ("=", "+", "@", "\t", "\r"):
                bad.append(field)
            elif field[:1] == "-":
                try:
                    [float(x) for x in field.split(";")]
                except ValueError:
                    bad.append(field)
    return bad


def check_hostile_names(netab, db, tmp, good, exp):
    """Names from outside (issue 34): kernel words of imported iperf3 files holding terminal
    escapes and a spreadsheet formula reach no terminal raw and no CSV as a formula; names on
    import's command line follow the experiment file's rules."""
    esc_kernel = "6.1.0\x1b]0;pwned\x07\x1b[2J"
    formula = '=HYPERLINK("http://evil/","x")'
    ids = []
    for i, kernel in enumerate((esc_kernel, formula)):
        path = os.path.join(tmp, f"hostile{i}.json")
        hostile_copy(good, path, kernel)
        ids.append(int(netab_cmd(netab, "import", "--db", db, "--variant", f"hostile{i}",
                                 path).stdout))
    asked = ["--experiments", f"{exp},{ids[0]},{ids[1]}", "--label", "kernel"]
    doc = report_json(netab, db, *asked)
    check(doc["variants"][1:] == [esc_kernel, formula],
          "--label kernel: the imported releases, kept as they are in the data", doc["variants"])
    for fmt in ("text", "markdown", "csv", "json", "html"):
        full = ["--full"] if fmt in ("text", "markdown") else []
        r = netab_cmd(netab, "report", "--db", db, *asked, "--format", fmt, *full,
                      expect_rc=(0, 1), timeout=60)
        # CSV is data: its fields keep their bytes (a formula is what it guards against).
        out = r.stderr + (r.stdout if fmt != "csv" else "")
        check("\x1b" not in out and "\x07" not in out, f"no raw ESC or BEL in the {fmt} report",
              repr(out[:300]))
        if fmt in ("text", "markdown", "html"):
            check("6.1.0\\x1b]0;pwned\\x07\\x1b[2J" in r.stdout,
                  f"the {fmt} report shows the release with \\xNN", r.stdout[:400])
        if fmt == "csv":
            check_eq(csv_formulas(r.stdout), [], "no CSV field a spreadsheet would evaluate")
            rows = list(csv.reader(io.StringIO(r.stdout)))
            check(any("'" + formula in row for row in rows),
                  "the formula-like release is kept as text ('=...)", r.stdout[:400])
    # Names given on the command line: the experiment file's rules, a clear error, exit 2.
    before = len(json.loads(netab_cmd(netab, "runs", "list", "--db", db, "--json").stdout))
    for opt, value, shown in (("--variant", "x\x1b[2J", "x\\x1b[2J"),
                              ("--variant", formula, formula), ("--experiment", "a b", "a b"),
                              ("--cell", "+cmd|/c calc", "+cmd|/c calc")):
        args = ["--variant", "ok"] if opt != "--variant" else []
        r = netab_cmd(netab, "import", "--db", db, *args, opt, value, good, expect_rc=2)
        check("\x1b" not in r.stderr and f"{opt} '{shown}'" in r.stderr
              and "may only use letters" in r.stderr,
              f"import {opt} {value!r} is refused with the rule, the name shown printable",
              repr(r.stderr))
    after = len(json.loads(netab_cmd(netab, "runs", "list", "--db", db, "--json").stdout))
    check_eq(after, before, "a refused name imports nothing")


def write_experiment(tmp):
    path = os.path.join(tmp, "tiny.yaml")
    with open(path, "w") as f:
        f.write("name: tiny\nruns: %d\nwarmup: 0\nseed: 5\n"
                "test:\n  test: tcp_stream\n  time: 1\n"
                "variants:\n  - name: netab\n    opts: \"-l 128K\"\n" % RUNS)
    return path


def check_metrics(netab, db, exp):
    """--metric with paths into the stored documents, against runs export."""
    runs = json.loads(netab_cmd(netab, "runs", "export", "--db", db, "--experiment", str(exp),
                                "--format", "json").stdout)
    ok = [r for r in runs if r["status"] == "ok"]
    check_eq(len(ok), RUNS, "the netab experiment's runs are stored")
    task = [r["result"]["end"]["perf"]["local"]["task_clock"] for r in ok]
    cs = [r["result"]["end"]["perf"]["remote"]["context_switches"] for r in ok]
    rcvbuf = [r["result"]["end"]["kernel"]["local"].get("Udp", {}).get("RcvbufErrors", 0)
              for r in ok]
    doc = report_json(netab, db, str(exp), "--metric", "perf.local.task_clock", "--metric",
                      "end.perf.remote.context_switches", "--metric",
                      "kernel.local.Udp.RcvbufErrors", "--metric", "perf.local.no_such_counter")
    e = entry(doc, "netab", "perf.local.task_clock")
    check(e is not None and e["n"] == RUNS, "perf.local.task_clock has every run", str(e))
    close(e["median"], statistics.median(task), "task_clock median = the stored documents'")
    check_eq(sorted(e["values"]), sorted(task), "task_clock values = the stored documents'")
    e = entry(doc, "netab", "end.perf.remote.context_switches")
    close(e["median"], statistics.median(cs), "remote context switches median")
    e = entry(doc, "netab", "kernel.local.Udp.RcvbufErrors")
    check(e is not None and e["n"] == RUNS, "an unchanged kernel counter counts as 0", str(e))
    close(e["median"], statistics.median(rcvbuf), "RcvbufErrors median (0 when absent)")
    e = entry(doc, "netab", "perf.local.no_such_counter")
    check(e is None or e["n"] == 0, "a figure no run has is never made up", str(e))
    r = netab_cmd(netab, "report", "--db", db, str(exp), "--metric", "bogus", expect_rc=2)
    check("unknown metric 'bogus'" in r.stderr, "an unknown metric name is refused")


AIM9_ON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "stats", "data",
                       "aim9_on.txt")
UNKNOWN = "drift cannot be judged"


def check_plain_failures(netab, tmp):
    """-EINTR in plain numbers: failed runs in the store, with the word as their error."""
    db = os.path.join(tmp, "aim9.db")
    exp = netab_cmd(netab, "import", "--db", db, "--format", "plain", "--variant", "on",
                    AIM9_ON).stdout.strip()
    runs = json.loads(netab_cmd(netab, "runs", "export", "--db", db, "--experiment", exp,
                                "--format", "json").stdout)
    got = [(x["status"], x["error"], x["exit_code"], x["receiver_bps"]) for x in runs]
    with open(AIM9_ON) as f:
        words = [w.strip() for w in f if w.strip() and not w.startswith("#")]
    want = [("failed", w, 1, None) if w == "-EINTR" else ("ok", None, 0, float(w)) for w in words]
    check_eq(len(want), 15, "the fixture holds the thread's 15 runs")
    check_eq(got, want,
             "each number an ok run, each -EINTR a failed run with that error, in file order")
    check_eq(report_json(netab, db, exp)["runs"]["failed"], 2, "the report counts 2 failed runs")


def sorted_report(netab, tmp, order):
    """A flat baseline and a sorted (rising) set imported as plain numbers, with order."""
    db = os.path.join(tmp, f"order-{order or 'default'}.db")
    flat = os.path.join(tmp, "flat.txt")
    rising = os.path.join(tmp, "sorted.txt")
    with open(flat, "w") as f:
        f.write("".join(f"{1000 + (i * 7 % 5) * 0.5}\n" for i in range(15)))
    with open(rising, "w") as f:
        f.write("".join(f"{1000 + 3.5 * i + (i % 3) * 0.25}\n" for i in range(15)))
    opt = ["--order", order] if order else []
    exp = netab_cmd(netab, "import", "--db", db, "--format", "plain", *opt, "--variant", "base",
                    flat).stdout.strip()
    netab_cmd(netab, "import", "--db", db, "--format", "plain", *opt, "--variant", "sorted",
              "--experiment", exp, rising)
    text = netab_cmd(netab, "report", "--db", db, exp, expect_rc=(0, 1)).stdout
    return text, report_json(netab, db, exp)


def check_plain_order(netab, tmp):
    """Sorted imported values: no drift claim when the order is unknown, drift when it is run order."""
    for order in (None, "unknown"):
        text, doc = sorted_report(netab, tmp, order)
        kinds = [w["kind"] for w in doc["stats_warnings"]]
        said = [w for w in doc["warning_summary"] if UNKNOWN in w]
        check("drift" not in kinds and kinds.count("order_unknown") == 2 and len(said) == 1,
              f"order {order or 'by default'}: no drift warning in the JSON, one sentence instead",
              f"{kinds} {doc['warning_summary']}")
        flat_text = " ".join(text.split())
        check(flat_text.count(UNKNOWN) == 1 and "drift in" not in flat_text,
              f"order {order or 'by default'}: the text says once that drift cannot be judged",
              text)
    text, doc = sorted_report(netab, tmp, "run")
    kinds = [w["kind"] for w in doc["stats_warnings"]]
    check("drift" in kinds and "order_unknown" not in kinds
          and not any(UNKNOWN in w for w in doc["warning_summary"]),
          "--order run: the same values get the drift warning", str(doc["warning_summary"]))
    check("drift in 1 of 2 sets of runs" in " ".join(text.split()) and UNKNOWN not in text,
          "--order run: the text warns of drift", text)


def body(netab):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "store.db")
        j3 = os.path.join(tmp, "old-iperf3.json")
        t2 = os.path.join(tmp, "old-iperf2.txt")
        want3 = iperf3_runs(j3)
        want2 = iperf2_runs(t2)
        r = netab_cmd(netab, "experiment", "run", "--db", db, write_experiment(tmp), timeout=120)
        exp = int(r.stdout.strip())
        a = int(netab_cmd(netab, "import", "--db", db, "--variant", "iperf3", "--experiment",
                          "old3", j3).stdout)
        b = int(netab_cmd(netab, "import", "--db", db, "--variant", "iperf2", t2).stdout)
        check(len({exp, a, b}) == 3, "each import made an experiment of its own")
        runs = json.loads(netab_cmd(netab, "runs", "export", "--db", db, "--experiment",
                                    str(exp), "--format", "json").stdout)
        own = [x["receiver_bps"] / 1e6 for x in runs if x["status"] == "ok"]
        doc = report_json(netab, db, "--experiments", f"{exp},{a},{b}", "--metric", "throughput")
        check_eq(doc["variants"], ["netab", "iperf3", "iperf2"], "one group per experiment")
        for variant, want in (("netab", own), ("iperf3", want3), ("iperf2", want2)):
            e = entry(doc, variant, "throughput")
            check(e is not None and e["n"] == RUNS, f"{variant} has {RUNS} runs", str(e))
            close(e["median"], statistics.median(want), f"{variant} median = the tool's own")
        check(entry(doc, "iperf3", "throughput")["comparison"] is not None,
              "imported runs are compared with netab's")
        stored = json.loads(netab_cmd(netab, "runs", "show", "--db", db,
                                      str(max(x["id"] for x in runs) + 1), "--json").stdout)
        imp = stored["result"]["import"]
        check(imp["tool"] == "iperf3" and imp["file"] == os.path.realpath(j3)
              and imp["index"] == 0, "the source is recorded", str(imp))
        check("iperf3" in stored["result"] and stored["params"]["import"] == imp,
              "the original document is kept")
        kernel = os.uname().release
        doc = report_json(netab, db, "--experiments", f"{exp},{a},{b}", "--label", "kernel")
        check_eq(doc["variants"], [f"{kernel}#{exp}", f"{kernel}#{a}", "iperf2"],
                 "--label kernel: the release each run recorded (#ID where two share it)")
        doc = report_json(netab, db, "--experiments", f"{exp},{a}", "--label", "experiment")
        check_eq(doc["variants"], ["tiny", "old3"], "--label experiment")
        r = netab_cmd(netab, "report", "--db", db, "--experiments", f"{exp},77", expect_rc=2)
        check("no experiment 77" in r.stderr, "an unknown experiment is named", r.stderr)
        r = netab_cmd(netab, "report", "--db", db, "--label", "kernel", str(exp), expect_rc=2)
        check("--label goes with --experiments" in r.stderr, "--label without --experiments",
              r.stderr)
        r = netab_cmd(netab, "experiment", "resume", "--db", db, str(a))
        check("nothing to run" in r.stderr, "resume of an import has nothing to run", r.stderr)
        check_metrics(netab, db, exp)
        check_bad_inputs(netab, db, tmp, j3)
        check_hostile_names(netab, db, tmp, j3, exp)
        check_plain_failures(netab, tmp)
        check_plain_order(netab, tmp)


if __name__ == "__main__":
    run_main(body)
