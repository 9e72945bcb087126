#!/usr/bin/env python3
"""The default text report is mail-sized (issue 29, item 7).

A real loopback experiment of 3 variants (-l 128K, -l 16K, -l 2K) x 4
cells (streams: [1, 2] x test: [tcp_stream, tcp_rr]), 3 runs each, run
while two CPU-bound processes (python3 busy loops, started and killed
here) share the host. Its default `netab report`:
- at most 40 lines, none over 72 columns, the headline's first table
  within the first 8 lines;
- every variant's deciding mean and change of the JSON headline
  (mean_text, change_text) on one line of the text with its variant, and
  in a row of the Markdown headline;
- every change in percent (the baselines here are far from 0), with its
  mark;
- the CPU cost's figure named in one line ("CPU cost"), not the per-cell
  section, which --full keeps;
- one statement of the verdicts: the headline's counts add up to the
  headline's comparisons and equal the JSON headline's verdicts; no
  "Changes found" beside it;
- warnings one line each ("- " items, a continuation indented), no
  command line of a competing process; --full and JSON keep them.
The harness checks every `netab report` for nan and inf.
"""
import os
import re
import signal
import sys
import tempfile

import netab_helpers as h

EXPERIMENT = """name: brief
runs: 3
warmup: 0
seed: 3
test:
  time: 0.3
  interval: 0
matrix:
  streams: [1, 2]
  test: [tcp_stream, tcp_rr]
variants:
  - name: l128k
    opts: "-l 128K"
  - name: l16k
    opts: "-l 16K"
  - name: l2k
    opts: "-l 2K"
"""
VERDICTS = ("improved", "regressed", "within noise", "no difference proven", "not compared")


def run_busy(netab, db, exp):
    """The experiment, with two CPU-bound processes beside it for its whole length."""
    hogs = [h.start([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        h.run_cmd([netab, "experiment", "run", "--db", db, exp], timeout=600)
    finally:
        for p in hogs:
            p.kill_group(signal.SIGKILL)
            p.finish(expect_rc=-signal.SIGKILL, timeout=30)


def report(netab, db, *args):
    return h.run_cmd([netab, "report", "--db", db, *args, "1"], expect_rc=(0, 1))


def check_shape(c, text):
    lines = text.splitlines()
    c.check(len(lines) <= 40, f"at most 40 lines ({len(lines)})")
    wide = [line for line in lines if len(line) > 72]
    c.check(not wide, "no line over 72 columns", wide[:3])
    first = next((i for i, line in enumerate(lines) if line.startswith("cell ")), None)
    c.check(first is not None and first < 8, f"the headline's first table on line {first}")
    c.check("CPU cost against" not in text, "no per-cell CPU cost section by default")
    cpu = [line for line in lines if line.startswith("CPU cost")]
    c.check(len(cpu) == 1 and "decided on" in cpu[0], "one line names the CPU cost's figure", cpu)
    c.check("Changes found" not in text, "no 'Changes found' section beside the verdicts")


def headline_rows(doc):
    for cell in doc["headline"]:
        for row in cell["rows"]:
            yield cell, row


def check_figures(c, text, md, doc):
    lines = [line.split() for line in text.splitlines()]
    # Markdown escapes the improved mark '*' as '\*': unescaped, a cell reads as the text's.
    md_rows = [[x.strip().replace("\\*", "*") for x in line.split("|")]
               for line in md.splitlines() if line.startswith("|")]
    for cell, row in headline_rows(doc):
        v, mean, chg = row["variant"], row["mean_text"], row["change_text"]
        want = [mean] + chg.split()
        c.check(any(v in toks and all(w in toks for w in want) for toks in lines),
                f"text: {cell['heading']} {v}: {mean} {chg}")
        c.check(any(v in cols and mean in cols and (chg in cols or not chg) for cols in md_rows),
                f"markdown: {cell['heading']} {v}: {mean} {chg}")
        if v != doc["baseline"]:
            for key in ("change_text", "cost_change_text"):
                c.check(re.fullmatch(r"[+-]\d+(\.\d+)?% [*!=?]", row[key]) is not None,
                        f"{cell['heading']} {v}: {key} in percent with its mark", row[key])


def counts(line):
    """'headline (16): 1 improved, 5 regressed, ...' -> (16, {verdict: n})."""
    m = re.match(r"\s*headline \((\d+)\):(.*)", line)
    got = {}
    for part in m.group(2).split(","):
        n, word = part.strip().split(" ", 1)
        got[word] = int(n)
    return int(m.group(1)), got


def check_verdicts(c, text, doc):
    flat = re.sub(r"\n    (?=\S)", " ", text)  # a verdict line continues indented by 4
    line = next((x for x in flat.splitlines() if x.strip().startswith("headline (")), None)
    c.check(line is not None, "a headline verdict line", text)
    if line is None:
        return
    total, got = counts(line)
    want = {}
    for _, row in headline_rows(doc):
        if row["variant"] == doc["baseline"]:
            continue
        for key in ("verdict", "cost_verdict"):
            word = row[key] or "not compared"
            want[word] = want.get(word, 0) + 1
    c.check(got == want, "the headline's verdict counts are the JSON headline's", (got, want))
    c.check(total == sum(got.values()), "they add up to the headline's comparisons", line)
    c.check(set(got) <= set(VERDICTS), "only verdict words", got)


def check_warnings(c, text, full, doc):
    lines = text.splitlines()
    if "Warnings:" not in lines:
        c.check(not doc["env_warnings"], "no warnings section only without warnings")
        return
    i = lines.index("Warnings:") + 1
    items = []
    while i < len(lines) and lines[i]:
        if lines[i].startswith("- "):
            items.append(lines[i])
        else:
            c.check(lines[i].startswith("  "), "a warning continues indented", lines[i])
        i += 1
    c.check(len(items) == len(doc["warning_summary"]), "one item per warning",
            (items, doc["warning_summary"]))
    for w in doc["env_warnings"]:
        m = re.match(r"competing benchmark processes in (\d+) of (\d+) runs: (.*)", w)
        if not m:
            continue
        c.check(f"competing processes in {m.group(1)} of {m.group(2)} runs:" in text,
                "competitors counted by name in the default", w)
        c.check("(" not in next(x for x in items if "competing processes" in x),
                "no command line in the default report", items)
        c.check(w.split(": ", 1)[1] in " ".join(full.split()), "--full names them", w)


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-report-brief-")
    db, exp = os.path.join(d, "brief.db"), os.path.join(d, "brief.yaml")
    with open(exp, "w") as f:
        f.write(EXPERIMENT)
    run_busy(netab, db, exp)
    c = h.Checks("report_brief")
    text = report(netab, db).stdout
    h.log(text)
    full = report(netab, db, "--full").stdout
    md = report(netab, db, "--format", "markdown").stdout
    doc = report(netab, db, "--format", "json").doc
    c.check(len(doc["headline"]) == 4, "four cells in the headline", len(doc["headline"]))
    check_shape(c, text)
    check_figures(c, text, md, doc)
    check_verdicts(c, text, doc)
    check_warnings(c, text, full, doc)
    c.check("CPU cost against" in full, "--full keeps the per-cell CPU cost section")
    if c.failed:
        raise h.TestFailure(f"{c.failed} check(s) failed")


if __name__ == "__main__":
    h.run_main(body)
