#!/usr/bin/env python3
"""`netab stats`: what the order of the values says, named sets, and
Mann-Whitney p against scipy (issue 17).

* A file in sorted order (published values often are) is reported as
  sorted, not as drift; an unsorted rising file still gets the drift
  warning; --order unknown makes no run-order claim at all.
* NAME=FILE shows NAME in the text, JSON and CSV; an argument that is both
  a file and NAME=FILE is refused with the two ways to say either.
* `netab stats --json` gives scipy's mannwhitneyu(a, b, alternative=
  "two-sided") p within 1e-9 relative, method included, on pairs of the
  committed reference (tests/unit/stats/data/mwu_reference.json).
"""
import json
import os
import tempfile

import netab_helpers as h

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "stats", "data")


def write(d, name, values):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("".join(f"{v!r}\n" for v in values))
    return path


def kinds(s):
    return [w["kind"] for w in s["warnings"]]


def check_order(netab, c, d):
    up = [1000 + 3.5 * i + (i % 3) * 0.25 for i in range(15)]
    sorted_up = write(d, "sorted_up.txt", up)
    sorted_down = write(d, "sorted_down.txt", list(reversed(up)))
    rise = list(up)
    rise[3], rise[4] = rise[4], rise[3]  # a rising run order, not sorted
    rising = write(d, "rising.txt", rise)

    doc = h.netab_cmd(netab, "stats", "--json", sorted_up, sorted_down, rising).doc
    a, b, r = doc["sets"]
    c.check(a["order"] == "ascending" and "sorted" in kinds(a) and "drift" not in kinds(a),
            "a file in ascending order is sorted, not drift", f"{a['order']} {kinds(a)}")
    c.check(b["order"] == "descending" and "sorted" in kinds(b) and "drift" not in kinds(b),
            "a file in descending order is sorted, not drift", f"{b['order']} {kinds(b)}")
    c.check(a["spearman_rho"] is None and a["spearman_p"] is None,
            "no Spearman rho for a sorted file", str(a["spearman_rho"]))
    c.check(r["order"] == "run" and "drift" in kinds(r) and r["spearman_rho"] > 0.9,
            "an unsorted rising file still warns of drift", f"{r['order']} {kinds(r)}")

    text = h.netab_cmd(netab, "stats", "--no-plot", sorted_up, rising).stdout
    c.check(f"{sorted_up}: values in ascending order, as if sorted" in text
            and "values rise with run order" in text and text.count("values rise") == 1,
            "the text says sorted for the sorted file and drift for the rising one", text[-600:])

    unk = h.netab_cmd(netab, "stats", "--json", "--order", "unknown", sorted_up, rising).doc
    c.check(all(s["order"] == "unknown" and s["spearman_rho"] is None
                and not {"drift", "sorted"} & set(kinds(s)) for s in unk["sets"]),
            "--order unknown: no drift, no sorted, no rho", str([kinds(s) for s in unk["sets"]]))
    run = h.netab_cmd(netab, "stats", "--json", "--order", "run", sorted_up, rising).doc
    dflt = h.netab_cmd(netab, "stats", "--json", sorted_up, rising).doc
    c.check(run == dflt, "--order run is the default")
    r = h.netab_cmd(netab, "stats", "--order", "sorted", sorted_up, rising, expect_rc=2)
    c.check("--order: 'sorted' is not one of run, unknown" in r.stderr, "a bad --order is refused",
            r.stderr)


def check_names(netab, c, d):
    base = write(d, "base.txt", [100, 101, 99, 100.5, 99.5, 100.2])
    new = write(d, "new.txt", [90, 91, 89, 90.5, 89.5, 90.2])
    doc = h.netab_cmd(netab, "stats", "--json", f"linux-6.1={base}", f"patched={new}").doc
    c.check([s["name"] for s in doc["sets"]] == ["linux-6.1", "patched"],
            "JSON sets carry the names", str([s["name"] for s in doc["sets"]]))
    cmp = doc["comparisons"][0]
    c.check(cmp["baseline"] == "linux-6.1" and cmp["other"] == "patched",
            "the comparison names both sets")
    text = h.netab_cmd(netab, "stats", f"linux-6.1={base}", f"patched={new}").stdout
    c.check("patched vs x linux-6.1 (baseline)" in text and base not in text,
            "the text shows names, not files", text[:400])
    csv = h.netab_cmd(netab, "stats", "--csv", f"linux-6.1={base}", f"patched={new}").stdout
    c.check("\nlinux-6.1,6," in csv and "\nlinux-6.1,patched," in csv, "the CSV shows names", csv)

    # Files whose names hold '='.
    odd = write(d, "k=v.txt", [100, 101, 99, 100.5, 99.5, 100.1])
    doc = h.netab_cmd(netab, "stats", "--json", odd, f"new={new}").doc
    c.check(doc["sets"][0]["name"] == odd, "a path with '/' before '=' is a file",
            doc["sets"][0]["name"])
    r = h.netab_cmd(netab, "stats", f"a={base}", f"a={new}", expect_rc=2)
    c.check("two sets would be shown as 'a'" in r.stderr, "two sets of one name are refused",
            r.stderr)


def check_bad_name(netab, c, d):
    """NAME=FILE whose NAME breaks the rule is named with the rule, not "cannot open"."""
    base = write(d, "plain.txt", [100, 101, 99, 100.5, 99.5, 100.2])
    r = h.netab_cmd(netab, "stats", f"align+align={base}", expect_rc=2)
    c.check(f"'align+align={base}': 'align+align' is not a set name (NAME=FILE: a NAME is 1 to 64"
            in r.stderr and "cannot open" not in r.stderr,
            "a bad set name is named with the rule", r.stderr)


def check_marks(netab, c, d):
    """Every set up to the bound has its own mark; one set more is refused (issue 34)."""
    paths = [write(d, f"m{i}.txt", [100 + i, 101 + i, 99 + i, 100.5 + i]) for i in range(36)]
    text = h.netab_cmd(netab, "stats", *paths[:35]).stdout
    rows = [ln for ln in text.splitlines() if ln.endswith(tuple(f"m{i}.txt" for i in range(36)))
            and ln[:1] != " "]
    marks = [ln[0] for ln in rows]
    c.check(len(marks) == 35 and len(set(marks)) == 35,
            "35 sets: 35 different marks in the summary table", "".join(marks))
    c.check(not set(marks) & set(" |_AM"), "no mark is a bar's character", "".join(marks))
    r = h.netab_cmd(netab, "stats", *paths, expect_rc=2)
    c.check("36 sets given; netab stats compares at most 35" in r.stderr,
            "36 sets are refused with the bound", r.stderr)


def check_ambiguous_in_dir(netab, c, d):
    """In the directory of the files, 'n=new.txt' is both a file and a named set."""
    write(d, "n=new.txt", [1])
    old = os.getcwd()
    os.chdir(d)
    try:
        r = h.netab_cmd(netab, "stats", "base.txt", "n=new.txt", expect_rc=2)
        c.check("'n=new.txt' is both a file and the set n from the file new.txt; write "
                "./n=new.txt for the file or n=./new.txt for the named set" in r.stderr,
                "an argument that is both a file and NAME=FILE is refused", r.stderr)
        r = h.netab_cmd(netab, "stats", "--json", "base.txt", "n=./new.txt")
        c.check(r.doc["sets"][1]["name"] == "n", "NAME=./FILE names the set")
        r = h.netab_cmd(netab, "stats", "base.txt", "./n=new.txt", expect_rc=2)
        # The file n=new.txt holds one value (new.txt six): the message proves which was read.
        c.check("./n=new.txt: only one value" in r.stderr,
                "./NAME=FILE reads the file of that name", r.stderr)
    finally:
        os.chdir(old)


def check_mannwhitney(netab, c, d):
    with open(os.path.join(DATA, "mwu_reference.json")) as f:
        pairs = json.load(f)["pairs"]
    # 32 vs 5 and 5 vs 32 (exact, one side small), then an exact, a tied and a large pair.
    chosen = [0, 1]
    chosen.append(next(i for i, p in enumerate(pairs) if p["exact"] and i > 1))
    chosen.append(next(i for i, p in enumerate(pairs)
                       if not p["exact"] and len(set(p["a"] + p["b"])) < len(p["a"] + p["b"])))
    chosen.append(next(i for i, p in enumerate(pairs) if len(p["a"]) > 30 and len(p["b"]) > 30))
    for i in chosen:
        p = pairs[i]
        a = write(d, f"mw{i}_a.txt", p["a"])
        b = write(d, f"mw{i}_b.txt", p["b"])
        cmp = h.netab_cmd(netab, "stats", "--json", a, b).doc["comparisons"][0]
        rel = abs(cmp["mannwhitney_p"] - p["p"]) / p["p"]
        c.check(rel <= 1e-9 and cmp["mannwhitney_exact"] == p["exact"]
                and cmp["mannwhitney_u"] == p["u"],
                f"pair {i} ({len(p['a'])} vs {len(p['b'])}, {'exact' if p['exact'] else 'normal'}):"
                " netab stats --json p is scipy's", f"{cmp['mannwhitney_p']!r} vs {p['p']!r}")


def test(netab, c):
    with tempfile.TemporaryDirectory() as d:
        check_order(netab, c, d)
        check_names(netab, c, d)
        check_ambiguous_in_dir(netab, c, d)
        check_bad_name(netab, c, d)
        check_marks(netab, c, d)
        check_mannwhitney(netab, c, d)


if __name__ == "__main__":
    h.main(test)
