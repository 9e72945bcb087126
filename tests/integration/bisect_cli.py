#!/usr/bin/env python3
"""netab bisect's refusals: each exits with its documented status and a
message naming what is wrong (before anything is measured, or when the
references cannot be measured because no server answers), and leaves the
repository as it was (no bisection started, nothing changed)."""

import os
import tempfile

from bisect_helpers import bisecting, git
from netab_helpers import check, check_eq, log, run_cmd, run_main


def refused(netab, args, rc, needle, what):
    r = run_cmd([netab, "bisect"] + args, expect_rc=rc)
    check(needle in r.stderr, f"{what}: the message names it", r.stderr)
    log(f"  {what}: {r.stderr.strip().splitlines()[-1]}")


def experiment_refusals(netab, root, db):
    """--experiment FILE: a file netab bisect cannot use is refused before anything runs."""
    base = ["run", "--good", "HEAD~2", "--bad", "main", "--db", db, "--experiment"]
    refused(netab, base + [os.path.join(root, "none.yaml")], 2, "none.yaml",
            "--experiment: no such file")
    dut = "dut:\n  ssh: root@198.18.0.2\n"
    variant = "variants:\n  - name: k\n    boot: kexec {0}\n    expect: '{1}'\n"
    cases = [
        ("no dut: section", "name: x\nvariants:\n  - name: k\n", "no dut: section"),
        ("a boot without {commit}", "name: x\n" + dut + variant.format("b", "-g{short}"),
         "its boot must name {commit} or {short}"),
        ("two variants", "name: x\n" + dut + variant.format("{commit}", "{short}") +
         "  - name: j\n    boot: x{commit}\n    expect: y\n", "2 variants"),
        ("runs: of the file", "name: x\nruns: 9\n" + dut + variant.format("{commit}", "{short}"),
         "use --runs"),
    ]
    for what, text, needle in cases:
        path = os.path.join(root, "x.yaml")
        with open(path, "w") as f:
            f.write(text)
        refused(netab, base + [path], 2, needle, f"--experiment: {what}")


def body(netab):
    with tempfile.TemporaryDirectory(prefix="netab-bisect-cli-") as root:
        db = os.path.join(root, "b.db")
        plain = os.path.join(root, "plain")
        os.mkdir(plain)
        os.chdir(plain)
        log("case: refusals")
        refused(netab, ["run", "--good", "a", "--bad", "b", "--db", db], 2,
                "is not a git work tree", "not a git work tree")
        repo = os.path.join(root, "repo")
        os.mkdir(repo)
        git(repo, "init", "-q", "-b", "main")
        for k in range(1, 4):
            with open(os.path.join(repo, "f"), "w") as f:
                f.write(f"{k}\n")
            git(repo, "add", "f")
            git(repo, "commit", "-q", "-m", f"c{k}")
        git(repo, "branch", "side", "HEAD~2")
        git(repo, "checkout", "-q", "side")
        with open(os.path.join(repo, "g"), "w") as f:
            f.write("side\n")
        git(repo, "add", "g")
        git(repo, "commit", "-q", "-m", "side")
        git(repo, "checkout", "-q", "main")
        head = git(repo, "rev-parse", "HEAD")
        os.chdir(repo)
        try:
            refused(netab, ["run", "--good", "side", "--bad", "main", "--db", db], 2,
                    "is not an ancestor of BAD", "GOOD not an ancestor of BAD")
            refused(netab, ["run", "--good", "nosuch", "--bad", "main", "--db", db], 2,
                    "'nosuch' is not a commit", "not a commit")
            refused(netab, ["run", "--good", "main", "--bad", "main", "--db", db], 2,
                    "the same commit", "GOOD is BAD")
            refused(netab, ["run", "--bad", "main", "--db", db], 2, "--good", "no --good")
            refused(netab, ["run", "--good", "HEAD~2", "--bad", "main", "--runs", "1"], 2,
                    "--runs: '1'", "bad --runs")
            refused(netab, ["run", "--good", "HEAD~2", "--bad", "main", "--bogus"], 2,
                    "--bogus", "unknown option")
            refused(netab, ["frob"], 2, "'frob'", "unknown subcommand")
            refused(netab, ["run", "--good", "HEAD~2", "--bad", "main", "--db", db, "--",
                            "-P", "0"], 2, "-P", "run options checked before anything runs")
            # git bisect run's contract: 128 stops it (not 1, which would mean "bad").
            refused(netab, ["step", "--db", db], 128, "no git bisect is in progress",
                    "step outside a bisection")
            refused(netab, ["resume", "--db", os.path.join(root, "none.db")], 2,
                    "none.db", "resume without a store")
            # Nothing answers on port 1: the references cannot be measured, which is an
            # error of the set-up, not a verdict on any commit.
            refused(netab, ["run", "--good", "HEAD~2", "--bad", "main", "--db", db, "--runs",
                            "2", "--max-runs", "2", "--", "-c", "127.0.0.1", "-p", "1", "-t",
                            "1"], 2, "the references could not be measured", "no server")
            experiment_refusals(netab, root, db)
            with open(os.path.join(repo, "f"), "w") as f:
                f.write("dirty\n")
            refused(netab, ["run", "--good", "HEAD~2", "--bad", "main", "--db", db], 2,
                    "uncommitted changes", "dirty tree")
            git(repo, "checkout", "-q", "f")
            git(repo, "bisect", "start", "main", "HEAD~2")
            refused(netab, ["run", "--good", "HEAD~2", "--bad", "main", "--db", db], 2,
                    "already in progress", "a bisection in progress")
            git(repo, "bisect", "reset")
            check_eq(git(repo, "rev-parse", "HEAD"), head, "HEAD unchanged")
            check_eq(git(repo, "status", "--porcelain"), "", "work tree clean")
            check(not bisecting(repo), "no bisection left in progress")
        finally:
            os.chdir(root)


run_main(body)
