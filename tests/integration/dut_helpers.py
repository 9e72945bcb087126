"""A device under test for the integration tests: Debian's OpenSSH server in
a network namespace (NetnsPair's ns_b, 198.18.0.2) with a throwaway host key
and an authorized key made here, an identity file that `dut.identity` reads,
and a boot script that simulates a kernel's boot honestly (the DUT's netab
server goes down with the old kernel, the new identity appears). Shared by
dut_ssh.py (campaigns) and bisect_dut.py (netab bisect --experiment).
NetnsStar joins one controller namespace to several DUT namespaces (dut_multi.py).
"""
import os
import signal
import time

from netab_helpers import check, run_cmd, sh, start
from netab_helpers import TestFailure, log, need_tools

SSHD = "/usr/sbin/sshd"
PORT = 5301


class Dut:
    """The DUT's sshd, keys, identity file and boot script, all under tmp.

    pair is anything with ns_a (the controller's namespace), ns_b (the DUT's)
    and addr_b (the DUT's address): a NetnsPair or one of NetnsStar's links.
    """

    def __init__(self, tmp, pair):
        self.tmp, self.pair = tmp, pair
        self.ident = os.path.join(tmp, "ident")
        self.boots = os.path.join(tmp, "boots.log")
        self.slow = os.path.join(tmp, "slow-boot")
        self.release = os.path.join(tmp, "boot-release")
        self.key = os.path.join(tmp, "client_key")
        self.known = os.path.join(tmp, "known_hosts")
        self.sshd = None

    def setup(self):
        t = self.tmp
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(t, "host_key"))
        sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.key)
        with open(self.key + ".pub") as f, open(os.path.join(t, "authorized_keys"), "w") as g:
            g.write(f.read())
        with open(os.path.join(t, "sshd_config"), "w") as f:
            f.write(f"""ListenAddress {self.pair.addr_b}
Port 22
HostKey {t}/host_key
PidFile {t}/sshd.pid
AuthorizedKeysFile {t}/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxSessions 50
MaxStartups 50
LogLevel INFO
""")
        # The DUT's netab server, found by its listening socket in the DUT's own namespace.
        with open(os.path.join(t, "kill-server.sh"), "w") as f:
            f.write(f"""#!/bin/sh
for p in $(ss -Hltnp 'sport = :{PORT}' | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
    kill "$p"
done
""")
        os.chmod(os.path.join(t, "kill-server.sh"), 0o755)
        # The boot of a simulated kernel: the server goes down with the old kernel, the new
        # identity appears.
        with open(os.path.join(t, "boot.sh"), "w") as f:
            f.write(f"""#!/bin/sh
echo "begin $1 $NETAB_VARIANT $NETAB_SEQ" >> {self.boots}
{t}/kill-server.sh
if [ -e {self.slow} ]; then
    # A slow boot during which the DUT is gone from the network, as a real one is: ssh's
    # packets are dropped (no answer at all, not a refusal) until the new kernel is up.
    nft add table inet netab_down
    nft add chain inet netab_down input '{{ type filter hook input priority 0; }}'
    nft add rule inet netab_down input tcp dport 22 drop
    echo "down $1" >> {self.boots}
    # Until the test lets the new kernel come up (at most 60 s).
    i=0
    while [ ! -e {self.release} ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    echo "$1" > {self.ident}
    nft delete table inet netab_down
else
    echo "$1" > {self.ident}
fi
echo "end $1" >> {self.boots}
""")
        os.chmod(os.path.join(t, "boot.sh"), 0o755)
        with open(self.ident, "w") as f:
            f.write("kernel-none\n")
        self.start_sshd()

    def start_sshd(self):
        """Starts the DUT's sshd (again, after kill_all) and waits until ssh logs in."""
        t = self.tmp
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
        self.sshd = start([SSHD, "-D", "-e", "-f", os.path.join(t, "sshd_config")],
                          netns=self.pair.ns_b)
        deadline = time.monotonic() + 20
        while True:
            r = run_cmd(["ssh"] + self.ssh_opts() + ["--", self.dest(), "true"],
                        netns=self.pair.ns_a, expect_rc=range(0, 256), timeout=20)
            if r.returncode == 0:
                break
            check(self.sshd.alive(), "sshd exited", self.sshd.stderr_text())
            check(time.monotonic() < deadline, "sshd does not answer", r.stderr)
            time.sleep(0.2)

    def dest(self):
        return f"root@{self.pair.addr_b}"

    def ssh_opts(self, key=None):
        return ["-i", key or self.key, "-o", f"UserKnownHostsFile={self.known}", "-o",
                "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes"]

    def boot_lines(self):
        if not os.path.exists(self.boots):
            return []
        with open(self.boots) as f:
            return [line.split() for line in f if line.startswith("begin")]

    def down_lines(self):
        """The slow boots that have taken the DUT off the network (ssh's port dropped)."""
        if not os.path.exists(self.boots):
            return []
        with open(self.boots) as f:
            return [line.split() for line in f if line.startswith("down")]

    def reset(self, identity="kernel-none"):
        with open(self.ident, "w") as f:
            f.write(identity + "\n")
        if os.path.exists(self.boots):
            os.unlink(self.boots)

    def server_listening(self):
        out = sh("ss", "-Hltn", f"sport = :{PORT}", netns=self.pair.ns_b)
        return bool(out.strip())

    def kill_all(self):
        """The DUT dies: every process in its namespace (sshd, its sessions, netab server)."""
        for pid in sh("ip", "netns", "pids", self.pair.ns_b, check_rc=False).split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        if self.sshd:
            self.sshd.finish(expect_rc=(-signal.SIGKILL,), timeout=10)
            self.sshd = None

    def stop(self):
        if self.sshd and self.sshd.alive():
            self.sshd.send(signal.SIGTERM)
            self.sshd.finish(expect_rc=(0, 255, -signal.SIGTERM), timeout=10)




class Link:
    """One DUT of a NetnsStar: the controller's namespace and address, the DUT's."""

    def __init__(self, ns_a, ns_b, addr_a, addr_b):
        self.ns_a, self.ns_b, self.addr_a, self.addr_b = ns_a, ns_b, addr_a, addr_b


class NetnsStar:
    """A controller namespace joined by a veth pair to each of n DUT namespaces: link i is
    198.18.i.1/24 (controller) <-> 198.18.i.2/24 (DUT i), i from 1. Deleting the namespaces
    deletes the veths, qdiscs and nft tables, so __exit__ removes everything, also on failure."""

    def __init__(self, tag, n):
        pid = os.getpid()
        self.ns_ctl = f"netab-{tag}-c-{pid}"
        self.links = [Link(self.ns_ctl, f"netab-{tag}-{i}-{pid}", f"198.18.{i}.1", f"198.18.{i}.2")
                      for i in range(1, n + 1)]
        self.devs = [(f"nb{pid % 100000}{tag[:2]}c{i}"[:15], f"nb{pid % 100000}{tag[:2]}d{i}"[:15])
                     for i in range(1, n + 1)]
        self.created = []

    def __enter__(self):
        try:
            need_tools("ip", "ping")
            for ns in [self.ns_ctl] + [lk.ns_b for lk in self.links]:
                sh("ip", "netns", "add", ns)
                self.created.append(ns)
                sh("ip", "link", "set", "lo", "up", netns=ns)
            for lk, (dev_c, dev_d) in zip(self.links, self.devs):
                sh("ip", "link", "add", dev_c, "netns", self.ns_ctl, "type", "veth", "peer",
                   "name", dev_d, "netns", lk.ns_b)
                for ns, dev, addr in ((self.ns_ctl, dev_c, lk.addr_a), (lk.ns_b, dev_d, lk.addr_b)):
                    sh("ip", "addr", "add", addr + "/24", "dev", dev, netns=ns)
                    sh("ip", "link", "set", dev, "up", netns=ns)
                sh("ping", "-c", "1", "-W", "5", lk.addr_b, netns=self.ns_ctl)
        except BaseException:
            self.cleanup()
            raise
        return self

    def cleanup(self):
        for ns in reversed(self.created):
            try:
                sh("ip", "netns", "del", ns)
            except TestFailure as e:
                log(f"warning: cannot delete namespace {ns}: {e}")
        self.created = []

    def __exit__(self, *exc):
        self.cleanup()
        return False
