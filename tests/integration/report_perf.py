#!/usr/bin/env python3
"""--perf's hardware-counter figures as report metrics (issue 33).

A two-variant experiment with `perf: true` on loopback (2 runs each,
0.5 s). Where the machine has a PMU, the report lists cycles/KiB, IPC and
L1-icache misses/KiB of each end among its metrics (JSON `metrics`).
Where it has none (this VM), those figures have no value, and the report
says why in words in every format: one warning naming the figures and
the reason the runs' documents give (`no PMU in this virtual machine`),
in the short text (the reason not cut off), Markdown, HTML and JSON;
never a 0, `nan` or an empty column for them. A run without --perf says
nothing about them (the golden replay of the report tests holds that).
"""
import os
import shutil
import tempfile

from netab_helpers import check, log, netab_cmd, parse_one_json, run_main

EXPERIMENT = """name: perfmetrics
runs: 2
warmup: 0
seed: 3
cooldown: 0
test:
  time: 0.5
  perf: true
variants:
  - name: big
    opts: "-l 128K"
  - name: small
    opts: "-l 1K"
"""

PERF = ("cycles_local", "cycles_remote", "ipc_local", "ipc_remote", "l1i_misses_local",
        "l1i_misses_remote")


def body(netab):
    tmp = tempfile.mkdtemp(prefix="netab-report-perf-")
    try:
        exp, db = os.path.join(tmp, "e.yaml"), os.path.join(tmp, "r.db")
        with open(exp, "w") as f:
            f.write(EXPERIMENT)
        netab_cmd(netab, "experiment", "run", exp, "--db", db, timeout=120)
        doc = parse_one_json(netab_cmd(netab, "report", "--db", db, "--format", "json", "1",
                                       expect_rc=(0, 1)).stdout)
        names = [m["name"] for m in doc["metrics"]]
        warn = [w for w in doc["env_warnings"] if "--perf's" in w]
        log(f"metrics {names}; warnings {warn}")
        if any(n in names for n in PERF):
            check(all(n in names for n in ("cycles_local", "ipc_local")),
                  "with a PMU, cycles/KiB and IPC are report metrics", names)
            return
        check(len(warn) == 1 and warn[0].startswith("both ends: ") and
              "cycles/KiB, IPC and L1i misses/KiB are not shown" in warn[0],
              "without a PMU one warning names the figures", warn)
        why = warn[0][len("both ends: "):warn[0].index(", so ")]
        check("PMU" in why, "the warning gives the documents' reason", why)
        text = netab_cmd(netab, "report", "--db", db, "1", expect_rc=(0, 1)).stdout
        flat = " ".join(text.split())
        check(warn[0] in flat, "the short text has the whole warning, reason included", text)
        md = netab_cmd(netab, "report", "--db", db, "--format", "markdown", "1",
                       expect_rc=(0, 1)).stdout
        check(warn[0] in md, "Markdown has the warning", md[-2000:])
        html = netab_cmd(netab, "report", "--db", db, "--format", "html", "1",
                         expect_rc=(0, 1)).stdout
        check(warn[0].replace("'", "&#39;") in html or warn[0] in html, "HTML has the warning")
        full = netab_cmd(netab, "report", "--db", db, "--full", "1", expect_rc=(0, 1)).stdout
        for out in (text, full, md, html):
            words = out.lower().replace("|", " ").replace("<", " ").replace(">", " ").split()
            check("nan" not in words and not any(
                label in out for label in ("cyc/KiB", "loc IPC", "rem IPC", "miss/KiB")),
                "no column, 0 or nan for the figures", out[-1500:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
