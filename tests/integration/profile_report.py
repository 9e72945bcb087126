#!/usr/bin/env python3
"""A differential profile in the campaign report, against its own stored runs.

A two-variant experiment with `profile: true` on loopback, both ends pinned
to CPU 0 (`-l 128K` against `-l 1K`, 3 runs each, 1 s): `netab report`
shows, in its default text, a "Profile" section for small against big
within 72 columns, with at least one kernel function called grown or
shrunk; Markdown has the same table and HTML a bar figure (inline SVG) and a
table; each format shows every function's module beside it (text: the
function cut to 20 columns, the module to 9); the JSON `profile_diffs` rows are
recomputed here from the stored runs' own full profiles (`netab runs
export`, end.profile.local.full: every function's samples): each
function's mean share per variant (a run without a sample of it counts 0)
and, for functions in at least 2 runs a side, Welch's interval of the
difference (centred on it, with a half-width that is a t quantile times
Welch's standard error), the verdict following the interval. `netab
compare --opts ... -- --profile` shows the same section in text and JSON.
Both variants name a snapshot of /proc/kallsyms as their `layout:` (both
builds are the running kernel): every kernel function of the differential
profile is placed at the address kallsyms gives it, the same in both
("same"), and functions of other modules are not looked up in a kernel's
map.
"""
import json
import math
import os
import shutil
import statistics
import tempfile

from netab_helpers import TestSkip, check, log, netab_cmd, parse_one_json, run_main

EXPERIMENT = """name: profdiff
runs: 3
warmup: 0
seed: 3
cooldown: 0
test:
  time: 1
  profile: true
  affinity: "0,0"
variants:
  - name: big
    opts: "-l 128K"
    layout: %(big)s
  - name: small
    opts: "-l 1K"
    layout: %(small)s
"""


def kallsyms_functions(path):
    """{name: [addresses]} of the text symbols of a kallsyms snapshot."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in ("t", "T", "w", "W"):
                out.setdefault(parts[2], []).append(int(parts[0], 16))
    return out


def check_kernel_placement(diff, snap, text):
    """Both variants name the running kernel's kallsyms: every kernel function of the profile is
    placed where kallsyms says, the same in both, and no other function is looked up."""
    funcs = kallsyms_functions(snap)
    pl = diff["placement"]
    check(pl["line"] == 64 and pl["error"] is None, "placed in the kallsyms snapshots", pl)
    for row in diff["functions"]:
        p = row["placement"]
        if row["module"] != "[kernel]":
            check(not p["looked_up"] and p["placement"] == "other module",
                  f"{row['symbol']} ({row['module']}) is not looked up in a kernel's map", p)
            continue
        if row["symbol"] == "[unknown]":
            check(p["base"] is None and p["other"] is None, "an unnamed address is in no map", p)
            continue
        addrs = funcs.get(row["symbol"])
        check(addrs is not None, f"{row['symbol']} is in kallsyms", row)
        a = min(addrs)
        check(p["base"] == p["other"] and p["base"]["name"] == row["symbol"] and
              int(p["base"]["addr"], 16) == a and p["base"]["offset"] == a % 64 and
              p["placement"] == "same",
              f"{row['symbol']}: at {a:#x}, offset {a % 64}, as kallsyms says, in both", p)
    sec = text[text.index("  Placement in 64-byte lines, kallsyms-big > kallsyms-sm"):]
    sec = sec[:sec.index("\n\n")]
    log(sec)
    for line in sec.splitlines():
        check(len(line) <= 72, "the placement fits 72 columns", line)


def full_shares(p):
    """{(symbol, module): share} of every function in a stored run's full profile
    (end.profile.*.full), whose rows must add up to the run's samples."""
    full = p["full"]
    check(full["omitted_functions"] == 0, "the full list holds every function of a 1 s run", full)
    rows = sum(n for fns in full["functions"].values() for n in fns.values())
    check(rows + full["omitted_samples"] + p["unattributed"] == p["samples"],
          "the stored full profile's rows add up to the run's samples", rows, p["samples"])
    return {(sym, mod): 100.0 * n / p["samples"]
            for mod, fns in full["functions"].items() for sym, n in fns.items()}


def shares(runs, variant):
    """{(symbol, module): [share per run]} of variant's runs from their full profiles, 0 where a
    run has no sample of the function."""
    prof = [full_shares(r["result"]["end"]["profile"]["local"])
            for r in runs if r["variant"] == variant]
    keys = {k for p in prof for k in p}
    return {k: [p.get(k, 0.0) for p in prof] for k in keys}, len(prof)


def body(netab):
    if os.geteuid() != 0:
        raise TestSkip("needs root to sample system-wide (CI runs as root)")
    d = tempfile.mkdtemp(prefix="netab-profreport-")
    try:
        exp, db = os.path.join(d, "e.yaml"), os.path.join(d, "r.db")
        # Both variants' builds are the running kernel: a kallsyms snapshot each, taken as root.
        snaps = {v: os.path.join(d, "kallsyms-" + v) for v in ("big", "small")}
        with open("/proc/kallsyms") as f:
            syms = f.read()
        for path in snaps.values():
            with open(path, "w") as f:
                f.write(syms)
        with open(exp, "w") as f:
            f.write(EXPERIMENT % snaps)
        netab_cmd(netab, "experiment", "run", exp, "--db", db, timeout=120)
        text = netab_cmd(netab, "report", "--db", db, "1", expect_rc=(0, 1)).stdout
        section = text[text.index("Profile, default: small against big"):]
        section = section[:section.index("every function with samples counted")]
        log(section)
        for line in section.splitlines():
            check(len(line) <= 72, "the profile section fits 72 columns", line)
        check(any(w in section for w in (" grew", " shrank", " appeared", " vanished")),
              "some function changed with a verdict", section)
        md = netab_cmd(netab, "report", "--db", db, "--format", "markdown", "1",
                       expect_rc=(0, 1)).stdout
        check("### Profile, default: small against big" in md and "| function |" in md,
              "Markdown has the profile table", md[-2000:])
        html = netab_cmd(netab, "report", "--db", db, "--format", "html", "1",
                         expect_rc=(0, 1)).stdout
        sec = html[html.index('<section id="profile">'):]
        sec = sec[:sec.index("</section>")]
        check('<svg class="profdiff"' in sec and sec.count("<tr>") >= 2,
              "HTML has the profile's bar figure and table", sec[:500])
        doc = parse_one_json(netab_cmd(netab, "report", "--db", db, "--format", "json", "1",
                                       expect_rc=(0, 1)).stdout)
        diffs = doc["profile_diffs"]
        check(len(diffs) == 1 and diffs[0]["variant"] == "small" and diffs[0]["against"] == "big",
              "one differential profile, small against big", diffs)
        esc = lambda x: x.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        for row in diffs[0]["functions"]:
            shown = esc(row["symbol"])
            check(f"<td>{shown}</td><td>{esc(row['module'])}</td>" in sec and
                  f"{row['other_pct']:.2f}" in sec,
                  f"HTML shows {row['symbol']} with its module and share", row)
            text_row = f"  {row['symbol'][:20]:<20} {row['module'][:9]:<9} "
            check(any(x.startswith(text_row) for x in section.splitlines()),
                  f"the text shows {row['symbol']} with its module", text_row)
            # Markdown's row is the JSON's: both shares to 2 decimals and the verdict word.
            md_row = (f"| `{row['symbol']}` | {row['module']} | {row['base_pct']:.2f} | "
                      f"{row['other_pct']:.2f} | ")
            check(any(x.startswith(md_row) and x.endswith(f" | {row['verdict']} |")
                      for x in md.splitlines()), f"Markdown shows {row['symbol']} as the JSON",
                  md_row, row["verdict"])
        runs = json.loads(netab_cmd(netab, "runs", "export", "--db", db, "--experiment", "1",
                                    "--format", "json").stdout)
        base, nb = shares(runs, "big")
        other, no = shares(runs, "small")
        check((nb, no) == (diffs[0]["base_runs"], diffs[0]["other_runs"]) == (3, 3),
              "every run's profile is counted", nb, no)
        check(diffs[0]["floor_pct"] == 0, "with full profiles no share is a bound", diffs[0])
        check_kernel_placement(diffs[0], snaps["big"], text)
        changed = 0
        for row in diffs[0]["functions"]:
            k = (row["symbol"], row["module"])
            a, b = base.get(k, [0.0] * nb), other.get(k, [0.0] * no)
            check(abs(row["base_pct"] - statistics.mean(a)) < 1e-6 and
                  abs(row["other_pct"] - statistics.mean(b)) < 1e-6,
                  f"{k}: the mean shares are the stored runs'", row, a, b)
            if row["ci_low"] is not None:
                va, vb = statistics.variance(a) / nb, statistics.variance(b) / no
                diff = statistics.mean(b) - statistics.mean(a)
                # The interval is symmetric about the difference, half-width t * se.
                check(abs((row["ci_low"] + row["ci_high"]) / 2 - diff) < 1e-6,
                      f"{k}: the interval is centred on the change", row)
                half = (row["ci_high"] - row["ci_low"]) / 2
                se = math.sqrt(va + vb)
                check(se == 0 or 1.0 < half / se < 13.0,
                      f"{k}: the half-width is a t quantile of Welch's standard error", half, se)
            if row["verdict"] in ("grew", "shrank"):
                changed += 1
                check((row["ci_low"] > 0) == (row["verdict"] == "grew") and
                      (row["ci_high"] < 0) == (row["verdict"] == "shrank"),
                      f"{k}: the verdict follows the interval", row)
        check(changed >= 1 and any(r["module"] == "[kernel]" and r["verdict"] != "within noise"
                                   for r in diffs[0]["functions"]),
              "a kernel function's share changed with a verdict", diffs[0]["functions"])
        # netab compare: the same section in its text and JSON.
        cmp = ["compare", "--db", os.path.join(d, "c.db"), "--runs", "3", "--warmup", "0",
               "--seed", "5", "--variant", "big", "--opts", "-l 128K", "--variant", "small",
               "--opts", "-l 1K", "--", "-t", "1", "-A", "0,0", "--profile", "-i", "0"]
        text = netab_cmd(netab, *cmp, expect_rc=(0, 1), timeout=180).stdout
        check("profile: small vs big (share of samples):" in text and
              "  function             module    base  new change, pp" in text,
              "compare prints the profile, with the module column", text[-1500:])
        doc = parse_one_json(netab_cmd(netab, *(cmp[:3] + ["--json"] + cmp[3:]), expect_rc=(0, 1),
                                       timeout=180).stdout)
        pd = doc["profile_diffs"]
        check(len(pd) == 1 and pd[0]["base_runs"] == 3 and pd[0]["other_runs"] == 3 and
              any(r["module"] == "[kernel]" and r["verdict"] in ("grew", "shrank")
                  for r in pd[0]["functions"]),
              "compare --json: a kernel function changed with a verdict", pd)
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
