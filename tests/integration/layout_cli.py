#!/usr/bin/env python3
"""netab layout against ground truth from binutils.

Builds two versions of a small C program with gcc (the second with an extra
function early in the text; then a second pair differing only in
-falign-functions) and checks that `netab layout --json` reports, for every
function, the addresses and sizes `nm -n -S` prints for the two binaries,
and the offsets within the line, lines spanned and moves that follow from
them. The same answers must come from the binaries' `nm -n -S` and `nm -n`
listings read as System.map files. Bad input (a stripped or truncated
binary, a file that is not ELF, a System.map with a garbage line) must be a
clear error with exit status 2, and never a sanitizer report.
"""

import json
import os
import shutil
import tempfile

from netab_helpers import check, check_eq, log, parse_one_json, run_cmd, run_main

COMMON = r"""
#include <stdio.h>
#include <stdlib.h>
#define NI __attribute__((noinline))
NI int ip_rcv(int x) { return x * 3 + 1; }
NI int ip_forward(int x) { int s = 0; for (int i = 0; i < x; i++) s += ip_rcv(i) ^ i; return s; }
NI long nf_nat_fn(long a, long b) { return a * 31 + b * 17 + (a >> 3); }
NI int helper_%(tag)s(int x) { return x - 7; }
int main(int argc, char **argv) {
    (void)argv;
    printf("%%d %%ld\n", ip_forward(argc) + helper_%(tag)s(argc), nf_nat_fn(argc, 2) %(extra_call)s);
    return 0;
}
"""

# The new version has one more function, placed before everything else. It
# is small, so that (at -O2's 16-byte function alignment) what follows moves
# by less than a cache line and changes its offset within the line.
EARLY = r"""
__attribute__((noinline)) long early_extra(long x) { return x * 7 + 3; }
"""

OUR_FUNCS = {"ip_rcv", "ip_forward", "nf_nat_fn", "main", "early_extra", "helper_v"}
LINE = 64


def sh(*argv):
    return run_cmd(list(argv), timeout=60).stdout


def build(d, name, src, flags):
    c = os.path.join(d, name + ".c")
    with open(c, "w") as f:
        f.write(src)
    exe = os.path.join(d, name)
    sh("gcc", "-O2", "-fno-inline", "-fno-reorder-functions", *flags, "-o", exe, c)
    return exe


def nm_functions(exe, sized=True):
    """Functions of exe as {name: [(addr, size)]}, from nm independently of netab.

    A function is a defined symbol of type t/T, or W/w/i inside the t/T
    address range (weak and indirect symbols can also be data). Without -S a
    size is the distance to the next higher address of any defined,
    non-absolute symbol, and the third member of each entry is that address's
    alignment (its lowest set bit, at most 4096), which bounds the padding the
    gap may hold; with -S it is 0 (the size is exact).
    """
    args = ["nm", "-n"] + (["-S"] if sized else []) + [exe]
    rows = []
    for line in sh(*args).splitlines():
        tok = line.split()
        if len(tok) == 2:
            continue  # undefined: no address
        if sized and len(tok) == 4:
            addr, size, typ, name = int(tok[0], 16), int(tok[1], 16), tok[2], tok[3]
        else:
            addr, size, typ, name = int(tok[0], 16), 0, tok[1], tok[2]
        if typ in "aA":
            continue
        rows.append((addr, size, typ, name))
    text = [r[0] for r in rows if r[2] in "tT"]
    lo, hi = min(text), max(text)
    addrs = sorted({r[0] for r in rows})
    out = {}
    for addr, size, typ, name in rows:
        if not (typ in "tT" or (typ in "Wwi" and lo <= addr <= hi)):
            continue
        align = 0
        if not sized:
            higher = [a for a in addrs if a > addr]
            size = higher[0] - addr if higher else 0
            align = min(higher[0] & -higher[0], 4096) if higher else 0
        out.setdefault(name, []).append((addr, size, align))
    for v in out.values():
        v.sort()
    return out


def padding(size, align, line=LINE):
    """The most padding a gap of size bytes before an align-aligned symbol may hold."""
    if not align or not size:
        return 0
    return min(min(align, line) - 1, size - 1)


def expected_delta(old, new, line=LINE):
    """The size change docs/layout.md promises: 0 when the possible sizes overlap."""
    (_, os_, oa), (_, ns, na) = old, new
    olo, nlo = os_ - padding(os_, oa, line), ns - padding(ns, na, line)
    return 0 if nlo <= os_ and olo <= ns else ns - os_


def lines(addr, size, line=LINE):
    return (addr % line + size + line - 1) // line if size else 0


def layout(netab, *args, rc=0):
    return run_cmd([netab, "layout", *args], expect_rc=rc)


def check_against_nm(doc, old, new, line=LINE, what=""):
    """Every function of doc matches the nm tables old/new, and nothing is missing."""
    seen, truths = {}, {}
    for f in doc["functions"]:
        name = f["name"]
        k = seen.get(name, 0)
        seen[name] = k + 1
        for side, table in (("old", old), ("new", new)):
            entry = f[side]
            truth = table.get(name, [])
            if k < len(truth):
                addr, size, align = truth[k]
                truths[(name, k, side)] = truth[k]
                check(entry is not None, f"{what}{name}: missing on the {side} side")
                check_eq(entry["padding_max"], padding(size, align, line),
                         f"{what}{name} {side} padding")
                check_eq(entry["size_known"], doc[side]["source"] != "System.map",
                         f"{what}{name} {side} size_known")
                check_eq(int(entry["addr"], 16), addr, f"{what}{name} {side} address")
                check_eq(entry["size"], size, f"{what}{name} {side} size")
                check_eq(entry["offset"], addr % line, f"{what}{name} {side} offset")
                check_eq(entry["lines"], lines(addr, size, line), f"{what}{name} {side} lines")
            else:
                check(entry is None, f"{what}{name}: netab has a {side} entry nm does not", f)
        state = "common" if f["old"] and f["new"] else "added" if f["new"] else "removed"
        check_eq(f["state"], state, f"{what}{name} state")
        if state == "common":
            moved = f["old"]["offset"] != f["new"]["offset"]
            check_eq(f["offset_changed"], moved, f"{what}{name} offset_changed")
            check_eq(f["lines_changed"], f["old"]["lines"] != f["new"]["lines"],
                     f"{what}{name} lines_changed")
            want = expected_delta(truths[(name, k, "old")], truths[(name, k, "new")], line)
            check_eq(f["size_delta"], want, f"{what}{name} delta")
            check_eq(f["padding_only"], want == 0 and f["new"]["size"] != f["old"]["size"],
                     f"{what}{name} padding_only")
    for side, table in (("old", old), ("new", new)):
        for name, occ in table.items():
            have = sum(1 for f in doc["functions"] if f["name"] == name and f[side])
            check_eq(have, len(occ), f"{what}{name}: {side} occurrences")
    s = doc["summary"]
    common = [f for f in doc["functions"] if f["state"] == "common"]
    check_eq(s["common"], len(common), f"{what}summary.common")
    check_eq(s["offset_changed"], sum(f["offset_changed"] for f in common),
             f"{what}summary.offset_changed")
    check_eq(s["size"]["old_total"], sum(sz for v in old.values() for _, sz, _ in v),
             f"{what}old total size")
    check_eq(s["size"]["new_total"], sum(sz for v in new.values() for _, sz, _ in v),
             f"{what}new total size")


def strip_docs(doc):
    """The per-function answers of a document, without where they came from."""
    return [(f["name"], f["state"], f["old"], f["new"], f["offset_changed"]) for f in
            doc["functions"]]


def test_pair(netab, d, old_exe, new_exe, tag):
    old, new = nm_functions(old_exe), nm_functions(new_exe)
    r = layout(netab, old_exe, new_exe, "--json")
    doc = r.doc
    check(doc.get("error") is None, "error is not null", doc.get("error"))
    check_eq(doc["old"]["source"], "ELF .symtab", "old source")
    check_against_nm(doc, old, new, what=f"{tag} ELF: ")
    log(f"ok: {tag}: every function matches nm -n -S ({len(doc['functions'])} functions)")
    # --line 32 changes offsets and lines the way the arithmetic says.
    doc32 = layout(netab, old_exe, new_exe, "--json", "--line", "32").doc
    check_against_nm(doc32, old, new, line=32, what=f"{tag} ELF line 32: ")
    log(f"ok: {tag}: --line 32")

    # The nm -n -S listings as System.map files: the same answers.
    maps = []
    for exe in (old_exe, new_exe):
        m = exe + ".sized.map"
        with open(m, "w") as f:
            f.write(sh("nm", "-n", "-S", exe))
        maps.append(m)
    mdoc = layout(netab, *maps, "--json").doc
    check_eq(mdoc["old"]["source"], "nm -S map", "sized map source")
    check_eq(strip_docs(mdoc), strip_docs(doc), f"{tag}: nm -n -S maps vs ELF")
    log(f"ok: {tag}: nm -n -S listings give the same answers as the ELF files")

    # The nm -n listings: same addresses and offsets; sizes reach the next symbol.
    plain = []
    for exe in (old_exe, new_exe):
        m = exe + ".map"
        with open(m, "w") as f:
            f.write(sh("nm", "-n", exe))
        plain.append(m)
    pdoc = layout(netab, *plain, "--json").doc
    check_eq(pdoc["old"]["source"], "System.map", "plain map source")
    check_against_nm(pdoc, nm_functions(old_exe, sized=False), nm_functions(new_exe, sized=False),
                     what=f"{tag} nm -n: ")
    got = [(f["name"], f["state"], (f["old"] or {}).get("addr"), (f["new"] or {}).get("addr"),
            f["offset_changed"]) for f in pdoc["functions"]]
    want = [(f["name"], f["state"], (f["old"] or {}).get("addr"), (f["new"] or {}).get("addr"),
             f["offset_changed"]) for f in doc["functions"]]
    check_eq(sorted(got), sorted(want), f"{tag}: nm -n addresses and moves vs ELF")
    log(f"ok: {tag}: nm -n listings give the same addresses and offsets")
    return doc


def test_text(netab, old_exe, new_exe):
    r = layout(netab, old_exe, new_exe, "--hot", "ip_rcv,ip_forward,nf_nat_fn,main", "--all")
    for i, line in enumerate(r.stdout.splitlines()):
        check(len(line) <= 72, f"text line {i + 1} is wider than 72 columns", repr(line))
        check(line == line.rstrip(), f"text line {i + 1} has trailing blanks", repr(line))
    check("hot functions changed their offset within a 64-byte line" in r.stdout
          or "None of the 4 hot functions" in r.stdout, "verdict in text", r.stdout)
    check("add/remove:" in r.stdout, "bloat-o-meter line in text", r.stdout)
    log("ok: text report fits 72 columns and has the verdict")
    log(r.stdout)


def test_hot(netab, d, old_exe, new_exe):
    doc = layout(netab, old_exe, new_exe, "--json", "--hot", "ip_*,main").doc
    hot = sorted(f["name"] for f in doc["functions"] if f["hot"])
    check_eq(hot, ["ip_forward", "ip_rcv", "main"], "hot functions from a comma list")
    s = doc["summary"]
    check_eq(s["hot"]["in_both"], 3, "hot in both")
    moved = sum(f["offset_changed"] for f in doc["functions"] if f["hot"])
    check_eq(s["hot"]["offset_changed"], moved, "hot offset_changed")
    check(f"{moved} of 3 hot functions" in s["verdict"] if moved else
          "None of the 3 hot functions" in s["verdict"], "verdict counts", s["verdict"])
    first = min((f for f in doc["functions"] if f["hot"]), key=lambda f: int(f["old"]["addr"], 16))
    check_eq(s["first_hot_shift"]["name"], first["name"], "first hot function")
    check_eq(s["first_hot_shift"]["shift"],
             int(first["new"]["addr"], 16) - int(first["old"]["addr"], 16), "first hot shift")
    # A perf report --stdio excerpt as a file.
    prof = os.path.join(d, "perf.txt")
    with open(prof, "w") as f:
        f.write("# Overhead  Command  Shared Object  Symbol\n#\n"
                "    40.00%  prog     prog           [.] nf_nat_fn\n"
                "    20.00%  prog     prog           [.] ip_rcv\n"
                "     1.00%  prog     [kernel.kallsyms]  [k] 0xffffffff81000000\n")
    doc = layout(netab, old_exe, new_exe, "--json", "--hot", prof).doc
    hot = sorted(f["name"] for f in doc["functions"] if f["hot"])
    check_eq(hot, ["ip_rcv", "nf_nat_fn"], "hot functions from perf report")
    check_eq(doc["summary"]["hot"]["source"], "perf report", "hot source")
    names = os.path.join(d, "hot.txt")
    with open(names, "w") as f:
        f.write("# one per line\nip_forward\nnf_*\n")
    doc = layout(netab, old_exe, new_exe, "--json", "--hot", names).doc
    hot = sorted(f["name"] for f in doc["functions"] if f["hot"])
    check_eq(hot, ["ip_forward", "nf_nat_fn"], "hot functions from a names file")
    with open(names, "w") as f:
        f.write("ip_forward\nnot a name\n")
    r = layout(netab, old_exe, new_exe, "--hot", names, rc=2)
    check("line 2" in r.stderr, "bad hot file names the line", r.stderr)
    log("ok: --hot comma list, perf report file, names file, bad file")


def test_user_hot(netab, old_exe, al_exe):
    """--hot repeated, a pattern that matches nothing, a bad pattern, and padding shown."""
    doc = layout(netab, old_exe, al_exe, "--json", "--hot", "ip_rcv", "--hot",
                 "nf_nat_*,v7_dma_nope").doc
    s = doc["summary"]
    hot = sorted(f["name"] for f in doc["functions"] if f["hot"])
    check_eq(hot, ["ip_rcv", "nf_nat_fn"], "the union of two --hot values")
    check_eq(s["hot"]["source"], "command line", "hot source")
    check_eq(s["hot"]["unmatched"], ["v7_dma_nope"], "unmatched pattern")
    r = layout(netab, old_exe, al_exe, "--hot", "ip_rcv", "--hot", "v7_dma_nope")
    check("hot patterns that match no function in either build: v7_dma_nope" in
          " ".join(r.stdout.split()), "unmatched pattern in text", r.stdout)
    r = layout(netab, old_exe, al_exe, "--hot", "ip_rcv,ip_[rcv", rc=2)
    check("'ip_[rcv'" in r.stderr and "never closed" in r.stderr, "bad pattern named", r.stderr)

    # -falign-functions=64 moved the functions, not their code: the ELF files' st_size is
    # unchanged, so nothing grew, though the gaps between the functions did.
    old, new = nm_functions(old_exe), nm_functions(al_exe)
    same = [n for n in OUR_FUNCS if n in old and n in new and old[n][0][1] == new[n][0][1]]
    check(len(same) >= 4, "our functions kept their st_size", old, new)
    fns = {f["name"]: f for f in doc["functions"]}
    for n in same:
        check_eq(fns[n]["size_delta"], 0, f"{n}: no growth from st_size")
    # The same builds as nm -n maps (no sizes): gaps that grew within the 64-byte alignment's
    # padding are shown as such, not as growth.
    maps = []
    for exe in (old_exe, al_exe):
        m = exe + ".plain.map"
        with open(m, "w") as f:
            f.write(sh("nm", "-n", exe))
        maps.append(m)
    pdoc = layout(netab, *maps, "--json", "--hot", ",".join(sorted(OUR_FUNCS))).doc
    pfns = {f["name"]: f for f in pdoc["functions"]}
    grown = [n for n in same if n in pfns and pfns[n]["new"]["size"] != pfns[n]["old"]["size"]]
    check(grown, "some gap changed with the alignment", pfns)
    for n in grown:
        check(pfns[n]["padding_only"] and pfns[n]["size_delta"] == 0,
              f"{n}: its gap change is padding", pfns[n])
    r = layout(netab, *maps, "--hot", ",".join(sorted(OUR_FUNCS)))
    for i, line in enumerate(r.stdout.splitlines()):
        check(len(line) <= 72, f"text line {i + 1} is wider than 72 columns", repr(line))
    check("size unknown (gap" in r.stdout and "not growth" in " ".join(r.stdout.split()),
          "padding shown in text", r.stdout)
    log("ok: --hot repeated, unmatched and bad patterns; st_size kept; padding is not growth")


def test_bad_input(netab, d, exe):
    stripped = os.path.join(d, "stripped")
    shutil.copy(exe, stripped)
    sh("strip", stripped)
    r = layout(netab, exe, stripped, rc=2)
    check("no symbol table" in r.stderr and "stripped" in r.stderr,
          "stripped binary: clear message", r.stderr)
    check(r.stdout == "", "nothing on stdout without --json", r.stdout)
    r = layout(netab, stripped, exe, "--json", rc=2)
    check("no symbol table" in parse_one_json(r.stdout, r)["error"], "JSON error document", r.stdout)
    log("ok: stripped binary -> exit 2, 'no symbol table'")

    with open(exe, "rb") as f:
        data = f.read()
    for cut in (4, 20, 64, 1000, len(data) // 2, len(data) - 100, len(data) - 1):
        t = os.path.join(d, f"trunc{cut}")
        with open(t, "wb") as f:
            f.write(data[:cut])
        r = layout(netab, exe, t, rc=2)
        check("truncated or corrupt" in r.stderr and t in r.stderr,
              f"truncated at {cut}: clear message", r.stderr)
    log("ok: truncated ELF files -> exit 2")

    junk = os.path.join(d, "junk.bin")
    with open(junk, "wb") as f:
        f.write(bytes(range(256)) * 8)
    r = layout(netab, exe, junk, rc=2)
    check("neither an ELF file nor a symbol map" in r.stderr, "not ELF: clear message", r.stderr)

    listing = sh("nm", "-n", exe).splitlines()
    listing.insert(4, "this line is garbage")
    bad = os.path.join(d, "bad.map")
    with open(bad, "w") as f:
        f.write("\n".join(listing) + "\n")
    r = layout(netab, exe, bad, rc=2)
    check("line 5" in r.stderr and "garbage" in r.stderr, "garbage map line named", r.stderr)

    empty = os.path.join(d, "empty.map")
    open(empty, "w").close()
    r = layout(netab, exe, empty, rc=2)
    check("no function symbols" in r.stderr, "empty map", r.stderr)
    r = layout(netab, exe, os.path.join(d, "does-not-exist"), rc=2)
    check("does-not-exist" in r.stderr, "missing file named", r.stderr)
    log("ok: not ELF, garbage System.map, empty map, missing file -> exit 2")

    for args, word in ((["only-one"], "two files"), ([exe, exe, "--line", "48"], "power of two"),
                       ([exe, exe, "--line", "0"], "--line"), ([exe, exe, "--bogus"], "--bogus")):
        r = layout(netab, *args, rc=2)
        check(word in r.stderr, f"usage error {args}", r.stderr)
    layout(netab, "--help")
    r = layout(netab, "--show-hot")
    check("nf_nat_*" in r.stdout.split() and "ip_rcv" in r.stdout.split(), "--show-hot", r.stdout)
    log("ok: usage errors -> exit 2; --help and --show-hot exit 0")


def body(netab):
    for tool in ("gcc", "nm", "strip"):
        # A missing tool fails the suite: scripts/deps installs build-essential.
        check(shutil.which(tool) is not None, f"'{tool}' is not installed")
    d = tempfile.mkdtemp(prefix="netab-layout-")
    try:
        src = COMMON % {"tag": "v", "extra_call": ""}
        src_new = EARLY + COMMON % {"tag": "v", "extra_call": "+ early_extra(argc)"}
        old_exe = build(d, "old", src, [])
        new_exe = build(d, "new", src_new, [])
        doc = test_pair(netab, d, old_exe, new_exe, "extra function")
        added = [f["name"] for f in doc["functions"] if f["state"] == "added"]
        check_eq(added, ["early_extra"], "added functions")
        moved = [f["name"] for f in doc["functions"] if f["offset_changed"]]
        check(OUR_FUNCS & set(moved), "the extra function moved one of ours within its line",
              moved)

        # Same source, functions aligned to 64 bytes in the new build.
        al_exe = build(d, "aligned", src, ["-falign-functions=64"])
        adoc = test_pair(netab, d, old_exe, al_exe, "-falign-functions=64")
        for f in adoc["functions"]:
            if f["name"] in OUR_FUNCS and f["new"]:
                check_eq(f["new"]["offset"], 0, f"{f['name']} aligned to 64 in the new build")
        check_eq(adoc["summary"]["added"] + adoc["summary"]["removed"], 0, "same functions")

        test_text(netab, old_exe, new_exe)
        test_hot(netab, d, old_exe, new_exe)
        test_user_hot(netab, old_exe, al_exe)
        test_bad_input(netab, d, old_exe)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    run_main(body)
