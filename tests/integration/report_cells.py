"""The cells the user asks for (issue 29, item 4; docs/report.md, "The cells you ask for").

The 8139 thread's table from one experiment: rows the variants, each entry
"tcp S/R udp S/R cpu C%" (TCP and UDP sender and receiver Mbit/s, the remote CPU
over both tests).

* Experiment 1, matrix {test: [tcp_stream, udp_stream]}, variants big (-l 32K),
  small (-l 8K) and refused (-c 127.0.0.1 -p 1, which nobody answers):
  `netab report 1 --cell TEMPLATE` prints one row per variant; big's and small's
  entries hold four throughput figures and a percentage, each the mean of the
  store's own rows (sqlite3) rounded as the report rounds (94, 9.4, 0.94), small's
  with a change mark and big's (the baseline) without; refused's entry reads
  "(fails)". The Markdown and HTML forms hold the same entries, the JSON's
  cell_table the same strings and the means.
* Experiment 2, matrix {streams: [1, 2], test: [...]}, with `report: {cell: ...,
  columns: streams}` in the file: `netab report 2` alone prints the table with the
  columns 1 and 2, each entry the means of its streams' cells; `--cell T --columns
  streams` on the command line prints the same, and another --cell wins over the file's.
* A bad template (unknown metric, unknown test, unclosed brace) or --columns naming
  no axis exits 2 naming the placeholder, printing nothing on stdout;
  `netab experiment validate` refuses the same in a file at its line.
"""
import json
import os
import re
import shutil
import sqlite3
import tempfile

from netab_helpers import check, check_eq, log, netab_cmd, run_main

TEMPLATE = ("tcp {tcp_stream:sender_throughput}/{tcp_stream:throughput} "
            "udp {udp_stream:sender_throughput}/{udp_stream:throughput} cpu {cpu_remote}")

EXP1 = """name: cells
runs: 2
warmup: 0
seed: 7
test:
  time: 0.3
  bitrate: 100M
variants:
  - name: big
    opts: "-l 32K"
  - name: small
    opts: "-l 8K"
  - name: refused
    opts: "-c 127.0.0.1 -p 1"
matrix:
  test: [tcp_stream, udp_stream]
"""

EXP2 = """name: cells2
runs: 2
warmup: 0
seed: 8
test:
  time: 0.3
  bitrate: 100M
variants:
  - name: big
    opts: "-l 32K"
  - name: small
    opts: "-l 8K"
matrix:
  streams: [1, 2]
  test: [tcp_stream, udp_stream]
report:
  cell: "%s"
  columns: streams
""" % TEMPLATE

MARK = r"(?:[*!=?]|!\*)?"
NUM = r"(-?[0-9][0-9.e+-]*)" + f"({MARK})"
ENTRY = re.compile(rf"^tcp {NUM}/{NUM} udp {NUM}/{NUM} cpu {NUM[:-len(MARK) - 2]}%({MARK})$")


def rounded(x):
    """The report's rounding of an entry (creport_cell_num)."""
    a = abs(x)
    if a >= 9.95:
        return "%.0f" % x
    if a >= 0.995:
        return "%.1f" % x
    return "%.2g" % x


def store_means(db, exp_id, streams=None):
    """{variant: [tcp send, tcp recv, udp send, udp recv, cpu]} from the store's ok runs."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "select variant, cell, sender_bps, receiver_bps, cpu_remote_pct from runs "
            "where experiment_id = ? and status = 'ok'", (exp_id,)).fetchall()
    finally:
        con.close()
    out = {}
    for variant in {r[0] for r in rows}:
        mine = [r for r in rows
                if r[0] == variant and (streams is None or f"streams={streams}," in r[1])]

        def mean(test, col):
            vals = [r[col] for r in mine if test is None or r[1].endswith(f"test={test}")]
            check(vals and all(v is not None for v in vals), f"{variant}: stored values", vals)
            return sum(vals) / len(vals)
        out[variant] = [mean("tcp_stream", 2) / 1e6, mean("tcp_stream", 3) / 1e6,
                        mean("udp_stream", 2) / 1e6, mean("udp_stream", 3) / 1e6,
                        mean(None, 4)]
    return out


def text_tables(text):
    """The cell table(s) of the text report: {variant: {column: entry}}, in order.

    Columns start where their headings do; a row starts with its variant's name, and a
    line that starts with blanks continues the row above (an entry wrapped into lines
    when the columns stand side by side only that way, as the 8139 thread's table).
    """
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Cell table: rows are"))
    table, cols, row, i = {}, None, None, start + 1
    while i < len(lines):
        line = lines[i]
        if line.startswith("variant  "):
            heads = list(re.finditer(r"\S+(?: \S+)*", line))[1:]
            cols = [(m.group(), m.start()) for m in heads]
            row = None
        elif not line.strip():
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if cols is not None and not nxt.startswith("variant  "):
                break
        elif cols is None:
            pass  # the sentence above the table
        else:
            check(all(not line[at - 2:at].strip() for _, at in cols if len(line) > at),
                  f"text: entries start at their column: {line!r}")
            starts = [at for _, at in cols] + [None]
            parts = [line[a:b].strip() if len(line) > a else ""
                     for a, b in zip(starts, starts[1:])]
            if line[0] != " ":
                row = line[:cols[0][1]].strip()
                check(row, f"text: a row starts with its variant: {line!r}")
                check(all(parts), f"text: one entry per column: {line!r}")
                table.setdefault(row, {}).update((c, p) for (c, _), p in zip(cols, parts))
            else:
                check(row is not None, f"text: a continued line follows a row: {line!r}")
                for (c, _), p in zip(cols, parts):
                    if p:
                        table[row][c] += " " + p
        i += 1
    return table


def check_entry(entry, means, baseline, what):
    m = ENTRY.match(entry)
    check(m, f"{what}: four numbers and a percentage", entry)
    nums, marks = m.groups()[0::2], m.groups()[1::2]
    check_eq(list(nums), [rounded(x) for x in means], f"{what}: the store's means, rounded")
    if baseline:
        check(all(k == "" for k in marks), f"{what}: the baseline has no marks", entry)
    else:
        check(all(k != "" for k in marks), f"{what}: every figure has its mark", entry)


def experiment_one(netab, tmp, db):
    path = os.path.join(tmp, "cells.yaml")
    with open(path, "w") as f:
        f.write(EXP1)
    netab_cmd(netab, "experiment", "run", "--db", db, path, timeout=300, expect_rc=1)
    # Exit 2: the variant 'refused' only failed, so its cells have no verdict.
    report = lambda fmt: netab_cmd(netab, "report", "1", "--db", db, "--format", fmt,  # noqa
                                   "--cell", TEMPLATE, expect_rc=2).stdout
    text = report("text")
    table = text_tables(text)
    check_eq(sorted(table), ["big", "refused", "small"], "text: one row per variant")
    means = store_means(db, 1)
    for v in ("big", "small"):
        check_eq(list(table[v]), ["(all)"], f"text: {v} has one column")
        check_entry(table[v]["(all)"], means[v], v == "big", f"text {v}")
    check_eq(table["refused"]["(all)"], "(fails)", "text: refused's entry reads (fails)")
    md, html = report("markdown"), report("html")
    for v, entry in ((v, table[v]["(all)"]) for v in table):
        # Markdown escapes '*' and '|' (creport_md_text): the rendered text is the entry.
        md_entry = entry.replace("|", "\\|").replace("*", "\\*")
        check(f"| {v} | {md_entry} |" in md, f"markdown: {v}'s row holds {entry}", md[-800:])
        check(f"<tr><th>{v}</th><td>{entry}</td></tr>" in html, f"html: {v}'s row holds {entry}")
    doc = json.loads(report("json"))
    ct = doc["cell_table"]
    check_eq(ct["template"], TEMPLATE, "json: the template")
    rows = {r["variant"]: r["cells"][0] for r in ct["tables"][0]["rows"]}
    for v in table:
        check_eq(rows[v]["text"], table[v]["(all)"], f"json: {v}'s entry")
    for i, x in enumerate(means["small"]):
        got = rows["small"]["values"][i]["value"]
        check(abs(got - x) <= 1e-6 * max(1, abs(x)), f"json: small's figure {i} is the mean",
              got, x)
    check(rows["refused"]["fails"], "json: refused's entry failed")
    # The table belongs to the headline section: --sections keeps it with headline only.
    for sections, has in (("headline", True), ("tables", False)):
        cut = json.loads(netab_cmd(netab, "report", "1", "--db", db, "--format", "json",
                                   "--cell", TEMPLATE, "--sections", sections,
                                   expect_rc=2).stdout)
        check_eq("cell_table" in cut, has, f"json --sections {sections}: cell_table")
    log("ok: the cell table of experiment 1 in text, Markdown, HTML and JSON:",
        *(f"{v}: {table[v]['(all)']}" for v in table))


def experiment_two(netab, tmp, db):
    path = os.path.join(tmp, "cells2.yaml")
    with open(path, "w") as f:
        f.write(EXP2)
    netab_cmd(netab, "experiment", "run", "--db", db, path, timeout=300, expect_rc=(0, 1))
    text = netab_cmd(netab, "report", "2", "--db", db, expect_rc=(0, 1)).stdout
    check("columns the axis streams" in " ".join(text.split()), "text: the columns are streams")
    table = text_tables(text)
    check_eq(sorted(table), ["big", "small"], "text: one row per variant")
    # Two 40-character entries do not fit 72 columns on one line: they wrap, side by side.
    cells = text[text.index("Cell table: rows are"):]
    cells = cells[:cells.index("\n\n", cells.index("\nvariant  "))].splitlines()
    check(sum(x.startswith("variant  ") for x in cells) == 1,
          "text: both columns in one table, entries wrapped (the thread's shape)", cells)
    check(all(len(x) <= 72 for x in cells) and any(x.startswith("   ") for x in cells),
          "text: wrapped lines within 72 columns", cells)
    for streams in ("1", "2"):
        means = store_means(db, 2, streams)
        for v in ("big", "small"):
            check_entry(table[v][streams], means[v], v == "big", f"text {v} streams={streams}")
    # The command line's --cell and --columns give the same table; --cell wins over the file's.
    cli = netab_cmd(netab, "report", "2", "--db", db, "--cell", TEMPLATE, "--columns", "streams",
                    expect_rc=(0, 1)).stdout
    check_eq(text_tables(cli), table, "--cell --columns streams: the file's table")
    mine = text_tables(netab_cmd(netab, "report", "2", "--db", db, "--cell",
                                 "r {tcp_stream:throughput}", expect_rc=(0, 1)).stdout)
    check(all(re.fullmatch(r"r [0-9]+[*!=?]*", e) for v in mine for e in mine[v].values())
          and sorted(mine["big"]) == ["1", "2"], "--cell replaces the file's template", mine)
    log("ok: report: {cell, columns: streams} from the file:",
        *(f"{v} @ {k}: {e}" for v in table for k, e in table[v].items()))


def refusals(netab, tmp, db):
    for tpl, want in (("tcp {tcp_stream:thruput}", "{tcp_stream:thruput}: unknown metric"),
                      ("{tcp_strem:throughput}", "unknown test 'tcp_strem'"),
                      ("tcp {tcp_stream:throughput", "'{tcp_stream:throughput' at byte 5 is "
                       "never closed"),
                      ("{tcp_rr:transactions}", "{tcp_rr:transactions}: no cell of this "
                       "experiment is tcp_rr")):
        r = netab_cmd(netab, "report", "1", "--db", db, "--cell", tpl, expect_rc=2)
        check_eq(r.stdout, "", f"{tpl}: nothing printed")
        check(want in r.stderr, f"{tpl}: the error names it", r.stderr)
    r = netab_cmd(netab, "report", "2", "--db", db, "--columns", "length", expect_rc=2)
    check("--columns length: the matrix has no such axis" in r.stderr, "--columns length",
          r.stderr)
    path = os.path.join(tmp, "bad.yaml")
    with open(path, "w") as f:
        f.write(EXP1 + "report: {cell: 'x {tcp_stream:thruput}'}\n")
    r = netab_cmd(netab, "experiment", "validate", path, expect_rc=2)
    check(f"{path}:17:" in r.stderr and "unknown metric 'thruput'" in r.stderr,
          "validate names the line and the placeholder", r.stderr)
    log("ok: bad templates and columns are refused before anything is printed")


def body(netab):
    tmp = tempfile.mkdtemp(prefix="netab-cells-")
    try:
        db = os.path.join(tmp, "c.db")
        experiment_one(netab, tmp, db)
        experiment_two(netab, tmp, db)
        refusals(netab, tmp, db)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
