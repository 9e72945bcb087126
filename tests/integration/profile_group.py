#!/usr/bin/env python3
"""`netab run --profile=A,B`: several events in one perf event group (issue 33).

The first event samples; the others count in its group, and each sample
carries the group's counts, whose growth since that event instance's
previous sample is the sample's. A virtual machine without a PMU has no
cycles or instructions, so the group is exercised with software events
every kernel has: `--profile=cpu-clock,task-clock` on a 2 s loopback test
(test scope, as root: per-task events and the CPU-wide ones on the test's
CPUs, all grouped).

- The profile has the group: events cpu-clock and task-clock, no note.
- Each event's samples' sum ("sampled") is 97%..100% of the kernel's
  counter read at the end ("counted"): all that is missing is what each
  event instance counted after its last sample.
- The kernel's cpu-clock count against an independent one: the CPU-wide
  events count every nanosecond of the window on each CPU, the per-task
  ones the process's CPU time, so counted cpu-clock is
  (seconds x CPUs + the process's CPU seconds) x 1e9, the latter from
  expected_samples / frequency (CLOCK_PROCESS_CPUTIME_ID over the window),
  within 5% (the window's edges and threads' exits are a few ms apart).
- Per function: counts and shares of both events; cpu-clock and
  task-clock measure the same time, so each of the top 10 functions'
  two shares are within 2 points; the cpu-clock per sample (the profile's
  samples' attributed count / their number) is 1e9 / 999 ns within 10%.
- The text output has the per-function block with a column per event.
- `netab compare` of two variants (`-l 128K` against `-l 1K`, 2 runs each,
  1 s) with the group: the differential profile's JSON names the events
  and gives each change both events' shares per side (from the runs' top
  30 functions), cpu-clock's and task-clock's within 2 points where both
  are known, IPC null (no cycles); the text prints them under the table.
"""
import os
import re
import shutil
import tempfile

from netab_helpers import TestSkip, check, log, netab_run, parse_one_json, run_cmd, run_main


def body(netab):
    if os.geteuid() != 0:
        raise TestSkip("needs root to sample the test's CPUs (CI runs as root)")
    r = netab_run(netab, ["-t", "2", "--profile=cpu-clock,task-clock", "-i", "0"], timeout=60)
    p = parse_one_json(r.stdout)["end"]["profile"]["local"]
    check(p.get("why") is None, "there is a profile", p.get("why"))
    g = p.get("group")
    check(g and g["events"] == ["cpu-clock", "task-clock"], "the profile has the group", g)
    check(p["note"] is None, "nothing is left out", p["note"])
    for k, ev in enumerate(g["events"]):
        ratio = g["sampled"][k] / g["counted"][k] if g["counted"][k] else 0
        log(f"{ev}: counted {g['counted'][k]}, sampled {g['sampled'][k]} ({ratio:.4f}), "
            f"attributed {g['attributed'][k]}")
        check(0.97 <= ratio <= 1.0, f"{ev}: the samples' sum is 97%..100% of the kernel's count",
              ratio)
    cpu_s = p["expected_samples"] / p["frequency"]
    want = (p["seconds"] * len(p["cpus"]) + cpu_s) * 1e9
    log(f"cpu-clock counted {g['counted'][0]}, window x CPUs + process CPU time {want:.0f} "
        f"({g['counted'][0] / want:.4f})")
    check(abs(g["counted"][0] / want - 1) <= 0.05,
          "cpu-clock's count is the window's CPU time within 5%", g["counted"][0], want)
    per = g["attributed"][0] / p["samples"]
    log(f"cpu-clock per sample {per:.0f} ns")
    check(abs(per / (1e9 / p["frequency"]) - 1) <= 0.10,
          "a sample's cpu-clock is 1/frequency within 10%", per)
    for f in p["functions"][:10]:
        a, b = f["shares_pct"]
        log(f"  {f['symbol']:32.32s} {f['module']:10.10s} samples {f['samples']:5d} "
            f"cpu-clock {a:5.1f}% task-clock {b:5.1f}%")
        check(len(f["counts"]) == 2 and abs(a - b) <= 2.0,
              f"{f['symbol']}: the two time events' shares within 2 points", a, b)
        check(f["ipc"] is None and f["l1i_mpki"] is None,
              "no IPC or icache misses without cycles and instructions", f)
    out = run_cmd([netab, "run", "-t", "0.5", "--profile=cpu-clock,task-clock", "-i", "0"],
                  timeout=60).stdout
    check(re.search(r"^  function +cpu-cl task-c   IPC  L1i/kI$", out, re.M),
          "the text output has the per-function block with a column per event", out[-900:])

    differential(netab)


def differential(netab):
    """netab compare of two variants with a group: each change has each event's share, base and
    new, in JSON; the text prints them under the table, base>new."""
    tmp = tempfile.mkdtemp(prefix="netab-profile-group-")
    try:
        cmp = ["compare", "--db", os.path.join(tmp, "c.db"), "--runs", "2", "--warmup", "0",
               "--seed", "5", "--variant", "big", "--opts", "-l 128K", "--variant", "small",
               "--opts", "-l 1K", "--", "-t", "1", "--profile=cpu-clock,task-clock", "-i", "0"]
        text = run_cmd([netab] + cmp, timeout=180, expect_rc=(0, 1)).stdout
        check("  per event, base>new (% of each event's count; from the runs' top 30):" in text
              and re.search(r"^  function +task-clock +IPC +L1i/kI$", text, re.M),
              "compare's text has the group's figures under the differential profile",
              text[-2000:])
        doc = parse_one_json(run_cmd([netab] + cmp[:1] + ["--json"] + cmp[1:], timeout=180,
                                     expect_rc=(0, 1)).stdout)
        pd = doc["profile_diffs"][0]
        check(pd.get("events") == ["cpu-clock", "task-clock"], "the changes name the group",
              pd.get("events"))
        both = 0
        for r in pd["functions"]:
            g = r["group"]
            log(f"  {r['symbol']:28.28s} base {r['base_pct']:5.1f}% new {r['other_pct']:5.1f}% "
                f"task-clock {g['base']['shares_pct'][1]} > {g['other']['shares_pct'][1]}")
            check(len(g["base"]["shares_pct"]) == 2 and g["base"]["ipc"] is None,
                  "each change has both events' shares and no IPC without cycles", r)
            s = [g[side]["shares_pct"] for side in ("base", "other")]
            for a, b in s:
                if a is not None and b is not None:
                    both += 1
                    check(abs(a - b) <= 2.0, "cpu-clock and task-clock shares agree", r)
        check(both >= 1, "some change has both events' shares on a side", pd["functions"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
