"""One judgement (issue 29): the same stored runs get the same deciding metric
and the same verdict from compare, report, history and bisect.

* tcp_rr and tcp_crr on loopback, two variants whose responses differ in size
  (1 byte against 256 KiB): the big answers cost transactions (connections)
  per second but carry far more bits per second, so a command that judged on
  throughput would call it "improved" where the test kind's figure says
  "regressed". compare --db records the runs; report on that experiment,
  history over the store and compare's own document must name transactions
  (connections), spell the direction "higher_is_better", and give the same
  verdict from the same runs.
* bisect of two commits with tcp_rr runs: its references (BAD against GOOD,
  both the same tree) are judged on transactions; report on the references'
  stored experiment names the same metric and verdict as bisect's JSON.
* Variants of test kinds judged on different figures, without --metric, are
  refused before anything runs, naming both figures.
"""
import json
import os
import shutil
import tempfile

from bisect_helpers import make_repo
from netab_helpers import check, check_eq, log, netab_cmd, run_main

DIRECTION = {"higher_is_better", "lower_is_better"}


def deciding_verdict(report, cell="default"):
    """The report's deciding metric of cell and the verdict of its second variant on it."""
    cells = {c["name"]: c for c in report["cells"]}
    metric = cells[cell]["deciding_metric"]
    rows = [r for r in report["results"]
            if r["cell"] == cell and r["metric"] == metric and r["comparison"]]
    check_eq(len(rows), 1, "one compared row of the deciding metric")
    return metric, rows[0]["comparison"]["verdict"]


def same_judgement(netab, tmp, test, decider):
    db = os.path.join(tmp, f"{test}.db")
    args = ["compare", "--db", db, "--json", "--runs", "5", "--seed", "7",
            "--variant", "small", "--variant", "big", "--opts", "--resp-size 256K",
            "--", "--test", test, "-t", "0.3"]
    doc = netab_cmd(netab, *args, expect_rc=(0, 1), timeout=300).doc
    check_eq(doc["metric"], decider, f"{test}: compare decides on {decider}")
    deciding = [m for m in doc["metrics"] if m["decides"]]
    check_eq([m["name"] for m in deciding], [decider], f"{test}: compare's deciding metric")
    check(all(m["direction"] in DIRECTION for m in doc["metrics"]),
          f"{test}: compare spells every direction one way", [m["direction"] for m in doc["metrics"]])
    verdict = doc["verdicts"][0]["verdict"]
    # Judged on bit/s this would be "improved"; on the test kind's figure it cannot be.
    check(verdict in ("regressed", "no difference proven"), f"{test}: 256 KiB answers do not "
          f"improve {decider}", verdict)
    exit_status = 1 if verdict == "regressed" else 0
    check_eq(doc["exit_status"], exit_status, f"{test}: compare's exit status")

    report = json.loads(netab_cmd(netab, "report", "1", "--db", db, "--format", "json",
                                  expect_rc=exit_status).stdout)
    metric, rverdict = deciding_verdict(report)
    check_eq(metric, decider, f"{test}: report decides on {decider}")
    check_eq(rverdict, verdict, f"{test}: report's verdict is compare's")
    check(all(m["direction"] in DIRECTION for m in report["metrics"]),
          f"{test}: report spells every direction one way")
    check_eq(report["exit_status"], exit_status, f"{test}: report exits as compare does")
    means = {r["variant"]: r["mean"] for r in report["results"]
             if r["cell"] == "default" and r["metric"] == decider}
    check(means["big"] < means["small"], f"{test}: big answers cost {decider} (means)", means)

    hist = json.loads(netab_cmd(netab, "history", "--db", db, "--json").stdout)
    check_eq(hist["metric"], decider, f"{test}: history follows {decider}")
    check_eq(hist["direction"], "higher_is_better", f"{test}: history's direction")
    means = {s["variant"]: s["points"][0]["value"] for s in hist["series"]}
    rmeans = {r["variant"]: r["mean"] for r in report["results"]
              if r["metric"] == decider and r["cell"] == "default"}
    for v, m in means.items():
        check(abs(m - rmeans[v]) <= 1e-9 * abs(m), f"{test}: history's {v} is report's mean",
              m, rmeans[v])
    log(f"ok: {test}: compare, report and history judge {decider}: {verdict}")


def bisect_same(netab, tmp):
    db = os.path.join(tmp, "bisect.db")
    repo, hashes = make_repo(tmp, 2, lambda k: {"f": f"{k}\n"})
    here = os.getcwd()
    os.chdir(repo)  # bisect works on the git tree it runs in
    try:
        r = netab_cmd(netab, "bisect", "run", "--good", hashes[1], "--bad", hashes[2], "--db",
                      db, "--runs", "4", "--max-runs", "4", "--seed", "3", "--json", "--",
                      "--test", "tcp_rr", "-t", "0.3", expect_rc=(0, 1, 2), timeout=300)
    finally:
        os.chdir(here)
    # Experiment 1 is the session's record, 2 its references ("bisect 1 refs").
    report = json.loads(netab_cmd(netab, "report", "2", "--db", db, "--format", "json",
                                  expect_rc=(0, 1)).stdout)
    check_eq(report["experiment"]["name"], "bisect 1 refs", "experiment 2 is the references")
    metric, verdict = deciding_verdict(report, report["cells"][0]["name"])
    check_eq(metric, "transactions", "report on bisect's references decides on transactions")
    if r.returncode == 2:
        # Refused: GOOD and BAD are the same tree, so their runs did not differ beyond the floor.
        check("transactions" in r.stderr, "bisect's refusal and progress name transactions",
              r.stderr)
        check(verdict not in ("regressed", "improved"),
              "report agrees that the references do not differ", verdict)
    else:
        refs = r.doc["references"]
        check_eq(refs["metric"], "transactions", "bisect judges tcp_rr on transactions")
        check_eq(refs["verdict"], verdict, "report's verdict is bisect's")
    log(f"ok: bisect (exit {r.returncode}) and report judge the references on transactions: "
        f"{verdict}")


def mixed_kinds(netab):
    r = netab_cmd(netab, "compare", "--variant", "rr", "--opts", "--test tcp_rr", "--variant",
                  "stream", "--opts", "--test tcp_stream", "--", "-t", "0.3", expect_rc=2)
    check("judged on different figures (transactions, throughput)" in r.stderr
          and "--metric" in r.stderr, "mixed kinds are refused naming both figures", r.stderr)


def body(netab):
    tmp = tempfile.mkdtemp(prefix="netab-judge-")
    try:
        mixed_kinds(netab)
        same_judgement(netab, tmp, "tcp_rr", "transactions")
        same_judgement(netab, tmp, "tcp_crr", "connections")
        bisect_same(netab, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


run_main(body)
