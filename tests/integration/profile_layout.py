#!/usr/bin/env python3
"""From profile to layout: `netab layout OLD NEW --hot-from` a sampled profile.

Builds two versions of a small program with gcc (-falign-functions=1, so
functions pack): in the second, an extra function placed before the hot
loop pushes it by 40 bytes, changing its offset within a 64-byte line.
The first version runs pinned on CPU 0 while `netab run -A 0,0 --profile
--profile-scope system` samples CPU 0 (every task on it: the test's own
scope would leave the program out), so the profile holds the program's hot loop (named through
its maps and ELF symbols while it still runs). Then:

1. `--hot-from RUN.json`: the loop is a hot function, and layout says it
   changed its offset within the line, as nm's addresses say.
2. The same from a stored experiment (`profile: true`, the program running
   beside it): `--hot-from EXPERIMENT:VARIANT --db F`. Its variants carry
   `layout:` files: base (-A 0,0, beside the loop) the old build, moved
   (-A 1,1, away from it, so the loop vanishes from its profile) the new
   one, broken a file that is no symbol table. `netab report` places each
   function of the differential profile in both builds: in JSON every
   row's address, size, offset within the 64-byte line and lines spanned
   equal what `nm -S` says of the two files (and a function nm does not
   list is found in neither), the loop is "moved"; text (72 columns),
   Markdown and HTML show the loop's offsets; broken's comparison says why
   it has no placement, in every format.
3. Errors: a run document without a profile, an experiment without one, a
   bad EXPERIMENT reference, --hot with --hot-from: exit 2 with the reason.
"""
import json
import os
import shutil
import tempfile
import time

from netab_helpers import (TestSkip, check, log, need_tools, netab_cmd, netab_run, parse_one_json,
                           run_cmd, run_main, start)

PROG = r"""
#define NI __attribute__((noinline))
%(extra)s
NI unsigned long netab_hot_loop(unsigned long n)
{
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++)
        x += i * i;
    return x;
}
int main(void)
{
    unsigned long s = 0;
    for (int k = 0; k < 200000; k++) /* ends by itself within minutes; the test kills it sooner */
        s += netab_hot_loop(1000000);
    return (int)(s & 1);
}
"""
EXTRA = r"""
NI long netab_pad_fn(long x) { return x * 7 + 3 - (x >> 2) + (x << 3) * 5 - (x ^ 0x55) * 3; }
"""


def build(d, name, extra):
    c = os.path.join(d, name + ".c")
    with open(c, "w") as f:
        f.write(PROG % {"extra": extra})
    exe = os.path.join(d, name)
    run_cmd(["gcc", "-O2", "-fno-inline", "-fno-reorder-functions", "-falign-functions=1", "-o",
             exe, c], timeout=60)
    return exe


def nm_functions(exe):
    """{name: (address, size)} of the text symbols `nm -S` lists (size 0 where it prints none)."""
    out = {}
    for line in run_cmd(["nm", "-S", exe], timeout=30).stdout.splitlines():
        parts = line.split()
        if len(parts) in (3, 4) and parts[-2] in ("t", "T", "W"):
            size = int(parts[1], 16) if len(parts) == 4 else 0
            out.setdefault(parts[-1], (int(parts[0], 16), size))
    return out


def nm_addr(exe, name):
    for line in run_cmd(["nm", exe], timeout=30).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError(f"{name} not in nm {exe}")


class Busy:
    """The old build running pinned on CPU 0 until stopped."""

    def __init__(self, exe):
        self.p = start(["taskset", "-c", "0", exe])
        self.name = os.path.basename(exe)

    def __enter__(self):
        # Until it runs its own code: taskset has exec'd it and it has used CPU time.
        for _ in range(1000):
            try:
                with open(f"/proc/{self.p.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{self.p.pid}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                break
            if comm == self.name and int(fields[11]) > 0:
                return self
            time.sleep(0.01)
        self.__exit__()
        raise AssertionError(f"{self.name} did not start running")

    def __exit__(self, *exc):
        if not self.p.alive():
            raise AssertionError(f"{self.name} ended early")
        self.p.kill_group()
        self.p.finish(expect_rc=-9, timeout=30)


def check_layout(netab, old, new, hot_args, what):
    doc = parse_one_json(netab_cmd(netab, "layout", old, new, "--json", *hot_args).stdout)
    check(doc["summary"]["hot"]["source"] == "netab profile", f"{what}: hot set from the profile",
          doc["summary"]["hot"])
    fn = [f for f in doc["functions"] if f["name"] == "netab_hot_loop"]
    check(len(fn) == 1 and fn[0]["hot"], f"{what}: the profiled loop is hot", fn)
    a, b = nm_addr(old, "netab_hot_loop"), nm_addr(new, "netab_hot_loop")
    log(f"{what}: netab_hot_loop at {a:#x} (offset {a % 64}) and {b:#x} (offset {b % 64})")
    check(a % 64 != b % 64, "the builds place the loop at different offsets in its line", a, b)
    check(fn[0]["offset_changed"], f"{what}: layout says the hot loop changed its offset", fn[0])


EXPERIMENT = """name: proflayout
runs: 2
warmup: 0
seed: 1
cooldown: 0
test:
  time: 1
  profile: true
  test: udp_stream
  bitrate: 10M
variants:
  - name: base
    opts: "-A 0,0 --profile-scope system"
    layout: %(old)s
  - name: moved
    opts: "-A 1,1 --profile-scope system"
    layout: %(new)s
  - name: broken
    opts: "-A 1,1 --profile-scope system"
    layout: %(broken)s
"""


def check_spot(spot, funcs, name, what):
    """A placement side against nm: found iff nm lists the function, with its numbers."""
    if name not in funcs:
        check(spot is None, f"{what}: {name} is not in the file, as nm says", spot)
        return
    addr, size = funcs[name]
    off = addr % 64
    check(spot is not None and spot["name"] == name and int(spot["addr"], 16) == addr and
          spot["size"] == size and spot["offset"] == off and
          spot["lines"] == ((off + size + 63) // 64 if size else 0) and spot["count"] == 1,
          f"{what}: {name} at {addr:#x}, {size} bytes, offset {off}: as nm -S says", spot)


def check_placement(netab, db, old, new):
    """The report's placement of the differential profile's functions equals nm's."""
    rep = ["report", "--db", db, "1"]
    doc = parse_one_json(netab_cmd(netab, *rep, "--format", "json", expect_rc=(0, 1)).stdout)
    diffs = {p["variant"]: p for p in doc["profile_diffs"]}
    check(set(diffs) == {"moved", "broken"}, "a differential profile per variant", list(diffs))
    moved = diffs["moved"]
    check(moved["placement"] == {"line": 64, "base_file": old, "file": new, "error": None},
          "moved: placed in old's and new's builds", moved["placement"])
    fo, fn = nm_functions(old), nm_functions(new)
    for row in moved["functions"]:
        pl = row["placement"]
        # Only the program's own functions are looked up in its builds: not the kernel's, nor
        # another program's _init.
        mine = row["module"] in ("old", "new")
        check(pl["looked_up"] == mine, f"{row['symbol']} ({row['module']}): looked up in the "
              "builds exactly when it is the program's", pl)
        check_spot(pl["base"], fo if mine else {}, row["symbol"], "old build")
        check_spot(pl["other"], fn if mine else {}, row["symbol"], "new build")
        both = pl["base"] is not None and pl["other"] is not None
        check(pl["offset_changed"] == (both and pl["base"]["offset"] != pl["other"]["offset"]),
              f"{row['symbol']}: offset_changed follows the offsets", pl)
    loop = [r for r in moved["functions"] if r["symbol"] == "netab_hot_loop"]
    check(len(loop) == 1 and loop[0]["verdict"] == "vanished",
          "the loop beside base's CPU vanished from moved's profile", moved["functions"][:3])
    pl = loop[0]["placement"]
    check(pl["offset_changed"] and pl["placement"].startswith("moved"),
          "the loop moved within its line between the builds", pl)
    a, b = pl["base"]["offset"], pl["other"]["offset"]
    err = diffs["broken"]["placement"]["error"] or ""
    check("broken.map" in err and diffs["broken"]["placement"]["file"].endswith("broken.map"),
          "broken: why there is no placement, naming the file", diffs["broken"]["placement"])
    check(all("placement" not in r for r in diffs["broken"]["functions"]),
          "broken: no row is placed", diffs["broken"]["functions"][:2])
    text = netab_cmd(netab, *rep, expect_rc=(0, 1)).stdout
    sec = text[text.index("Profile, default: moved against base"):]
    sec = sec[:sec.index("\n\n")]
    log(sec)
    for line in sec.splitlines():
        check(len(line) <= 72, "the placement fits 72 columns", line)
    row = [ln for ln in sec.splitlines() if ln.split()[:1] == ["netab_hot_loop"] and ">" in ln]
    check(row and f"{a}>{b}" in row[0] and "moved" in row[0],
          "text: the loop's offsets old>new and 'moved'", row)
    check("placement not shown" in text and "broken.map" in text,
          "text: broken's comparison says why it has no placement", text[-3000:])
    md = netab_cmd(netab, *rep, "--format", "markdown", expect_rc=(0, 1)).stdout
    check(f"| `netab_hot_loop` | `{pl['base']['addr']}` | {a} |" in md and
          f"| `{pl['other']['addr']}` | {b} |" in md, "Markdown: the loop's addresses and offsets",
          md[-3000:])
    check("Cache-line placement not shown" in md, "Markdown: broken says why", md[-2000:])
    html = netab_cmd(netab, *rep, "--format", "html", expect_rc=(0, 1)).stdout
    hrow = html[html.index("<tr><td>netab_hot_loop</td><td><code>"):]
    hrow = hrow[:hrow.index("</tr>")]
    check(f"<td><code>{pl['base']['addr']}</code></td><td>{a}</td>" in hrow and
          f"<td><code>{pl['other']['addr']}</code></td><td>{b}</td>" in hrow and
          "<strong>moved" in hrow, "HTML: the loop's addresses, offsets and 'moved'", hrow)
    check("Cache-line placement not shown" in html, "HTML: broken says why", html[-2000:])


def body(netab):
    if os.geteuid() != 0:
        raise TestSkip("needs root to sample system-wide (CI runs as root)")
    need_tools("gcc", "nm", "taskset")
    d = tempfile.mkdtemp(prefix="netab-proflayout-")
    try:
        old, new = build(d, "old", ""), build(d, "new", EXTRA)
        run_json = os.path.join(d, "run.json")
        # Paced UDP at 10 Mbit/s, not a stream or tcp_rr: data threads that take all they can
        # of the program's CPU, in a session (CFS autogroup) of their own, left the program
        # 1-8 % of it (its utime over the run: 21 ticks), near layout's 0.5 % hot threshold
        # and below it under load. Paced at 10 Mbit/s they need little; the loop gets ~98 %.
        with Busy(old):
            r = netab_run(netab, ["-t", "2", "-u", "-b", "10M", "-A", "0,0", "--profile",
                                  "--profile-scope", "system", "-i", "0"], timeout=60)
        with open(run_json, "w") as f:
            f.write(r.stdout)
        p = parse_one_json(r.stdout)["end"]["profile"]["local"]
        loop = [f for f in p["functions"] if f["symbol"] == "netab_hot_loop"]
        check(loop and loop[0]["module"] == "old", "the profile names the program's loop",
              p["functions"][:5])
        check_layout(netab, old, new, ["--hot-from", run_json], "run document")

        db = os.path.join(d, "r.db")
        exp = os.path.join(d, "e.yaml")
        broken = os.path.join(d, "broken.map")
        with open(broken, "w") as f:
            f.write("this is not a symbol map\n")
        with open(exp, "w") as f:
            f.write(EXPERIMENT % {"old": old, "new": new, "broken": broken})
        with Busy(old):
            netab_cmd(netab, "experiment", "run", exp, "--db", db, timeout=180)
        check_layout(netab, old, new, ["--hot-from", "1:base", "--db", db], "stored experiment")
        check_placement(netab, db, old, new)

        plain = os.path.join(d, "plain.json")
        with open(plain, "w") as f:
            f.write(netab_run(netab, ["-t", "0.5", "-i", "0"]).stdout)
        for args, want in ((["--hot-from", plain], "no sampled profile"),
                           (["--hot-from", "1:nosuch", "--db", db], "has no ok run of variant"),
                           (["--hot-from", "x:y", "--db", db], "neither a file nor"),
                           (["--hot-from", plain, "--hot", "ip_rcv"], "give one")):
            r = netab_cmd(netab, "layout", old, new, *args, expect_rc=2)
            check(want in r.stderr, f"{args}: refused with the reason", r.stderr)
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_main(body)
