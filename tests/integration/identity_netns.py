#!/usr/bin/env python3
"""Build identity of both ends, checked against what this test reads itself.

The kernel's build ID is parsed here from /sys/kernel/notes (ELF notes:
namesz, descsz, type, name and descriptor padded to 4 bytes; name "GNU",
type 3), independently of netab's C parser. Then:

- `netab env --identity` prints release, /proc/version, that build ID and
  /proc/cmdline, one "key: value" line each, in the documented order;
- `netab run -c` against a `netab server` in a network namespace (NetnsPair)
  records host.remote.identity (sent by the server in its result) with that
  build ID and os.uname()'s release, and the module of the server's veth
  (found the way `ethtool -i` finds it: veth has no device link);
- the zero set-up loopback run records both ends, lo without a module;
- `netab runs list --json` and `runs export` give the stored run's identity.

Needs root for the namespaces; skips (77) with the reason otherwise.
"""
import csv
import io
import json
import os
import struct
import sys
import tempfile

from netab_helpers import (NetnsPair, Server, check, check_eq, log, netab_cmd, netab_run,
                           require_root_netns, run_main)

NETAB = sys.argv[1]


def kernel_build_id():
    """The GNU build ID in /sys/kernel/notes as lower-case hex."""
    with open("/sys/kernel/notes", "rb") as f:
        data = f.read()
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from("=III", data, off)
        name_at = off + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        if kind == 3 and data[name_at:name_at + namesz] == b"GNU\0":
            return data[desc_at:desc_at + descsz].hex()
        off = desc_at + (descsz + 3) // 4 * 4
    raise AssertionError("no GNU build ID note in /sys/kernel/notes")


def printable(text):
    """/proc text as netab shows it: trailing whitespace off, bytes outside ASCII as '?'."""
    return "".join(c if " " <= c <= "~" else "?" for c in text.rstrip(" \t\n\0"))


def read_text(path):
    with open(path, "rb") as f:
        return printable(f.read().decode("latin-1"))


def check_env_identity(build_id):
    log("case: netab env --identity against /proc and /sys read here")
    r = netab_cmd(NETAB, "env", "--identity")
    lines = r.stdout.splitlines()
    keys = [line.split(":", 1)[0] for line in lines]
    check_eq(keys, ["release", "version", "build_id", "config_sha256", "cmdline", "module"],
             "the keys of --identity, in order")
    facts = dict(line.split(": ", 1) for line in lines)
    check_eq(facts["release"], os.uname().release, "release")
    check_eq(facts["version"], read_text("/proc/version"), "version is /proc/version")
    check_eq(facts["cmdline"], read_text("/proc/cmdline"), "cmdline is /proc/cmdline")
    check_eq(facts["build_id"], build_id, "build_id is /sys/kernel/notes' GNU note")
    check_eq(facts["module"], "none", "lo (the default interface) has no module")
    netab_cmd(NETAB, "env", "--identity", "--json", expect_rc=2)
    netab_cmd(NETAB, "env", "--identity", "--iface", "netab-nosuch0", expect_rc=2)
    doc = json.loads(netab_cmd(NETAB, "env", "--json").stdout)
    ident = doc["environment"]["identity"]
    check_eq(ident["build_id"], build_id, "env --json environment.identity.build_id")
    check_eq(ident["release"], os.uname().release, "env --json environment.identity.release")


def check_end(ident, build_id, iface, what):
    check(isinstance(ident, dict), f"{what}: an identity object", ident)
    check_eq(ident["build_id"], build_id, f"{what}.build_id")
    check_eq(ident["release"], os.uname().release, f"{what}.release")
    check_eq(ident["version"], read_text("/proc/version"), f"{what}.version")
    check_eq(ident["interface"], iface, f"{what}.interface")


def check_loopback(build_id):
    log("case: zero set-up loopback run: both ends on lo, no module")
    doc = netab_run(NETAB, ["-t", "0.3", "-i", "0"]).doc
    for end in ("local", "remote"):
        ident = doc["host"][end]["identity"]
        check_end(ident, build_id, "lo", f"host.{end}.identity")
        check(ident["module"] is None, f"host.{end}.identity.module is null for lo", ident)


def check_netns(build_id, db):
    log("case: netab run -c against netab server in a namespace, over veth")
    with NetnsPair("ident") as net:
        with Server(NETAB, netns=net.ns_a, bind=net.addr_a) as srv:
            r = netab_run(NETAB, ["-c", net.addr_a, "-p", str(srv.port), "-t", "0.5", "-i", "0",
                                  "--db", db], netns=net.ns_b)
            remote = r.doc["host"]["remote"]["identity"]
            check_end(remote, build_id, net.dev_a, "host.remote.identity")
            check_end(r.doc["host"]["local"]["identity"], build_id, net.dev_b,
                      "host.local.identity")
            # veth has no device link; the driver ethtool -i names is its module.
            check(isinstance(remote["module"], dict), "the server's veth has a module", remote)
            check_eq(remote["module"]["name"], "veth", "host.remote.identity.module.name")
            check(srv.alive(), "server died")
    return remote


def check_store(db, build_id, remote):
    log("case: runs list --json and runs export give the stored identities")
    rows = json.loads(netab_cmd(NETAB, "runs", "list", "--db", db, "--json").stdout)
    check_eq(len(rows), 1, "one stored run")
    row = rows[0]
    check(row["warmup"] is None and row["round"] is None, "a single run has no warm-up or round",
          row)
    check_eq(row["identity"]["remote"], remote, "runs list identity.remote")
    check_eq(row["identity"]["local"]["build_id"], build_id, "runs list identity.local.build_id")
    text = netab_cmd(NETAB, "runs", "list", "--db", db).stdout
    check(build_id[:12] in text, "runs list shows the build IDs", text)
    out = netab_cmd(NETAB, "runs", "export", "--db", db, "--format", "csv").stdout
    recs = list(csv.DictReader(io.StringIO(out)))
    check_eq(recs[0]["remote_build_id"], build_id, "export csv remote_build_id")
    check_eq(recs[0]["local_release"], os.uname().release, "export csv local_release")
    exp = json.loads(netab_cmd(NETAB, "runs", "export", "--db", db, "--format", "json").stdout)
    check_eq(exp[0]["identity"]["remote"], remote, "export json identity.remote")


def body(netab):
    build_id = kernel_build_id()
    log(f"kernel build ID (read here): {build_id}")
    check_env_identity(build_id)
    check_loopback(build_id)
    require_root_netns(tools=("ip",))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        remote = check_netns(build_id, db)
        check_store(db, build_id, remote)


if __name__ == "__main__":
    run_main(body)
