"""`netab compare --pairs all`: every pair of variants on the deciding metric,
Bonferroni-corrected as `netab report --pairs all` does.

* A real 3-variant loopback compare (three send sizes, --runs 3, -t 0.3):
  exactly 3 pairs, each p_bonferroni = min(1, 3 x welch_p), every interval at
  the corrected 98.33 % (the baseline comparisons too, which are the pairs
  whose first variant is the baseline), and the exit status from the
  baseline verdicts; the text report of the same command states the
  correction and shows 3 pair lines whose corrected p is 3 x the raw one.
* Deterministic --cmd variants (one counter per variant, so the values do
  not depend on the shuffled order): the text's p and corrected p are the
  JSON's raw p and min(1, 3p) of the same comparison, digit for digit.
* Two variants: one pair, no correction; --until-ci composes the looks'
  correction with the pairs'; --pairs baseline and no --pairs leave the
  members out; --pairs foo exits 2 naming the accepted values.
* --until-ci with --pairs all judges every pair's interval: a baseline far
  above two noisy variants makes the baseline comparisons narrow (the target
  is met at the first look without --pairs all) while the pair of the two
  noisy variants stays wide, so with --pairs all every planned look is made
  and the target is reported as not reached.
"""
import os
import re
import shutil
import tempfile

from netab_helpers import check, check_eq, log, netab_cmd, run_main

PAIR_RE = re.compile(r"^  (\S+) -> (\S+): .* p=(\S+) \(x(\d+): (\S+)\) (.+)$")
CORRECTED = 1 - 0.05 / 3


def close(a, b, what):
    check(abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b)), what, a, b)


def check_doc(doc, names):
    """The JSON's pairs against its own comparisons with the baseline and its exit status."""
    corr = doc["correction"]
    check_eq(corr["method"], "bonferroni", "correction method")
    check_eq(corr["pairs"], 3, "pairs per cell")
    close(corr["family_confidence"], 0.95, "family confidence")
    close(corr["comparison_confidence"], CORRECTED, "corrected level")
    close(doc["schedule"]["confidence_used"], CORRECTED, "confidence used")
    pairs = doc["pairs"]
    want = [(names[0], names[1]), (names[0], names[2]), (names[1], names[2])]
    check_eq([(p["a"], p["b"]) for p in pairs], want, "exactly the 3 pairs, a before b")
    for p in pairs:
        check_eq(p["metric"], doc["metric"], "a pair is on the deciding metric")
        close(p["p_bonferroni"], min(1.0, 3 * p["welch_p"]), "p_bonferroni = min(1, 3p)")
    deciding = [m for m in doc["metrics"] if m["decides"]][0]
    close(deciding["stats"]["confidence"], CORRECTED, "the baseline comparisons are corrected")
    cmps = {c["other"]: c for c in deciding["stats"]["comparisons"]}
    for p in pairs[:2]:
        c = cmps[p["b"]]
        close(p["welch_p"], c["welch_p"], "a baseline pair is the baseline comparison")
        check_eq(p["verdict"], c["verdict"], "baseline pair's verdict")
    verdicts = [v["verdict"] for v in doc["verdicts"]]
    check_eq(verdicts, [pairs[0]["verdict"], pairs[1]["verdict"]], "verdicts are the baseline's")
    check_eq(doc["exit_status"], 1 if "regressed" in verdicts else 0, "exit status from verdicts")
    return pairs


def text_pairs(text):
    """The pair lines of the text report (wrapped continuation lines joined)."""
    check("Bonferroni over the 3 pairs of each cell: every interval (here and in" in text
          and "is at 98.33% and every p is multiplied by 3 before" in text
          and "so that each cell's family of comparisons is" in text, "correction stated", text)
    sec = text.split("Every pair, deciding metric: change of the second against the first.\n")[1]
    sec = sec.split("\n\n")[0]
    lines = []
    for line in sec.splitlines():
        if line.startswith("      "):
            lines[-1] += " " + line.strip()
        elif line.startswith("  ") and " -> " in line:
            lines.append(line)
    found = [PAIR_RE.match(line) for line in lines]
    check(all(found), "pair lines have their shape", lines)
    check_eq(len(found), 3, "3 pair lines")
    return found


def loopback(netab):
    names = ["big", "mid", "small"]
    args = ["--runs", "3", "--seed", "11", "--pairs", "all", "--no-plot",
            "--variant", "big", "--opts", "-l 128K", "--variant", "mid", "--opts", "-l 8K",
            "--variant", "small", "--opts", "-l 512", "--", "-t", "0.3"]
    r = netab_cmd(netab, "compare", "--json", *args, expect_rc=(0, 1), timeout=120)
    doc = r.doc
    check_doc(doc, names)
    check_eq(r.returncode, doc["exit_status"], "exit status")
    t = netab_cmd(netab, "compare", *args, expect_rc=(0, 1), timeout=120)
    check("98.3333% intervals" in t.stdout, "the baseline comparisons are at 98.33%")
    for m in text_pairs(t.stdout):
        p, k, q = float(m.group(3)), int(m.group(4)), float(m.group(5))
        check_eq(k, 3, "multiplied by 3")
        # Both are shown to 2 significant digits: allow the rounding of each.
        check(abs(q - min(1.0, 3 * p)) <= 0.05 * max(q, 3 * p) + 1e-300, "shown p x 3", m.group(0))
    results = re.findall(r"^result: \S+ vs big: \S+ (.+?), ", t.stdout, re.M)
    check_eq(len(results), 2, "two baseline results")
    check_eq(t.returncode, 1 if "regressed" in results else 0, "text exit status from results")
    log("ok: loopback, 3 variants:", [p["verdict"] for p in doc["pairs"]])


def counter_cmd(d, name, base, spread):
    """A command printing base + a spread-out value from a counter of its own."""
    f = os.path.join(d, name)
    return (f"n=$(($(cat {f} 2>/dev/null || echo 0) + 1)); echo $n >{f}; "
            f"echo value $(({base} + n * 37 % {spread}))")


def deterministic(netab, d):
    def args(sub):
        os.makedirs(os.path.join(d, sub))
        e = os.path.join(d, sub)
        return ["compare", "--runs", "4", "--seed", "3", "--pairs", "all", "--no-plot",
                "--metric-regex", "value ([0-9]+)",
                "--variant", "x", "--cmd", counter_cmd(e, "x", 1000, 23),
                "--variant", "y", "--cmd", counter_cmd(e, "y", 990, 29),
                "--variant", "z", "--cmd", counter_cmd(e, "z", 900, 31)]
    j = netab_cmd(netab, *args("json"), "--json", expect_rc=(0, 1))
    pairs = check_doc(j.doc, ["x", "y", "z"])
    t = netab_cmd(netab, *args("text"), expect_rc=j.returncode)
    for m, p in zip(text_pairs(t.stdout), pairs):
        check_eq((m.group(1), m.group(2)), (p["a"], p["b"]), "same pair")
        check_eq(m.group(3), "%.2g" % p["welch_p"], "text p is the JSON's raw p")
        check_eq(m.group(5), "%.2g" % min(1.0, 3 * p["welch_p"]), "text p x 3 from the raw p")
        check_eq(m.group(6), p["verdict"], "text verdict")
    log("ok: text and JSON agree:", [p["verdict"] for p in pairs])


def edges(netab):
    two = ["compare", "--runs", "2", "--seed", "1", "--metric-regex", "value ([0-9]+)",
           "--variant", "a", "--cmd", "echo value 100", "--variant", "b", "--cmd",
           "echo value 90"]
    r = netab_cmd(netab, *two, "--pairs", "all", expect_rc=1)
    check("One pair: no correction is needed." in r.stdout, "two variants: one pair", r.stdout)
    check(re.search(r"^  a -> b: -10\.00% .* \(x1: 0\) regressed$", r.stdout, re.M),
          "the pair is shown", r.stdout)
    doc = netab_cmd(netab, *two, "--pairs", "all", "--json", expect_rc=1).doc
    check_eq(len(doc["pairs"]), 1, "one pair")
    check_eq(doc["correction"]["pairs"], 1, "one pair, k = 1")
    close(doc["correction"]["comparison_confidence"], 0.95, "no correction")
    for extra in ([], ["--pairs", "baseline"]):
        doc = netab_cmd(netab, *two, *extra, "--json", expect_rc=1).doc
        check("pairs" not in doc and "correction" not in doc, "no pairs with", extra)
    r = netab_cmd(netab, *two, "--pairs", "foo", expect_rc=2)
    check("--pairs: 'foo' is not all or baseline" in r.stderr, "bad --pairs named", r.stderr)
    three = ["compare", "--runs", "2", "--seed", "1", "--until-ci", "5", "--max-runs", "12",
             "--metric-regex", "value ([0-9]+)", "--pairs", "all"]
    for v in "pqr":
        three += ["--variant", v, "--cmd", "echo value 100"]
    doc = netab_cmd(netab, *three, "--json").doc
    looks = doc["schedule"]["looks_planned"]
    check(looks > 1, "several looks planned", looks)
    family = 1 - 0.05 / looks
    close(doc["correction"]["family_confidence"], family, "the looks' level is the family's")
    close(doc["correction"]["comparison_confidence"], 1 - (1 - family) / 3, "looks x pairs")
    close(doc["schedule"]["confidence_used"], 1 - (1 - family) / 3, "used: looks x pairs")
    r = netab_cmd(netab, *three)
    check("(Bonferroni over the looks and the pairs)" in r.stdout, "adaptive header", r.stdout)
    log("ok: two variants, --pairs baseline, --pairs foo, --until-ci")


def halfwidth(c, low, high):
    return max(c - low, high - c)


def until_ci_pairs(netab, d):
    def args(sub, *extra):
        e = os.path.join(d, sub)
        os.makedirs(e)
        return ["compare", "--runs", "2", "--seed", "1", "--until-ci", "5", "--max-runs", "12",
                "--metric-regex", "value ([0-9]+)", "--json", *extra,
                "--variant", "a", "--cmd", counter_cmd(e, "a", 1000, 3),
                "--variant", "b", "--cmd", counter_cmd(e, "b", 100, 29),
                "--variant", "c", "--cmd", counter_cmd(e, "c", 100, 31)]
    base = netab_cmd(netab, *args("baseline"), expect_rc=1).doc
    sched = base["schedule"]
    check_eq((sched["looks_done"], sched["rounds"], sched["target_reached"]), (1, 5, True),
             "baseline comparisons only: the target is met at the first look")
    deciding = [m for m in base["metrics"] if m["decides"]][0]
    for k in deciding["stats"]["comparisons"]:
        check(halfwidth(k["rel_change"], k["rel_change_ci_low"], k["rel_change_ci_high"]) <= 0.05,
              "a narrow baseline comparison", k)
    doc = netab_cmd(netab, *args("all", "--pairs", "all"), expect_rc=1).doc
    sched = doc["schedule"]
    check_eq((sched["looks_done"], sched["rounds"], sched["target_reached"]),
             (sched["looks_planned"], 12, False), "every pair: all looks, target not reached")
    check("the --until-ci target of +-5% was not reached in 12 rounds" in doc["exit_reason"],
          "exit reason says so", doc["exit_reason"])
    widths = {(p["a"], p["b"]): halfwidth(p["rel_change_pct"], p["rel_change_ci_low_pct"],
                                          p["rel_change_ci_high_pct"]) for p in doc["pairs"]}
    check(widths[("b", "c")] > 5 and widths[("a", "b")] <= 5 and widths[("a", "c")] <= 5,
          "only the pair of the noisy variants is wide", widths)
    log("ok: --until-ci --pairs all judges every pair:", widths)


def body(netab):
    d = tempfile.mkdtemp(prefix="netab-compare-pairs-")
    try:
        until_ci_pairs(netab, d)
        edges(netab)
        deterministic(netab, d)
        loopback(netab)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    run_main(body)
