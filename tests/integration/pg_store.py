#!/usr/bin/env python3
"""The PostgreSQL results store against a real server the test starts itself.

A PostgreSQL 15 cluster (initdb, then postgres in the foreground under the
harness) runs as the unprivileged user nobody in a temporary directory, on
a Unix socket there and on 127.0.0.1 at a free port (password login only on
TCP); it is stopped and removed at the end, also on failure. Every check
reads the database with psql, not through netab:

1. credentials: a URL with a password, PGPASSFILE and a wrong password;
   no password in anything netab printed or stored;
2. a loopback campaign run on PostgreSQL; `store copy` to SQLite and from
   there into a second PostgreSQL database, each twice: the same counts,
   statuses and `report --format json` bytes everywhere, and the second
   copy adds nothing;
3. a dashboard's read-only role reads the report and cannot write;
4. two controllers run two experiments at once: both complete, every run
   recorded; a second `resume` of a running experiment is refused;
5. kill -9 of the controller at KILLS random moments, each followed by
   resume: planned runs = ok runs, attempts 1, 2, ..., nothing duplicated;
6. the server stopped 5 s mid-campaign: the campaign waits and
   continues, no measured run lost; with a short NETAB_DB_WAIT it stops
   with a clear message instead, and resume completes it;
7. the session killed inside a transaction (pg_terminate_backend while
   the INSERT that records a run's start, or its COMMIT, waits by a
   trigger for a lock psql holds): netab runs the transaction again on a
   new session and the campaign completes; killed during a COMMIT the
   server made (a synchronous commit waiting for a standby that does not
   exist): netab asks txid_status(), goes on, records nothing twice;
8. the experiment's lock still held on the server after the lost session
   (psql takes it as the terminated backend lets go): netab's new session
   retries until it is free and the campaign completes.
"""
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import tempfile
import time

from netab_helpers import (PIPE, TestFailure, check, check_eq, kill_session, log, netab_cmd,
                           run_cmd, run_main, start)

PG_BIN = "/usr/lib/postgresql/15/bin"
KILLS = 10
SEED = int(os.environ.get("PG_STORE_SEED", "20261202"))
SECRET = "s3cr3t-Pw"
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]

EXPERIMENT = """\
name: {name}
runs: {runs}
warmup: 0
seed: {seed}
test:
  test: tcp_stream
  time: {time}
  interval: 0
variants:
  - name: big
    opts: "-l 128K"
  - name: small
    opts: "-l 16K"
"""


class Postgres:
    """A throw-away cluster owned by nobody; start() and stop() may be repeated."""

    def __init__(self, tmp):
        self.dir = os.path.join(tmp, "pg")
        os.mkdir(self.dir)
        os.chmod(tmp, 0o755)  # nobody must reach its directory
        shutil.chown(self.dir, "nobody", "nogroup")
        self.data = os.path.join(self.dir, "data")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = None
        pwfile = os.path.join(self.dir, "pw")
        with open(pwfile, "w") as f:
            f.write(SECRET + "\n")
        shutil.chown(pwfile, "nobody", "nogroup")
        run_cmd(NOBODY + [f"{PG_BIN}/initdb", "-D", self.data, "-U", "netab", "--no-sync",
                          "--auth-local=trust", "--auth-host=scram-sha-256", "--pwfile", pwfile],
                timeout=120)

    def start(self):
        self.proc = start(NOBODY + [f"{PG_BIN}/postgres", "-D", self.data, "-k", self.dir,
                                    "-c", "listen_addresses=127.0.0.1", "-p", str(self.port),
                                    "-c", "fsync=off"])
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(self.dir, f".s.PGSQL.{self.port}")):
            check(self.proc.alive() and time.monotonic() < deadline, "postgres started",
                  self.proc.stderr_text())
            time.sleep(0.05)
        while self.psql("SELECT 1", db="postgres", expect_rc=(0, 2)) is None:
            check(time.monotonic() < deadline, "postgres accepts connections",
                  self.proc.stderr_text())
            time.sleep(0.1)

    def stop(self):
        """Fast shutdown: the server ends every session, as a restart or crash would."""
        if self.proc and self.proc.alive():
            self.proc.send(signal.SIGINT)
            self.proc.finish(expect_rc=0, timeout=60)
        self.proc = None

    def url(self, db="netab", user="netab"):
        return f"postgresql://{user}@/{db}?host={self.dir}&port={self.port}"

    def psql(self, sql, db="netab", expect_rc=0, user="netab"):
        """Rows of sql as lists of strings; None when psql could not connect (expect_rc 2)."""
        r = run_cmd([f"{PG_BIN}/psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                     "-h", self.dir, "-p", str(self.port), "-U", user, "-d", db, "-c", sql],
                    expect_rc=expect_rc)
        if r.returncode != 0:
            return None
        return [line.split("\t") for line in r.stdout.splitlines() if line]


def write_experiment(tmp, name, runs, seed, t=0.2):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(EXPERIMENT.format(name=name, runs=runs, seed=seed, time=t))
    return path


def run_experiment(netab, url, path, env=None):
    r = netab_cmd(netab, "experiment", "run", "--db", url, path, timeout=120, env=env)
    return int(r.stdout.strip().splitlines()[-1])


def pg_runs(pg, xid, db="netab"):
    return [(int(s), st, int(a)) for s, st, a in
            pg.psql(f"SELECT seq, status, attempt FROM runs WHERE experiment_id = {xid} "
                    "ORDER BY seq, attempt, id", db=db)]


def check_complete(pg, xid, planned, db="netab"):
    """Each planned seq: one final run, earlier rows interrupted, attempts 1, 2, ...; returns
    the number of interrupted rows."""
    plan = [int(r[0]) for r in pg.psql(f"SELECT seq FROM plan WHERE experiment_id = {xid}", db=db)]
    check_eq(sorted(plan), list(range(1, planned + 1)), f"experiment {xid}'s plan")
    by_seq = {}
    for seq, status, attempt in pg_runs(pg, xid, db):
        check(seq in plan, f"experiment {xid}: run of seq {seq} is planned")
        by_seq.setdefault(seq, []).append((status, attempt))
    interrupted = 0
    for seq in plan:
        rows = by_seq.get(seq, [])
        check_eq([s for s, _ in rows if s != "interrupted"], ["ok"],
                 f"experiment {xid} seq {seq}: exactly one ok run ({rows})")
        check_eq(rows[-1][0], "ok", f"experiment {xid} seq {seq}: nothing after its ok run")
        check_eq([a for _, a in rows], list(range(1, len(rows) + 1)),
                 f"experiment {xid} seq {seq}: attempts")
        interrupted += len(rows) - 1
    return interrupted


def credentials(netab, pg, tmp):
    """Password in the URL, in PGPASSFILE, and wrong: never printed or stored."""
    tcp = f"postgresql://netab:{SECRET}@127.0.0.1:{pg.port}/netab"
    r = netab_cmd(netab, "run", "-t", "0.2", "--db", tcp, timeout=60)
    check(SECRET not in r.stdout + r.stderr, "no password in what `netab run` printed")
    passfile = os.path.join(tmp, "pgpass")
    with open(passfile, "w") as f:
        f.write(f"127.0.0.1:{pg.port}:netab:netab:{SECRET}\n")
    os.chmod(passfile, 0o600)
    nopw = f"postgresql://netab@127.0.0.1:{pg.port}/netab"
    netab_cmd(netab, "run", "-t", "0.2", "--db", nopw, timeout=60, env={"PGPASSFILE": passfile})
    bad = f"postgresql://netab:wrong-{SECRET}@127.0.0.1:{pg.port}/netab"
    r = netab_cmd(netab, "runs", "list", "--db", bad, expect_rc=2,
                  env={"PGPASSFILE": "/nonexistent"})
    check("password authentication failed" in r.stderr and SECRET not in r.stderr,
          "a wrong password: a clear error without the password", r.stderr)
    check("postgresql://netab@127.0.0.1" in r.stderr, "the error names the URL", r.stderr)
    # A campaign whose command line holds the password runs while another campaign records
    # its runs: the census of competing processes keeps the command line without it.
    p = start([netab, "experiment", "run", "--db", tcp, write_experiment(tmp, "pw", 3, 4)])
    check(p.wait_output("store postgresql://", 60), "campaign with a password URL started",
          p.stderr_text())
    b = netab_cmd(netab, "experiment", "run", "--db", pg.url(),
                  write_experiment(tmp, "beside", 1, 4), timeout=120)
    other = int(b.stdout.split()[0])
    check(SECRET not in b.stderr and f"postgresql://netab@127.0.0.1:{pg.port}/netab" in b.stderr,
          "the other campaign's warning names the competing one without its password",
          b.stderr)
    r = p.finish(timeout=120)
    check(SECRET not in r.stdout + r.stderr, "no password in what the campaign printed")
    report_formats(netab, pg, tcp, int(r.stdout.split()[0]), other)
    r = netab_cmd(netab, "experiment", "status", "--db", tcp, "999", expect_rc=2, timeout=60)
    check("no experiment 999" in r.stderr and SECRET not in r.stdout + r.stderr,
          "an unknown experiment's error names the store without its password", r.stderr)
    r = netab_cmd(netab, "experiment", "resume", "--all", "--db", tcp, timeout=60)
    check(f"every experiment in postgresql://netab@127.0.0.1:{pg.port}/netab is done" in r.stderr
          and SECRET not in r.stdout + r.stderr,
          "resume --all names the store without its password", r.stderr)
    rows = pg.psql("SELECT count(*) FROM runs WHERE experiment_id IS NULL AND status = 'ok'")
    check_eq(rows, [["2"]], "two single runs recorded")
    seen = pg.psql(f"SELECT count(*) FROM runs WHERE experiment_id = {other} AND env_json LIKE "
                   f"'%experiment run --db postgresql://netab@127.0.0.1:{pg.port}/netab %'")
    check(seen != [["0"]], "the competing campaign's command line is kept, redacted", seen)
    dump = run_cmd([f"{PG_BIN}/pg_dump", "-h", pg.dir, "-p", str(pg.port), "-U", "netab",
                    "-d", "netab"]).stdout
    check("COPY public.runs" in dump and SECRET not in dump,
          "no password anywhere in the database (pg_dump)")
    argv = pg.psql("SELECT argv_text FROM runs ORDER BY id LIMIT 1")[0][0]
    check(f"postgresql://netab@127.0.0.1:{pg.port}/netab" in argv, "argv kept, redacted", argv)


def report_formats(netab, pg, url, xid, other):
    """Reports asked for with a password URL: no format holds the password (issue 34); the
    HTML page's command to reproduce is the one asked, without it."""
    for fmt in ("text", "markdown", "csv", "json", "html"):
        full = ["--full"] if fmt in ("text", "markdown", "json") else []
        r = netab_cmd(netab, "report", "--db", url, str(xid), "--format", fmt, *full,
                      timeout=60, expect_rc=(0, 1))
        check(len(r.stdout) > 200 and SECRET not in r.stdout + r.stderr,
              f"no password in the {fmt} report", r.stdout[:300])
    r = netab_cmd(netab, "report", f"--db={url}", "--experiments", f"{xid},{other}", "--label",
                  "experiment", "--format", "html", timeout=60, expect_rc=(0, 1))
    check(SECRET not in r.stdout + r.stderr, "no password in the HTML of --experiments")
    want = (f"netab report --db=postgresql://netab@127.0.0.1:{pg.port}/netab --experiments "
            f"{xid},{other} --label experiment --format html &gt; report.html")
    check(want in r.stdout, "the HTML's command to reproduce is the one asked, redacted",
          [line for line in r.stdout.splitlines() if "report.html" in line])


def report(netab, url, xid):
    return netab_cmd(netab, "report", "--db", url, str(xid), "--format", "json", timeout=60,
                     expect_rc=(0, 1)).stdout


def ids_by_attempt(rows):
    """{(seq, attempt): run id} of (id, seq, attempt) rows."""
    return {(int(s), int(a)): int(i) for i, s, a in rows}


def renumbered(text, xid, runs_from, runs_to):
    """A JSON report with the ids a copy gives (the experiment's, its runs') put back to the
    source's, so that everything else must be byte-identical."""
    back = {runs_to[k]: runs_from[k] for k in runs_to}
    doc = json.loads(text)
    doc["experiment"]["id"] = xid
    for d in doc.get("env_differences", []):
        for k in ("baseline_run", "run"):
            d[k] = back[d[k]]
    return json.dumps(doc, indent=1)


def pg_ids(pg, xid, db="netab"):
    return ids_by_attempt(pg.psql(f"SELECT id, seq, attempt FROM runs WHERE experiment_id = {xid}",
                                  db=db))


def copies(netab, pg, tmp):
    """A campaign on PostgreSQL, copied to SQLite and on into a second database, twice each."""
    url = pg.url()
    xid = run_experiment(netab, url, write_experiment(tmp, "copy-me", 3, 5))
    check_complete(pg, xid, 6)
    want = report(netab, url, xid)
    check('"variants"' in want or '"cells"' in want, "a JSON report", want[:200])
    lite = os.path.join(tmp, "laptop.db")
    outs = [netab_cmd(netab, "store", "copy", "--from", url, "--to", lite).stdout
            for _ in range(2)]
    check("6 runs copied" in outs[0] and "0 already there" in outs[0], "first copy", outs[0])
    check("0 runs copied, 6 already there" in outs[1], "second copy adds nothing", outs[1])
    con = sqlite3.connect(lite)
    lite_x = con.execute("SELECT id FROM experiments WHERE name = 'copy-me'").fetchall()
    check_eq(len(lite_x), 1, "one copied experiment in SQLite")
    lx = lite_x[0][0]
    lite_runs = con.execute("SELECT seq, status, attempt FROM runs WHERE experiment_id = ? "
                            "ORDER BY seq, attempt, id", (lx,)).fetchall()
    lite_iv = con.execute("SELECT count(*) FROM intervals i JOIN runs r ON r.id = i.run_id "
                          "WHERE r.experiment_id = ?", (lx,)).fetchone()[0]
    single = con.execute("SELECT count(*) FROM runs WHERE experiment_id IS NULL").fetchone()[0]
    con.close()
    check_eq([tuple(r) for r in lite_runs], pg_runs(pg, xid), "runs in SQLite as in PostgreSQL")
    pg_iv = pg.psql("SELECT count(*) FROM intervals i JOIN runs r ON r.id = i.run_id "
                    f"WHERE r.experiment_id = {xid}")[0][0]
    check_eq(str(lite_iv), pg_iv, "intervals copied")
    check_eq(single, 2, "single runs copied")
    # NETAB_DB is the default store wherever --db is accepted.
    env_report = netab_cmd(netab, "report", str(xid), "--format", "json", expect_rc=(0, 1),
                           env={"NETAB_DB": url}).stdout
    check_eq(env_report, want, "report through NETAB_DB")
    con = sqlite3.connect(lite)
    lite_ids = ids_by_attempt(con.execute("SELECT id, seq, attempt FROM runs WHERE "
                                          "experiment_id = ?", (lx,)).fetchall())
    con.close()
    src_ids = pg_ids(pg, xid)
    want = renumbered(want, xid, src_ids, src_ids)
    check_eq(renumbered(report(netab, lite, lx), xid, src_ids, lite_ids), want,
             "report JSON from the SQLite copy")
    pg.psql("CREATE DATABASE second", db="postgres")
    url2 = pg.url("second")
    outs = [netab_cmd(netab, "store", "copy", "--from", lite, "--to", url2).stdout
            for _ in range(2)]
    check("0 runs copied, 6 already there" in outs[1], "second copy back adds nothing", outs[1])
    x2 = int(pg.psql("SELECT id FROM experiments WHERE name = 'copy-me'", db="second")[0][0])
    check_eq(pg_runs(pg, x2, "second"), pg_runs(pg, xid), "runs copied back")
    check_eq(renumbered(report(netab, url2, x2), xid, src_ids, pg_ids(pg, x2, "second")), want,
             "report JSON after SQLite -> PostgreSQL")
    return xid, want


def dashboard_role(netab, pg, xid, want):
    """The read-only role of docs/store.md reads reports and cannot write."""
    pg.psql("CREATE ROLE grafana LOGIN; GRANT USAGE ON SCHEMA public TO grafana; "
            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO grafana")
    ro = pg.url(user="grafana")
    ids = pg_ids(pg, xid)
    check_eq(renumbered(report(netab, ro, xid), xid, ids, ids), want,
             "report JSON read by the read-only role")
    r = netab_cmd(netab, "run", "-t", "0.2", "--db", ro, expect_rc=(1, 2), timeout=60)
    check("read-only" in r.stderr or "permission denied" in r.stderr,
          "a write as the read-only role is refused clearly", r.stderr)


def two_controllers(netab, pg, tmp):
    """Two experiments from two controllers at once; a second resume of one is refused."""
    url = pg.url()
    a = start([netab, "experiment", "run", "--db", url, write_experiment(tmp, "ctl-a", 3, 1)])
    b = start([netab, "experiment", "run", "--db", url, write_experiment(tmp, "ctl-b", 5, 2)])
    check(b.wait_output("store postgresql://", 60), "controller b started", b.stderr_text())
    bid = int(b.stdout_text().split()[0]) if b.stdout_text().strip() else None
    check(bid is not None, "controller b printed its experiment id", b.stdout_text())
    r = netab_cmd(netab, "experiment", "resume", "--db", url, str(bid), expect_rc=2)
    check("another netab is running experiment" in r.stderr and b.alive(),
          "a second resume of a running experiment is refused", r.describe())
    st = json.loads(netab_cmd(netab, "experiment", "status", "--db", url, str(bid),
                              "--json").stdout)
    check(st["state"] == "running" and st["runner"]["alive"] and b.alive(),
          "status sees the runner's lock in the database", st)
    a.finish(timeout=120)
    b.finish(timeout=120)
    for p, planned in ((a, 6), (b, 10)):
        check_complete(pg, int(p.stdout_text().split()[0]), planned)
    log(f"two controllers: both complete; the concurrent resume exited {r.returncode}")


def kill_resume(netab, pg, tmp):
    """kill -9 of the controller at random moments, each followed by resume."""
    rng = random.Random(SEED)
    url = pg.url()
    path = write_experiment(tmp, "kill", 6, 3, t=0.15)
    before = {r[0] for r in pg.psql("SELECT id FROM experiments")}
    current, kills, done, status_seen = None, 0, [], False
    deadline = time.monotonic() + 120
    while kills < KILLS:
        check(time.monotonic() < deadline, f"out of time after {kills} kills")
        argv = ([netab, "experiment", "resume", "--db", url, str(current)] if current
                else [netab, "experiment", "run", "--db", url, path])
        p = start(argv)
        rc = p.wait_exit(rng.uniform(0.2, 1.2))
        if rc is None:
            kill_session(p, expect_rc=(-signal.SIGKILL, 0))
            kills += 1
        else:
            p.finish(expect_rc=0)
        if current is None:
            new = [r[0] for r in pg.psql("SELECT id FROM experiments ORDER BY id")
                   if r[0] not in before]
            check(len(new) <= 1, "one run creates one experiment", new)
            if new:
                current = int(new[0])
                before.add(new[0])
        if rc is None and current and not status_seen:
            st = json.loads(netab_cmd(netab, "experiment", "status", "--db", url, str(current),
                                      "--json").stdout)
            check(st["state"] in ("stopped", "planned") and not (st["runner"] or {}).get("alive"),
                  "after kill -9 the lock is gone and status says so", st)
            status_seen = True
        if rc is not None and current:
            done.append(current)
            current = None
    if current:
        netab_cmd(netab, "experiment", "resume", "--db", url, str(current), timeout=120)
        done.append(current)
    check(status_seen, "status was asked after a kill")
    interrupted = sum(check_complete(pg, x, 12) for x in done)
    log(f"kill -9: {kills} kills, {len(done)} experiments, {interrupted} interrupted rows")


# NETAB_DB_WAIT=2 below plus 3 s for the campaign to find the server gone (the run under way,
# 0.3 s, then its records); the waiting case needs only an outage longer than a run.
OUTAGE_S = 5


def outage(netab, pg, tmp, wait, path_name, runs):
    """Stops the server once two runs are in and starts it again OUTAGE_S later."""
    url = pg.url()
    p = start([netab, "experiment", "run", "--db", url,
               write_experiment(tmp, path_name, runs, 9, t=0.3)], env={"NETAB_DB_WAIT": wait})
    check(p.wait_output("store postgresql://", 60), "campaign started", p.stderr_text())
    xid = int(p.stdout_text().split()[0])
    deadline = time.monotonic() + 60
    while int(pg.psql(f"SELECT count(*) FROM runs WHERE experiment_id = {xid} "
                      "AND status = 'ok'")[0][0]) < 2:
        check(p.alive() and time.monotonic() < deadline, "two runs before the outage",
              p.stderr_text())
        time.sleep(0.05)
    pg.stop()
    stopped = time.monotonic()
    time.sleep(OUTAGE_S)
    pg.start()
    log(f"server down for {time.monotonic() - stopped:.1f} s")
    return p, xid


def outages(netab, pg, tmp):
    # Waiting (the default): the campaign continues by itself.
    p, xid = outage(netab, pg, tmp, "60", "outage-wait", 4)
    r = p.finish(timeout=120)
    check("lost the connection to the results database" in r.stderr and
          "is back after" in r.stderr, "the wait is said", r.stderr)
    check_eq(check_complete(pg, xid, 8), 0, "no run lost or repeated across the outage")
    # Waiting 2 s: the campaign stops with a clear message; resume completes it.
    p, xid = outage(netab, pg, tmp, "2", "outage-stop", 4)
    r = p.finish(expect_rc=1, timeout=120)
    check("went away" in r.stderr and "did not come back within 2 s" in r.stderr and
          f"experiment resume --db {pg.url()} {xid}" in r.stderr,
          "a clear stop with the resume command", r.stderr)
    netab_cmd(netab, "experiment", "resume", "--db", pg.url(), str(xid), timeout=120)
    check_complete(pg, xid, 8)


HOLD = """\
CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN PERFORM pg_advisory_xact_lock_shared(4242, 1); RETURN NEW; END $$;
"""
# The INSERT that records a run's start waits, inside the transaction its BEGIN opened.
HOLD_INSERT = HOLD + ("CREATE TRIGGER test_hold BEFORE INSERT ON runs "
                      "FOR EACH ROW EXECUTE FUNCTION test_hold();")
# That transaction's COMMIT waits: a deferred constraint trigger fires at COMMIT.
HOLD_COMMIT = HOLD + ("CREATE CONSTRAINT TRIGGER test_hold AFTER INSERT ON runs "
                      "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_hold();")


def netab_waiters(pg, waiting):
    """(pid, query) of netab's sessions whose wait matches the SQL condition waiting."""
    return [(int(r[0]), r[1]) for r in
            pg.psql("SELECT pid, query FROM pg_stat_activity WHERE application_name = 'netab' "
                    f"AND {waiting}")]


def psql_session(pg, sql, said, what):
    """A psql session kept open (its stdin a pipe) that has run sql and printed said."""
    holder = start([f"{PG_BIN}/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", pg.dir,
                    "-p", str(pg.port), "-U", "netab", "-d", "netab"], stdin=PIPE)
    holder.popen.stdin.write(sql.encode() + b"\n")
    holder.popen.stdin.flush()
    check(holder.wait_output(said, 60), what, holder.stderr_text())
    return holder


def psql_holding_lock(pg):
    return psql_session(pg, "SELECT pg_advisory_lock(4242, 1), 'locked';", "locked",
                        "psql holds the lock")


def psql_end(holder, sql):
    holder.popen.stdin.write(sql.encode() + b"\n")
    holder.popen.stdin.close()
    holder.finish(timeout=30)


def lock_outlives_session(netab, pg, tmp):
    """After a lost connection the experiment's lock is still held on the server (here psql
    takes it the moment netab's terminated backend lets go, as a slow-to-exit old session
    would hold it): the new session retries until the lock is free, and the campaign goes on."""
    p = start([netab, "experiment", "run", "--db", pg.url(),
               write_experiment(tmp, "lock-held", 2, 13, t=0.3)])
    deadline = time.monotonic() + 60
    rows = []
    while not rows:
        rows = pg.psql("SELECT l.pid, l.classid::bigint, l.objid::bigint FROM pg_locks l "
                       "JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'netab' "
                       "AND l.locktype = 'advisory' AND l.granted")
        check(p.alive() and time.monotonic() < deadline, "the campaign holds its lock",
              p.stderr_text())
        time.sleep(0.05)
    pid = int(rows[0][0])
    # The two int4 keys, shown as unsigned oids.
    k1, k2 = [int(v) - (1 << 32) if int(v) >= 1 << 31 else int(v) for v in rows[0][1:]]
    holder = psql_session(pg, f"SELECT pg_terminate_backend({pid}); "
                          f"SELECT pg_advisory_lock({k1}, {k2}), 'taken';", "taken",
                          "psql took the experiment's lock from the terminated session")
    while not pg.psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'netab' "
                      f"AND pid <> {pid} AND state = 'idle' "
                      "AND query LIKE 'SELECT pg_try_advisory_lock%'"):
        check(p.alive() and time.monotonic() < deadline,
              "netab's new session tried the lock and waits on", p.stderr_text())
        time.sleep(0.05)
    psql_end(holder, f"SELECT pg_advisory_unlock({k1}, {k2});")
    r = p.finish(timeout=120)
    check("is back after" in r.stderr, "the wait is said", r.stderr)
    xid = int(r.stdout.strip().splitlines()[-1])
    check_eq(check_complete(pg, xid, 4), 0, "lock-held: every run once")
    log("lock held past the lost session: retried until free, campaign complete")


def wait_for_waiters(pg, p, waiting, query, count, on_first):
    """Waits until count different netab sessions have waited (the SQL condition waiting) in
    query; calls on_first(pid) for the first."""
    seen = []
    deadline = time.monotonic() + 60
    while len(seen) < count:
        found = [w for w in netab_waiters(pg, waiting) if w[0] not in seen]
        if found:
            check(found[0][1].startswith(query), f"netab's session waits in {query}", found[0][1])
            seen.append(found[0][0])
            if len(seen) == 1:
                on_first(found[0][0])
        check(p.alive() and time.monotonic() < deadline,
              f"netab waits in {query} {count} time(s)", p.stderr_text())
        time.sleep(0.05)


def lost_in_transaction(netab, pg, tmp, hold_sql, query, name):
    """The session ends inside a transaction: a trigger makes its statement (or its COMMIT) wait
    for an advisory lock psql holds, and the test terminates that backend. The server keeps
    none of the transaction; netab waits, runs it again on a new session (which waits on the
    lock again until psql lets go), and the campaign completes with no run lost or repeated."""
    pg.psql(hold_sql)
    holder = psql_holding_lock(pg)
    p = start([netab, "experiment", "run", "--db", pg.url(),
               write_experiment(tmp, name, 2, 11, t=0.2)])
    wait_for_waiters(pg, p, "wait_event_type = 'Lock'", query, 2,
                     lambda pid: pg.psql(f"SELECT pg_terminate_backend({pid})"))
    psql_end(holder, "SELECT pg_advisory_unlock(4242, 1);")
    r = p.finish(timeout=120)
    pg.psql("DROP TRIGGER test_hold ON runs; DROP FUNCTION test_hold()")
    check("lost the connection to the results database" in r.stderr and
          "is back after" in r.stderr and "was committed" not in r.stderr,
          "the wait is said", r.stderr)
    xid = int(r.stdout.strip().splitlines()[-1])
    check_eq(check_complete(pg, xid, 4), 0, f"{name}: no run lost or repeated")
    log(f"{name}: the transaction run again on a new session, campaign complete")


def lost_in_committed_commit(netab, pg, tmp):
    """The session ends during a COMMIT the server has made: netab's sessions (PGOPTIONS)
    commit synchronously to a standby that does not exist, so the first COMMIT (the one that
    records the experiment) waits after committing locally; the test terminates it. netab
    asks txid_status() once back, goes on, and does not record the experiment twice."""
    # psql -c runs its statements as one transaction, and ALTER SYSTEM refuses one.
    pg.psql("ALTER SYSTEM SET synchronous_standby_names = 'netab_test_nobody'")
    pg.psql("ALTER SYSTEM SET synchronous_commit = 'local'")
    pg.psql("SELECT pg_reload_conf()")

    def terminate_and_release(pid):
        pg.psql(f"SELECT pg_terminate_backend({pid})")
        pg.psql("ALTER SYSTEM RESET synchronous_standby_names")
        pg.psql("ALTER SYSTEM RESET synchronous_commit")
        pg.psql("SELECT pg_reload_conf()")

    p = start([netab, "experiment", "run", "--db", pg.url(),
               write_experiment(tmp, "tx-committed", 2, 12, t=0.2)],
              env={"PGOPTIONS": "-c synchronous_commit=on"})
    wait_for_waiters(pg, p, "wait_event = 'SyncRep'", "COMMIT", 1, terminate_and_release)
    r = p.finish(timeout=120)
    check("is back after" in r.stderr and "the transaction in flight when the connection "
          "dropped was committed" in r.stderr, "the committed COMMIT is said", r.stderr)
    rows = pg.psql("SELECT id FROM experiments WHERE name = 'tx-committed'")
    check_eq(len(rows), 1, "the experiment recorded once")
    check_eq(check_complete(pg, int(rows[0][0]), 4), 0, "tx-committed: every run once")
    log("lost during a COMMIT that committed: not run again, campaign complete")


def main(netab):
    tmp = tempfile.mkdtemp(prefix="netab-pg-")
    # A campaign on a server store keeps its CPU state file in netab's data directory.
    os.environ["XDG_DATA_HOME"] = os.path.join(tmp, "data")
    pg = None
    try:
        pg = Postgres(tmp)
        pg.start()
        pg.psql("CREATE DATABASE netab", db="postgres")
        credentials(netab, pg, tmp)
        xid, want = copies(netab, pg, tmp)
        dashboard_role(netab, pg, xid, want)
        two_controllers(netab, pg, tmp)
        kill_resume(netab, pg, tmp)
        lost_in_transaction(netab, pg, tmp, HOLD_INSERT, "INSERT INTO runs (experiment_id",
                            "tx-lost-insert")
        lost_in_transaction(netab, pg, tmp, HOLD_COMMIT, "COMMIT", "tx-lost-commit")
        lost_in_committed_commit(netab, pg, tmp)
        lock_outlives_session(netab, pg, tmp)
        outages(netab, pg, tmp)
    finally:
        if pg:
            try:
                pg.stop()
            except TestFailure as e:
                log(f"stopping postgres: {e}")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run_main(main)
