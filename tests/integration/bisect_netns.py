#!/usr/bin/env python3
"""netab bisect on a real measured property: a throwaway git repository of 16
commits whose setup.sh caps a namespace pair's veth with tbf, 800 Mbit/s up to
commit 10 and 400 Mbit/s from commit 11 on.

Checks (docs/bisect.md): `netab bisect run` names commit 11, exits 0, leaves
the work tree clean with no bisection in progress, and its --json has
first_bad; every step is an experiment `netab report` shows; `git bisect run
netab bisect step` ends on commit 11; two commits of the same rate are
refused as not different; a build that fails at one commit skips
that commit (with the build's output) and still ends on commit 11 or names
the range, also when that bisection is killed with SIGKILL after two steps
and finished by `netab bisect resume`.

Needs root and network namespaces; skips (77) with the reason otherwise.
"""

import json
import os
import signal
import tempfile
import time

import bisect_helpers
from bisect_helpers import bisecting, git, make_repo
from netab_helpers import (NetnsPair, Server, check, check_eq, log, netab_cmd, require_root_netns,
                           run_cmd, run_main, sanitized, start)

RATES = {k: ("800mbit" if k <= 10 else "400mbit") for k in range(1, 17)}
# Few runs per side: tbf holds each rate within a fraction of a percent and
# the two differ by half, so two runs decide most steps (its 99% interval at
# the first of 5 looks is a few percent wide against a midpoint 25% away); on
# a loaded machine the looks at 3, 5, 8 and 12 rounds take more rather than
# skip a commit. The Done-when's bisection runs 1-second tests (-t 1) in the
# release build; the other cases, and the sanitizer build, half-second ones.
MEASURE = ["--runs", "2", "--max-runs", "12", "--seed", "7"]
LOOKS = (2, 3, 5, 8, 12)


# tbf's bucket: 2 MB (21 ms at 800 Mbit/s), so that a vCPU the hypervisor holds for tens of
# ms (steal, on the CI's virtual machines) does not lose that time to the link; a 256 KB
# bucket let such runs dip 10-20%. Its first burst adds 16 Mbit to each 1 s run (2% at 800,
# 4% at 400 Mbit/s), which the references' check below allows for.
BURST = "2mb"


def setup_files(dev):
    """Commit k's setup.sh caps dev with its rate; n.txt holds k."""
    return lambda k: {"setup.sh": f"tc qdisc replace dev {dev} root tbf rate {RATES[k]} "
                                  f"burst {BURST} latency 50ms\n",
                      "n.txt": f"{k}\n"}


def check_left_clean(repo, hashes, what):
    bisect_helpers.check_left_clean(repo, hashes[16], what)


def bisect_cmd(netab, db, extra=(), json_out=False):
    return [netab, "bisect", "run", "--good", "HEAD~15", "--bad", "main", "--db", db,
            "--setup", "sh setup.sh"] + MEASURE + list(extra) + (["--json"] if json_out else [])


def case_run(netab, ns, repo, hashes, run_opts, db):
    log("case: netab bisect run names commit 11")
    r = run_cmd(bisect_cmd(netab, db, json_out=True) + ["--"] + run_opts, netns=ns,
                timeout=600)
    doc = json.loads(r.stdout)
    check_eq(doc["first_bad"], hashes[11], "first_bad is commit 11")
    check_eq(doc["first_bad_subject"], "commit 11", "its subject")
    ref = doc["references"]
    log(f"  references: {ref['change_pct']:+.1f}% [{ref['change_ci_low_pct']:+.1f}, "
        f"{ref['change_ci_high_pct']:+.1f}]")
    # 400 against 800 Mbit/s: a halving, whatever the framing overhead (-49% with the bucket's
    # first burst; the margin is for a run that a busy host slowed anyway).
    check(-58 < ref["change_pct"] < -42, "BAD is about half of GOOD", ref)
    by_commit = {v: k for k, v in hashes.items()}
    for s in doc["steps"]:
        k = by_commit[s["commit"]]
        want = "bad" if k >= 11 else "good"
        log(f"  step: commit {k}: {s['change_pct']:+.1f}% -> {s['decision']}")
        check_eq(s["decision"], want, f"commit {k}'s decision")
        check(s["runs_commit"] in LOOKS, f"commit {k}: runs at a planned look", s)
    check(len(doc["steps"]) >= 3, "a bisection of 15 commits takes several steps")
    check_left_clean(repo, hashes, "bisect run")
    return doc


def case_no_difference(netab, ns, repo, hashes, run_opts, db):
    log("case: commits 1 and 10 (both 800 Mbit/s) do not differ: refused")
    cmd = [netab, "bisect", "run", "--good", hashes[1], "--bad", hashes[10], "--db", db,
           "--setup", "sh setup.sh", "--runs", "3", "--max-runs", "3", "--confidence", "99.9",
           "--"] + run_opts
    r = run_cmd(cmd, netns=ns, timeout=300, expect_rc=2)
    check("GOOD and BAD do not differ: " in r.stderr, "the refusal names the change",
          r.stderr[-1500:])
    check_left_clean(repo, hashes, "no difference")


def case_report(netab, db, doc):
    log("case: every step is an experiment netab report shows")
    exps = json.loads(netab_cmd(netab, "experiment", "list", "--db", db, "--json").stdout)
    names = {e["id"]: e["name"] for e in exps}
    for s in doc["steps"]:
        check(names.get(s["experiment"], "").startswith(f"bisect {doc['session']} step "),
              "the step's experiment is named after the session", s)
        r = netab_cmd(netab, "report", str(s["experiment"]), "--db", db, expect_rc=(0, 1))
        check(s["commit"][:12] in r.stdout, "the report names the commit's variant", r.stdout)
    log("case: netab history --by commit over the bisection's steps")
    r = netab_cmd(netab, "history", "--db", db, "--by", "commit", "--variant", "good", "--json",
                  expect_rc=(0, 1))
    labels = [p["label"] for p in json.loads(r.stdout)["series"][0]["points"]]
    check_eq(labels, [f"bisect {doc['session']} refs"] + [s["commit"][:12] for s in doc["steps"]],
             "GOOD's series: the references, then each step's commit")


def case_git_bisect_run(netab, ns, repo, hashes, run_opts, db):
    log("case: git bisect run netab bisect step ends on commit 11")
    git(repo, "bisect", "start", hashes[16], hashes[1])
    try:
        cmd = ["git", "-C", repo, "bisect", "run", netab, "bisect", "step", "--db", db,
               "--setup", "sh setup.sh"] + MEASURE + ["--"] + run_opts
        r = run_cmd(cmd, netns=ns, timeout=600)
        check(f"{hashes[11]} is the first bad commit" in r.stdout, "git names commit 11",
              r.stdout[-2000:])
    finally:
        git(repo, "bisect", "reset")
    check_left_clean(repo, hashes, "git bisect run")


def check_build_steps(doc, hashes):
    """Commit 12's build fails: skipped with its output; every other decision right."""
    by_commit = {v: k for k, v in hashes.items()}
    for s in doc["steps"]:
        k = by_commit[s["commit"]]
        log(f"  step: commit {k}: {s['decision']}: {s['reason'] or ''}")
        failed = "build failed" in (s["reason"] or "")
        check_eq(failed, k == 12, f"commit {k}: a build failure exactly at commit 12")
        if k == 12:
            check_eq(s["decision"], "skip", "commit 12 is skipped, not called bad")
            check("cc: error in 12" in s["reason"], "the build's last lines are shown", s)
            check_eq(s["runs_commit"], 0, "a commit that does not build is not measured")
        elif s["decision"] != "skip":
            # A skip of another commit can only be an undecided interval (noise).
            check_eq(s["decision"], "bad" if k >= 11 else "good", f"commit {k}'s decision")


def case_build_failure_kill_resume(netab, ns, repo, hashes, run_opts, db):
    log("case: a build failing at commit 12; kill -9 after two steps; netab bisect resume")
    build = ["--build", 'test "$(cat n.txt)" != 12 || { echo "cc: error in 12"; exit 1; }']
    p = start(bisect_cmd(netab, db, build) + ["--"] + run_opts, netns=ns)
    deadline = time.monotonic() + 400
    while "step 3:" not in p.stderr_text() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    check(p.poll() is None, "the bisection was still running at step 3", p.stderr_text())
    p.kill_group(signal.SIGKILL)
    p.finish(expect_rc=-signal.SIGKILL)
    check(bisecting(repo), "the killed bisection left git bisecting (what resume must undo)")
    r = run_cmd([netab, "bisect", "resume", "--db", db, "--json"], netns=ns, timeout=600,
                expect_rc=(0, 1))
    doc = json.loads(r.stdout)
    check(len(doc["steps"]) >= 3, "resume shows the steps made before the kill too", doc)
    check("(from the store)" in r.stderr, "resume replays the stored steps", r.stderr[-2000:])
    check_build_steps(doc, hashes)
    if r.returncode == 0:
        check_eq(doc["first_bad"], hashes[11], "first_bad is commit 11")
    else:
        check(hashes[11] in doc["candidates"], "the remaining range holds commit 11", doc)
    check_left_clean(repo, hashes, "resume")


def body(netab):
    require_root_netns(tools=("ip", "tc", "git"))
    with tempfile.TemporaryDirectory(prefix="netab-bisect-") as root, NetnsPair("bs") as net:
        repo, hashes = make_repo(root, 16, setup_files(net.dev_b))
        db = os.path.join(root, "bisect.db")
        with Server(netab, netns=net.ns_a, bind=net.addr_a) as srv:
            run_opts = ["-c", net.addr_a, "-p", str(srv.port), "-t", "1"]
            short = run_opts[:-1] + ["0.5"]
            os.chdir(repo)
            try:
                # The sanitizer build bisects with the half-second runs too: the same steps,
                # 10 s less of measuring (tests/integration/meson.build).
                doc = case_run(netab, net.ns_b, repo, hashes,
                               short if sanitized(netab) else run_opts, db)
                case_report(netab, db, doc)
                case_no_difference(netab, net.ns_b, repo, hashes, short, db)
                case_git_bisect_run(netab, net.ns_b, repo, hashes, short, db)
                case_build_failure_kill_resume(netab, net.ns_b, repo, hashes, short, db)
            finally:
                os.chdir(root)
            check(srv.alive(), "server died")


run_main(body)
