#!/usr/bin/env python3
"""Code layout in campaigns: a variant's `layout:` file and netab report.

A short loopback campaign whose variants name System.map-style files with
known layouts (relative to the experiment file): `netab report` must show,
next to the performance verdicts, each variant's layout against the
baseline's, with the counts that follow from the maps (text within 72
columns, Markdown and JSON), say why a variant with a broken map was not
compared, and leave out variants without a file. `netab experiment
validate` must refuse a layout file that does not exist.

Then the user's own hot set: a program built twice with cc, once with
v7_dma_clean_range `__attribute__((aligned(64)))`, whose `nm -n` listings
(System.map form: no sizes) are two variants' layout files. The
experiment's `layout: {hot: [v7_dma_*, tcp_v4_rcv]}` must make those the
hot functions of the report's code layout section (text, Markdown, JSON),
name tcp_v4_rcv as matching nothing, and not count v7_dma_inv_range's gap,
which grew only by the padding before the aligned function, as growth;
`netab report --hot` (repeatable) must replace the file's set; a bad
pattern must be refused, naming it, by validate and by report.
"""

import os
import shutil
import tempfile

from netab_helpers import check, check_eq, log, run_cmd, run_main

PROGRAM = r"""
#define NI __attribute__((noinline, used))
NI int v7_dma_inv_range(int x) { return x * 3 + 1; }
NI ALIGN int v7_dma_clean_range(int x) { return (x ^ 0x55) * 7; }
NI int v7_dma_flush_range(int x) { return x - 9; }
NI int other_fn(int x) { return x + 2; }
int main(int argc, char **argv)
{
    (void)argv;
    return v7_dma_inv_range(argc) + v7_dma_clean_range(argc) + v7_dma_flush_range(argc) +
           other_fn(argc);
}
"""

USER_EXPERIMENT = """name: userhot
runs: 1
warmup: 0
seed: 5
test:
  time: 0.2
  interval: 0
layout:
  hot: [v7_dma_*, "tcp_v4_rcv"]
variants:
  - name: base
    layout: old.map
  - name: aligned
    layout: new.map
"""

# Four functions of the built-in hot set and one that is not hot.
BASE = """ffffffff81000000 T _stext
ffffffff81001000 T ip_rcv
ffffffff81001040 T ip_forward
ffffffff81001080 t nf_nat_ipv4_fn
ffffffff810010c0 T tcp_v4_rcv
ffffffff81001100 T ext4_readdir
ffffffff81001200 T _etext
"""
# ip_rcv grew by 16 bytes: every later function moved 16 bytes into its line.
PATCHED = BASE.replace("ffffffff81001040 T ip_forward", "ffffffff81001050 T ip_forward") \
    .replace("ffffffff81001080 t nf_nat_ipv4_fn", "ffffffff81001090 t nf_nat_ipv4_fn") \
    .replace("ffffffff810010c0 T tcp_v4_rcv", "ffffffff810010d0 T tcp_v4_rcv") \
    .replace("ffffffff81001100 T ext4_readdir", "ffffffff81001110 T ext4_readdir")
# Everything moved by a whole line: no offset changed.
SHIFTED = "".join(
    f"{int(line.split()[0], 16) + 64:016x} {line.split(None, 1)[1]}\n" for line in BASE.splitlines())

EXPERIMENT = """name: layout
runs: 1
warmup: 0
seed: 5
test:
  time: 0.2
  interval: 0
variants:
  - name: base
    layout: maps/base.map
  - name: patched
    layout: maps/patched.map
  - name: shifted
    layout: maps/shifted.map
  - name: broken
    layout: maps/broken.map
  - name: plain
"""


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-report-layout-")
    try:
        os.mkdir(os.path.join(d, "maps"))
        for name, text in (("base", BASE), ("patched", PATCHED), ("shifted", SHIFTED),
                           ("broken", BASE + "not a map line\n")):
            with open(os.path.join(d, "maps", name + ".map"), "w") as f:
                f.write(text)
        exp = os.path.join(d, "exp.yaml")
        with open(exp, "w") as f:
            f.write(EXPERIMENT)
        db = os.path.join(d, "x.db")

        # A missing layout file is a validation error naming the variant.
        missing = os.path.join(d, "missing.yaml")
        with open(missing, "w") as f:
            f.write(EXPERIMENT.replace("maps/shifted.map", "maps/nosuch.map"))
        r = run_cmd([netab, "experiment", "validate", missing], expect_rc=2)
        check_eq(r.returncode, 2, "validate with a missing layout file")
        check("variant 'shifted': layout: cannot read" in r.stderr and "nosuch.map" in r.stderr,
              "the error names the variant and the file", r.stderr)
        log("ok: a missing layout file fails validation")

        # Run from another directory: relative paths follow the experiment file.
        r = run_cmd([netab, "experiment", "run", "--db", db, exp], timeout=120)
        check_eq(r.returncode, 0, "experiment run\n" + r.describe())

        r = run_cmd([netab, "report", "--db", db, "1"], expect_rc=(0, 1))
        check(r.returncode in (0, 1), "report exit status\n" + r.describe())
        text = r.stdout
        for i, line in enumerate(text.splitlines()):
            check(len(line) <= 72, f"report line {i + 1} is wider than 72 columns", repr(line))
        check("Code layout against base" in text, "section heading", text)
        # ip_rcv grew by 16 (its gap went from 64, up to 63 of it padding before a 64-aligned
        # symbol, to 80 before a 16-aligned one); ext4_readdir's gap to _etext shrank by 16,
        # within the padding before _etext, so it is no shrinkage: +16 in all.
        check("patched: 3 of 4 hot functions (4 of 7 in all) changed offset; size +16" in
              " ".join(text.split()), "patched's counts", text)
        check("3 of 4 hot functions changed their offset within a 64-byte line" in text,
              "patched's verdict", text)
        check("shifted: 0 of 4 hot functions (0 of 7 in all) changed offset; size +0" in text,
              "shifted's counts", text)
        check("broken: not compared:" in text and "line 8" in text, "broken's reason", text)
        section = []
        for line in text.split("Code layout against base", 1)[1].splitlines()[1:]:
            if not line.startswith("  "):
                break
            section.append(line)
        starts = [line.split(":")[0].strip() for line in section if not line.startswith("    ")]
        check_eq(starts, ["patched", "shifted", "broken"], "variants in the layout section")
        log("ok: text report has the code layout section")

        doc = run_cmd([netab, "report", "--db", db, "--format", "json", "1"], expect_rc=(0, 1)).doc
        lay = {x["variant"]: x for x in doc["layout"]}
        check_eq(sorted(lay), ["broken", "patched", "shifted"], "layout entries")
        p = lay["patched"]
        check_eq(p["against"], "base", "against")
        check_eq(p["file"], os.path.join(os.path.realpath(d), "maps", "patched.map"),
                 "stored absolute path")
        check_eq(p["summary"]["hot"]["in_both"], 4, "hot in both")
        check_eq(p["summary"]["hot"]["offset_changed"], 3, "hot offset changed")
        check_eq(p["summary"]["first_hot_shift"]["name"], "ip_rcv", "first hot function")
        check(p["error"] is None, "no error for patched", p)
        check_eq(lay["shifted"]["summary"]["first_hot_shift"]["shift"], 64, "whole-line shift")
        check(lay["broken"]["summary"] is None and "line 8" in lay["broken"]["error"],
              "broken's error", lay["broken"])
        log("ok: JSON report has the layout entries")

        md = run_cmd([netab, "report", "--db", db, "--format", "markdown", "1"],
                     expect_rc=(0, 1)).stdout
        check("### Code layout against base" in md and "| patched | 3 of 4 hot" in md,
              "markdown section", md)
        # The same entries in text and Markdown as in the JSON: each variant's counts and
        # size change (the JSON's summary), its verdict, or its error.
        flat = " ".join(text.split())
        for v, x in lay.items():
            if x["summary"] is None:
                want = [f"{v}: not compared: {x['error']}", f"| {v} | not compared | {x['error']}"]
            else:
                s_ = x["summary"]
                gist = (f"{s_['hot']['offset_changed']} of {s_['hot']['in_both']} hot functions "
                        f"({s_['offset_changed']} of {s_['common']} in all) changed offset; "
                        f"size {s_['size']['delta']:+d} bytes")
                want = [f"{v}: {gist}", f"| {v} | {gist} | {s_['verdict']}"]
            check(want[0] in flat, f"text: {v}'s layout entry is the JSON's", want[0], flat[-1500:])
            check(want[1] in md, f"markdown: {v}'s layout entry is the JSON's", want[1], md)
        log("ok: Markdown report has the code layout table; text and Markdown show the JSON's "
            "counts, verdicts and errors")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def text_map(d, name, align):
    """Builds PROGRAM and writes its text symbols as `nm -n` prints them (no sizes)."""
    src = os.path.join(d, name + ".c")
    with open(src, "w") as f:
        f.write(PROGRAM)
    exe = os.path.join(d, name)
    run_cmd(["cc", "-O2", "-fno-inline", "-fno-reorder-functions", "-falign-functions=16",
             "-DALIGN=" + align, "-o", exe, src], timeout=60)
    lines = [line for line in run_cmd(["nm", "-n", exe], timeout=60).stdout.splitlines()
             if len(line.split()) == 3 and line.split()[1] in "tT"]
    with open(os.path.join(d, name + ".map"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return {line.split()[2]: int(line.split()[0], 16) for line in lines}, exe


def gap(addrs, name):
    """The distance from name to the next higher address: its size in a map without sizes."""
    return min(a for a in addrs.values() if a > addrs[name]) - addrs[name]


def user_hot(netab):
    d = tempfile.mkdtemp(prefix="netab-report-userhot-")
    try:
        old, old_exe = text_map(d, "old", "")
        new, new_exe = text_map(d, "new", "__attribute__((aligned(64)))")
        # The fixture does what it is for: the aligned function starts a line in the new
        # build, v7_dma_inv_range's gap grew by no more than that alignment's padding, and
        # its code did not change (the ELF files' st_size, as nm -S prints it).
        check_eq(new["v7_dma_clean_range"] % 64, 0, "aligned function on a line")
        g_old, g_new = gap(old, "v7_dma_inv_range"), gap(new, "v7_dma_inv_range")
        check(g_new > g_old and g_new - g_old <= 63, "the gap grew within padding", g_old, g_new)
        sizes = [[line.split()[1] for line in run_cmd(["nm", "-S", exe], timeout=60)
                  .stdout.splitlines() if line.endswith(" v7_dma_inv_range")] for exe in
                 (old_exe, new_exe)]
        check_eq(sizes[0], sizes[1], "st_size of v7_dma_inv_range in both builds")
        # What the report must count, worked out from nm's addresses.
        hot = ["v7_dma_inv_range", "v7_dma_clean_range", "v7_dma_flush_range"]
        moved_hot = sum(old[n] % 64 != new[n] % 64 for n in hot)
        moved_all = sum(old[n] % 64 != new[n] % 64 for n in old if n in new)

        exp = os.path.join(d, "exp.yaml")
        with open(exp, "w") as f:
            f.write(USER_EXPERIMENT)
        bad = os.path.join(d, "bad.yaml")
        with open(bad, "w") as f:
            f.write(USER_EXPERIMENT.replace('"tcp_v4_rcv"', '"v7_dma_[inv"'))
        r = run_cmd([netab, "experiment", "validate", bad], expect_rc=2)
        check("pattern 'v7_dma_[inv'" in r.stderr and "never closed" in r.stderr,
              "validate names the bad pattern", r.stderr)
        db = os.path.join(d, "x.db")
        run_cmd([netab, "experiment", "run", "--db", db, exp], timeout=120)

        text = run_cmd([netab, "report", "--db", db, "1"], expect_rc=(0, 1)).stdout
        for i, line in enumerate(text.splitlines()):
            check(len(line) <= 72, f"report line {i + 1} is wider than 72 columns", repr(line))
        check("Code layout against base (netab layout, hot set: experiment file):"
              in text, "heading names the experiment's hot set", text)
        gist = (f"aligned: {moved_hot} of 3 hot functions ({moved_all} of {len(old)} in all) "
                "changed offset; size +0 bytes.")
        flat = " ".join(text.split())
        check(gist in flat, "the user's functions counted, padding not growth", gist, text)
        check("hot patterns that match no function in either build: tcp_v4_rcv." in flat,
              "the unmatched pattern is named", text)
        log("ok: experiment layout: hot: in the text report")

        doc = run_cmd([netab, "report", "--db", db, "--format", "json", "1"], expect_rc=(0, 1)).doc
        s = doc["layout"][0]["summary"]
        check_eq(s["hot"]["source"], "experiment file", "hot source")
        check_eq(s["hot"]["in_both"], 3, "v7_dma_* in both builds")
        check_eq(s["hot"]["offset_changed"], moved_hot, "hot offsets changed")
        check_eq(s["hot"]["unmatched"], ["tcp_v4_rcv"], "unmatched patterns")
        check_eq(s["size"]["delta"], 0, "no growth counted")
        check_eq(s["size"]["grow"], 0, "no function grew")
        check(s["size"]["padding_only"] >= 1, "padding-only gaps counted", s["size"])
        log("ok: experiment layout: hot: in the JSON report")

        md = run_cmd([netab, "report", "--db", db, "--format", "markdown", "1"],
                     expect_rc=(0, 1)).stdout
        check("### Code layout against base (hot set: experiment file)" in md,
              "markdown heading", md)
        check(f"| aligned | {moved_hot} of 3 hot" in md and "either build: tcp_v4_rcv." in md,
              "markdown row", md)
        log("ok: experiment layout: hot: in the Markdown report")

        # --hot replaces the file's set; two of them add up.
        args = [netab, "report", "--db", db, "--hot", "v7_dma_inv_range", "--hot",
                "v7_dma_flush_range,v7_dma_nope"]
        doc = run_cmd(args + ["--format", "json", "1"], expect_rc=(0, 1)).doc
        s = doc["layout"][0]["summary"]
        check_eq(s["hot"]["source"], "command line", "--hot source")
        check_eq(s["hot"]["in_both"], 2, "--hot functions in both")
        check_eq(s["hot"]["unmatched"], ["v7_dma_nope"], "--hot unmatched")
        text = run_cmd(args + ["1"], expect_rc=(0, 1)).stdout
        check("(netab layout, hot set: command line)" in text and "v7_dma_nope" in text,
              "--hot in the text report", text)
        md = run_cmd(args + ["--format", "markdown", "1"], expect_rc=(0, 1)).stdout
        check("(hot set: command line)" in md and "either build: v7_dma_nope." in md,
              "--hot in the Markdown report", md)
        r = run_cmd([netab, "report", "--db", db, "--hot", "ok_fn,bad[fn", "1"], expect_rc=2)
        check("'bad[fn'" in r.stderr, "report names the bad --hot pattern", r.stderr)
        log("ok: report --hot replaces the experiment's hot set; a bad one is refused")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def all_tests(netab):
    body(netab)
    user_hot(netab)


if __name__ == "__main__":
    run_main(all_tests)
