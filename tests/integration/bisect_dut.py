#!/usr/bin/env python3
"""netab bisect --experiment FILE on a device under test with the real parts.

The DUT is Debian's OpenSSH server in a network namespace (dut_helpers.Dut);
netab bisect runs in the other namespace, reaches it with the system's ssh
client, starts `netab server` there and measures real traffic from it (-R)
across the veth pair. A throwaway repository of 6 commits is "a kernel":
--build installs commit k's kernel file as the DUT's vmlinuz-<commit> (the
DUT shares this machine's filesystem), and the experiment file's boot,
`sh boot.sh {commit}` run on the DUT, boots it: the DUT's netab server goes
down with the old kernel, the DUT's egress is capped by tbf at the kernel's
rate (800 Mbit/s up to commit 3, 400 Mbit/s from commit 4), and its
identity becomes kernel-<commit>, which expect '^kernel-{commit}$' checks.
Commit 5's kernel hangs the DUT: nothing answers on its ssh port again.

Checks (docs/bisect.md, "A device under test"):
1. netab bisect run: the references and step 1 (commit 3, good) are
   measured on their own kernels; step 2 (commit 5) loses the DUT: the step
   is marked lost on the commit's side with the DUT's reason, the bisection
   stops with exit 2 saying so (not "the references could not be
   measured"), its experiment is failed, the repository is left clean;
2. the DUT brought back ("power-cycled" into its default kernel), netab
   bisect resume replays step 1, skips commit 5 without booting it again,
   measures commit 4 (bad) and names it the first bad commit, exit 0;
3. every measured run of every step was taken on the kernel of its own side
   (its recorded dut_identity) and within that kernel's rate, and the runs
   on the 800 Mbit/s kernels were not capped at 400 (the boot switched what
   was measured).

Needs root, network namespaces, tc, nft, git and Debian's sshd.
"""
import json
import os
import statistics
import tempfile

from bisect_helpers import check_left_clean, make_repo
from dut_helpers import PORT, SSHD, Dut
from netab_helpers import (NetnsPair, check, check_eq, log, netab_cmd, need_tools,
                           require_root_netns, run_cmd, run_main, sh)

RATES = {k: ("800mbit" if k <= 3 else "400mbit") for k in range(1, 7)}
MBIT = {"800mbit": 800e6, "400mbit": 400e6}
LOST = 5  # the commit whose kernel never comes back
# tbf holds each rate within a fraction of a percent, so two runs a side decide most
# comparisons; the looks up to 6 rounds are there for a run that a loaded machine disturbed.
MEASURE = ["--runs", "2", "--max-runs", "6", "--seed", "5"]


def write_boot(dut, pair, kdir, netab):
    """The DUT's boot into the kernel --build installed for commit $1. Like a DUT with
    netab-server.service enabled (contrib/), the new kernel starts the DUT's netab server."""
    path = os.path.join(dut.tmp, "bisect-boot.sh")
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
k={kdir}/vmlinuz-$1
echo "begin $1" >> {dut.boots}
{dut.tmp}/kill-server.sh
read what rate < "$k" || exit 3
tc qdisc replace dev {pair.dev_b} root tbf rate "$rate" burst 256kb latency 50ms
if [ "$what" = panic ]; then
    # The kernel hangs: the DUT's ssh port answers nothing again (a reset, so that each
    # attempt fails at once rather than after ssh's ConnectTimeout).
    nft add table inet netab_panic
    nft add chain inet netab_panic input '{{ type filter hook input priority 0; }}'
    nft add rule inet netab_panic input tcp dport 22 reject with tcp reset
    exit 0
fi
echo "kernel-$1" > {dut.ident}
{netab} server -D -p {PORT} --pidfile {dut.tmp}/dut-server.pid
echo "end $1" >> {dut.boots}
""")
    return path


def experiment(dut, netab, boot, path):
    opts = " ".join(f'"{o}"' for o in dut.ssh_opts())
    with open(path, "w") as f:
        f.write(f"""name: kernels
dut:
  ssh: {dut.dest()}
  ssh_opts: '{opts}'
  netab: {netab}
  identity: cat {dut.ident}
  boot_timeout: 4
test:
  time: 0.3
  reverse: true
variants:
  - name: kernel
    boot: sh {boot} {{commit}}
    expect: '^kernel-{{commit}}$'
""")


def private_tmp(dut):
    """TMPDIR of this test's own: the DUT's shared ssh connection lives in
    $TMPDIR/netab-ssh-ID-PORT, named after the experiment's id, which another test's
    store on this machine may share at the same moment."""
    return {"TMPDIR": dut.tmp}


def boots_begun(dut):
    return [b[1] for b in dut.boot_lines()]


def power_cycle(dut, pair):
    """The DUT back on its default kernel: no rule, no cap, its own identity."""
    sh("nft", "delete", "table", "inet", "netab_panic", netns=pair.ns_b)
    sh("tc", "qdisc", "del", "dev", pair.dev_b, "root", netns=pair.ns_b, check_rc=False)
    dut.reset("kernel-none")


def case_lost(netab, pair, dut, repo, hashes, cmd):
    log("case: netab bisect run; commit 5's kernel never comes back")
    r = run_cmd(cmd, netns=pair.ns_a, timeout=300, expect_rc=2, env=private_tmp(dut))
    doc = json.loads(r.stdout)
    check_eq(doc["exit_status"], 2, "exit_status in the JSON")
    check_eq(doc["first_bad"], None, "no first bad commit yet")
    lost = doc["dut_lost"]
    check(lost is not None, "dut_lost is set", doc)
    check_eq((lost["commit"], lost["side"], lost["step"]), (hashes[LOST], "commit", 2),
             "the DUT was lost at step 2 on commit 5's own run")
    check("never came back" in lost["reason"] and "Connection" in lost["reason"],
          "the reason says so and quotes ssh", lost)
    steps = [(s["commit"], s["decision"]) for s in doc["steps"]]
    check_eq(steps, [(hashes[3], "good"), (hashes[LOST], "lost")], "the steps before the stop")
    check("the DUT never came back; the bisection stops" in r.stderr
          and "netab bisect resume" in r.stderr, "stderr says what happened and what next",
          r.stderr[-1500:])
    check("could not be measured" not in r.stderr, "not called a measurement failure")
    check_left_clean(repo, hashes[6], "after the DUT was lost")
    began = boots_begun(dut)
    check_eq(began.count(hashes[LOST]), 1, "commit 5's kernel was booted once")
    return doc


def case_resume(netab, pair, dut, repo, hashes, db):
    log("case: the DUT power-cycled; netab bisect resume skips commit 5 and ends on 4")
    before = len(dut.boot_lines())
    r = run_cmd([netab, "bisect", "resume", "--db", db, "--json"], netns=pair.ns_a,
                timeout=300, env=private_tmp(dut))
    doc = json.loads(r.stdout)
    check_eq(doc["first_bad"], hashes[4], "first_bad is commit 4")
    check_eq(doc["dut_lost"], None, "no DUT lost this time")
    steps = [(s["commit"], s["decision"]) for s in doc["steps"]]
    check_eq(steps, [(hashes[3], "good"), (hashes[LOST], "skip"), (hashes[4], "bad")],
             "step 1 replayed, commit 5 skipped, commit 4 measured")
    check("never came back" in doc["steps"][1]["reason"], "the skip says why", doc["steps"][1])
    check(hashes[LOST] not in boots_begun(dut)[before:], "commit 5 was not booted again")
    check_left_clean(repo, hashes[6], "resume")
    return doc


def check_runs(netab, db, doc, hashes):
    """Every ok run on its own side's kernel, at that kernel's rate."""
    log("case: every run's DUT identity and rate are its side's")
    by12 = {h[:12]: k for k, h in hashes.items()}
    side = {"good": 1, "bad": 6}
    exps = [doc["references"]["experiment"]] + [s["experiment"] for s in doc["steps"]]
    kernels, by_rate = set(), {}
    for xid in exps:
        r = netab_cmd(netab, "runs", "list", "--db", db, "--experiment", str(xid), "--json")
        runs = json.loads(r.stdout)
        runs = runs if isinstance(runs, list) else runs.get("runs", [])
        for run in runs:
            if run["status"] != "ok":
                continue
            k = side.get(run["variant"]) or by12[run["variant"]]
            kernels.add(k)
            check_eq(run.get("dut_identity"), f"kernel-{hashes[k]}",
                     f"experiment {xid} run {run['seq']}: the kernel of commit {k}")
            bps = run.get("receiver_bps") or 0
            rate = MBIT[RATES[k]]
            # The kernel's cap holds every run (an ASan build on a loaded machine may fall
            # well below it, never above).
            check(0 < bps < 1.02 * rate, f"experiment {xid} run {run['seq']}: within commit "
                  f"{k}'s rate", bps, rate)
            by_rate.setdefault(RATES[k], []).append(bps)
    check_eq(sorted(kernels), [1, 3, 4, 6], "runs measured on GOOD, BAD, commits 3 and 4")
    fast = statistics.median(by_rate["800mbit"])
    slow = statistics.median(by_rate["400mbit"])
    log(f"  median: {fast / 1e6:.0f} Mbit/s on the 800 Mbit/s kernels, {slow / 1e6:.0f} on the "
        "400 Mbit/s ones")
    check(fast > 1.1 * MBIT["400mbit"], "runs on the 800 Mbit/s kernels were not capped at 400",
          by_rate)


def body(netab):
    require_root_netns(("ip", "ss", "tc", "nft", "git"))
    need_tools("ssh", "ssh-keygen", SSHD)
    with tempfile.TemporaryDirectory(prefix="netab-bd-") as tmp, \
            NetnsPair("bd") as pair:
        dut = Dut(tmp, pair)
        try:
            dut.setup()
            kdir = os.path.join(tmp, "boot")
            os.mkdir(kdir)
            boot = write_boot(dut, pair, kdir, netab)
            path = os.path.join(tmp, "kernels.yaml")
            experiment(dut, netab, boot, path)
            repo, hashes = make_repo(tmp, 6, lambda k: {
                "kernel": f"{'panic' if k == LOST else 'ok'} {RATES[k]}\n", "n.txt": f"{k}\n"})
            db = os.path.join(tmp, "bisect.db")
            os.chdir(repo)
            try:
                cmd = [netab, "bisect", "run", "--good", "HEAD~5", "--bad", "main", "--db", db,
                       "--experiment", path, "--build",
                       f'cp kernel "{kdir}/vmlinuz-$NETAB_BISECT_COMMIT"', "--json"] + MEASURE
                case_lost(netab, pair, dut, repo, hashes, cmd)
                power_cycle(dut, pair)
                doc = case_resume(netab, pair, dut, repo, hashes, db)
                check_runs(netab, db, doc, hashes)
            finally:
                os.chdir(tmp)
        finally:
            for pid in sh("ip", "netns", "pids", pair.ns_b, check_rc=False).split():
                if dut.sshd is None or int(pid) != dut.sshd.pid:
                    try:
                        os.kill(int(pid), 15)
                    except (ProcessLookupError, ValueError):
                        pass
            dut.stop()


if __name__ == "__main__":
    run_main(body)
