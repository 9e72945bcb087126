"""Throwaway git repositories for the netab bisect tests (bisect_netns.py,
bisect_dut.py): commits whose files change a measured property, and the
checks that a bisection left the repository as it found it."""
import os

from netab_helpers import check, check_eq, run_cmd

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(repo, *args, expect_rc=0):
    return run_cmd(["git", "-C", repo] + list(args), env=GIT_ENV,
                   expect_rc=expect_rc).stdout.strip()


def bisecting(repo):
    """Whether a git bisect is in progress in repo (git bisect log exits 1 when not)."""
    return run_cmd(["git", "-C", repo, "bisect", "log"], expect_rc=(0, 1)).returncode == 0


def make_repo(root, n, files_of):
    """A repository of n commits on branch main; commit k ("commit k") holds files_of(k), a
    {name: text} mapping. Returns (path, {k: full hash})."""
    repo = os.path.join(root, "repo")
    os.mkdir(repo)
    git(repo, "init", "-q", "-b", "main")
    hashes = {}
    for k in range(1, n + 1):
        files = files_of(k)
        for name, text in files.items():
            with open(os.path.join(repo, name), "w") as f:
                f.write(text)
        git(repo, "add", *files)
        git(repo, "commit", "-q", "-m", f"commit {k}")
        hashes[k] = git(repo, "rev-parse", "HEAD")
    return repo, hashes


def check_left_clean(repo, head, what):
    """The work tree clean, no bisection in progress, main checked out at head."""
    check_eq(git(repo, "status", "--porcelain"), "", f"{what}: git status is clean")
    check(not bisecting(repo), f"{what}: no bisection is in progress")
    check_eq(git(repo, "rev-parse", "HEAD"), head, f"{what}: HEAD is back on main")
    check_eq(git(repo, "rev-parse", "--abbrev-ref", "HEAD"), "main", f"{what}: on branch main")
