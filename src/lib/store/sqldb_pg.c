/*
 * The PostgreSQL backend of the database layer (sqldb.h), through libpq.
 *
 * Statements run as unnamed extended-protocol queries (PQexecParams) with
 * the placeholders rewritten to $n and every value sent as text with its
 * type; results come back as text and are converted on read. Nothing is
 * prepared on the server, so a reconnect needs no re-preparing.
 *
 * A lost connection (the server restarted, the network went away) outside
 * a transaction is waited for: the layer reconnects once a second for up to
 * NETAB_DB_WAIT seconds (default 60), takes its advisory locks again, and
 * runs the statement that failed. Inside a transaction the statement's
 * work is gone with the session, so it fails with SQLDB_ECONN and marks
 * the transaction lost (sqldb_tx_lost): the caller may wait with
 * sqldb_reconnect() and run the whole transaction again. A drop during
 * COMMIT is resolved by asking the server, once back, what became of the
 * transaction's id (pg_commit). docs/store.md, "When the database goes
 * away".
 */
#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/sqldb_priv.h"

#define OID_INT8 20
#define OID_TEXT 25
#define OID_FLOAT8 701
#define PG_MAX_LOCKS 8
#define PG_DEFAULT_WAIT_S 60

struct pg {
    PGconn *conn;
    char *target;
    int nlocks;
    int32_t locks[PG_MAX_LOCKS][2]; /* advisory locks held: taken again after a reconnect */
    bool back; /* reconnected since the last lost connection: nothing to wait for */
};

struct pg_stmt {
    char *sql;
    int nparams;
    char **values;
    Oid *types;
    PGresult *res;
    int row, nrows;
};

#define PG(db) ((struct pg *)(db)->impl)
#define PST(st) ((struct pg_stmt *)(st)->impl)

/* The layer's class of a failed result, keeping the server's message. */
static int pg_err(struct sqldb *db, const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorMessage(res) : NULL;
    sqldb_fail(db, 0, "%s", msg && *msg ? msg : PQerrorMessage(PG(db)->conn));
    if (PQstatus(PG(db)->conn) == CONNECTION_BAD)
        return SQLDB_ECONN;
    if (!state)
        return SQLDB_EOTHER;
    if (!strncmp(state, "23", 2) || !strcmp(state, "P0001"))
        return SQLDB_ECONSTRAINT;
    if (!strcmp(state, "25006") || !strcmp(state, "42501"))
        return SQLDB_EREADONLY;
    if (!strcmp(state, "53100"))
        return SQLDB_EFULL;
    if (!strcmp(state, "53200"))
        return SQLDB_ENOMEM;
    if (!strcmp(state, "55P03") || !strcmp(state, "40001") || !strcmp(state, "40P01"))
        return SQLDB_EBUSY;
    if (!strncmp(state, "08", 2) || !strncmp(state, "57P", 3))
        return SQLDB_ECONN;
    if (!strcmp(state, "XX001") || !strcmp(state, "XX002"))
        return SQLDB_ECORRUPT;
    return SQLDB_EOTHER;
}

/* Notices ("there is no transaction in progress") are not for the user. */
static void pg_quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* Connects (or reconnects) db's session; 0 or SQLDB_ECANTOPEN with libpq's message. */
static int pg_connect(struct sqldb *db, bool readonly)
{
    struct pg *p = PG(db);
    if (p->conn)
        PQfinish(p->conn);
    /* Earlier entries are defaults: the URL's own connect_timeout wins. */
    const char *keys[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
    const char *vals[] = {"10", "netab", p->target, NULL};
    p->conn = PQconnectdbParams(keys, vals, 1);
    if (!p->conn)
        return sqldb_fail(db, SQLDB_ENOMEM, "out of memory");
    if (PQstatus(p->conn) != CONNECTION_OK)
        return sqldb_fail(db, SQLDB_ECANTOPEN, "%s", PQerrorMessage(p->conn));
    PQsetNoticeProcessor(p->conn, pg_quiet, NULL);
    /* Timestamps the store writes are UTC text; a read-only open can write nothing at all. */
    PGresult *r = PQexec(p->conn, readonly ? "SET TIME ZONE 'UTC'; SET "
                                             "default_transaction_read_only = on"
                                           : "SET TIME ZONE 'UTC'");
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK ? SQLDB_OK : pg_err(db, r);
    PQclear(r);
    return rc;
}

static int wait_seconds(void)
{
    const char *s = getenv("NETAB_DB_WAIT");
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    return s && *s && !*end && v >= 0 && v <= 86400 ? (int)v : PG_DEFAULT_WAIT_S;
}

/*
 * Takes the advisory locks db held again on a new session: SQLDB_OK,
 * SQLDB_EBUSY while another session holds one (db->errmsg says so), or the
 * error.
 */
static int relock(struct sqldb *db)
{
    struct pg *p = PG(db);
    for (int i = 0; i < p->nlocks; i++) {
        char sql[96];
        snprintf(sql, sizeof(sql), "SELECT pg_try_advisory_lock(%d, %d)", (int)p->locks[i][0],
                 (int)p->locks[i][1]);
        PGresult *r = PQexec(p->conn, sql);
        bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && !strcmp(PQgetvalue(r, 0, 0), "t");
        int rc = PQresultStatus(r) == PGRES_TUPLES_OK ? SQLDB_OK : pg_err(db, r);
        PQclear(r);
        if (rc)
            return rc;
        if (!ok)
            return sqldb_fail(db, SQLDB_EBUSY,
                              "reconnected, but the experiment's lock is held (by another netab "
                              "that took it meanwhile, or by this one's old session the server "
                              "has not yet closed)");
    }
    return SQLDB_OK;
}

/*
 * After a lost connection: reconnects once a second for up to NETAB_DB_WAIT
 * seconds, until the new session also holds db's locks again (the old
 * session's may outlive it a moment on the server). SQLDB_OK when the
 * session is back with its locks, else SQLDB_ECONN.
 */
static int pg_recover(struct sqldb *db)
{
    int limit = wait_seconds();
    char first[sizeof(db->errmsg)];
    snprintf(first, sizeof(first), "%s", db->errmsg);
    if (limit > 0)
        fprintf(stderr,
                "netab: lost the connection to the results database (%s); waiting up to %d s "
                "for it to come back\n",
                first, limit);
    bool held = false;
    for (int i = 0; i < limit; i++) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        if (pg_connect(db, db->readonly) != SQLDB_OK)
            continue;
        int rc = relock(db);
        if (rc == SQLDB_OK) {
            fprintf(stderr, "netab: the results database is back after %d s\n", i + 1);
            PG(db)->back = true;
            return SQLDB_OK;
        }
        if (rc != SQLDB_EBUSY)
            return rc;
        held = true;
    }
    if (held) {
        char why[sizeof(db->errmsg)];
        snprintf(why, sizeof(why), "%s", db->errmsg);
        return sqldb_fail(db, SQLDB_ECONN, "%s for %d s; this one stops", why, limit);
    }
    return sqldb_fail(db, SQLDB_ECONN,
                      "lost the connection to the results database and it did not come back "
                      "within %d s (%s)",
                      limit, first);
}

/*
 * Runs one query (with params when st is given); retries once after a
 * recovered connection when no transaction was open. *out is the result
 * on success (PGRES_COMMAND_OK or PGRES_TUPLES_OK).
 */
static int pg_run(struct sqldb *db, const char *sql, struct pg_stmt *st, PGresult **out)
{
    for (int attempt = 0;; attempt++) {
        PGconn *c = PG(db)->conn;
        PGresult *r = st ? PQexecParams(c, st->sql, st->nparams, st->types,
                                        (const char *const *)st->values, NULL, NULL, 0)
                         : PQexec(c, sql);
        ExecStatusType s = PQresultStatus(r);
        if (r && (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)) {
            const char *n = PQcmdTuples(r);
            db->changes = n && *n ? strtoll(n, NULL, 10) : 0;
            *out = r;
            return SQLDB_OK;
        }
        int rc = pg_err(db, r);
        PQclear(r);
        if (rc != SQLDB_ECONN)
            return rc;
        /* The session and its transaction are gone together. */
        bool was_in_tx = db->in_tx;
        bool rollback = sql && !strcmp(sql, "ROLLBACK");
        db->in_tx = false;
        /* Before COMMIT the server discarded the whole transaction; during it, who knows
         * (pg_commit asks); a ROLLBACK's transaction failed for its own reason already. */
        db->tx_lost = was_in_tx && !rollback && !(sql && !strcmp(sql, "COMMIT"));
        PG(db)->back = false;
        if (was_in_tx || attempt > 0 || rollback)
            return rc;
        rc = pg_recover(db);
        if (rc)
            return rc;
    }
}

static int pg_exec(struct sqldb *db, const char *sql)
{
    PGresult *r;
    int rc = pg_run(db, sql, NULL, &r);
    if (!rc)
        PQclear(r);
    return rc;
}

/* Writers of one experiment are kept apart by the campaign's advisory lock, not here. */
static int pg_begin_write(struct sqldb *db)
{
    return pg_exec(db, "BEGIN");
}

/* The open transaction's id into txid, or "" when it has none (it wrote nothing). */
static int current_txid(struct sqldb *db, char *txid, size_t len)
{
    PGresult *r;
    txid[0] = '\0';
    int rc = pg_run(db, "SELECT txid_current_if_assigned()", NULL, &r);
    if (rc)
        return rc;
    const char *v = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0) ? PQgetvalue(r, 0, 0) : "";
    if (strlen(v) < len && strspn(v, "0123456789") == strlen(v))
        memcpy(txid, v, strlen(v) + 1);
    PQclear(r);
    return SQLDB_OK;
}

/* What the server says of transaction txid: "committed", "aborted", "in progress" or "". */
static void txid_status(struct pg *p, const char *txid, char *out, size_t len)
{
    char sql[64];
    snprintf(sql, sizeof(sql), "SELECT txid_status(%s)", txid);
    PGresult *r = PQexec(p->conn, sql);
    bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0);
    snprintf(out, len, "%s", ok ? PQgetvalue(r, 0, 0) : "");
    PQclear(r);
}

/*
 * COMMIT, after asking the transaction's id. When the connection drops
 * during COMMIT, whether the server committed is unknown until asked: once
 * the session is back (waited for as after any lost connection),
 * txid_status() says committed (done), aborted (none of it was kept: the
 * transaction is lost and may be run again) or neither (the error stands,
 * saying so). A transaction without an id wrote nothing: lost, harmlessly.
 */
static int pg_commit(struct sqldb *db)
{
    struct pg *p = PG(db);
    char txid[24], first[sizeof(db->errmsg)], status[32];
    /* txid_current_if_assigned() and txid_status() are PostgreSQL 10's. */
    if (PQserverVersion(p->conn) < 100000)
        return pg_exec(db, "COMMIT");
    int rc = current_txid(db, txid, sizeof(txid));
    if (!rc)
        rc = pg_exec(db, "COMMIT");
    if (rc != SQLDB_ECONN || db->tx_lost)
        return rc;
    if (!txid[0]) {
        db->tx_lost = true;
        return rc;
    }
    snprintf(first, sizeof(first), "%s", db->errmsg);
    rc = pg_recover(db);
    if (rc)
        return rc;
    txid_status(p, txid, status, sizeof(status));
    if (!strcmp(status, "committed")) {
        fprintf(stderr, "netab: the transaction in flight when the connection dropped was "
                        "committed\n");
        return SQLDB_OK;
    }
    if (!strcmp(status, "aborted")) {
        db->tx_lost = true;
        return sqldb_fail(db, SQLDB_ECONN, "%s", first);
    }
    return sqldb_fail(db, SQLDB_ECONN,
                      "the connection dropped during COMMIT and the server cannot say whether "
                      "it committed (%s)",
                      first);
}

/* sqldb_reconnect(): nothing to do when pg_commit() has just reconnected. */
static int pg_reconnect(struct sqldb *db)
{
    if (PG(db)->back)
        return SQLDB_OK;
    return pg_recover(db);
}

static int pg_prepare(struct sqldb *db, const char *sql, struct sqldb_stmt *st)
{
    struct pg_stmt *p = calloc(1, sizeof(*p));
    if (!p)
        return sqldb_fail(db, SQLDB_ENOMEM, "out of memory");
    p->sql = sqldb_rewrite_placeholders(sql, &p->nparams);
    if (p->sql && p->nparams > 0) {
        p->values = calloc((size_t)p->nparams, sizeof(*p->values));
        p->types = calloc((size_t)p->nparams, sizeof(*p->types));
    }
    if (!p->sql || (p->nparams > 0 && (!p->values || !p->types))) {
        free(p->sql);
        free(p->values);
        free(p->types);
        free(p);
        return sqldb_fail(db, SQLDB_ENOMEM, "out of memory");
    }
    st->impl = p;
    return SQLDB_OK;
}

static int pg_bind(struct sqldb_stmt *st, int i, int type, int64_t iv, double dv, const char *sv)
{
    struct pg_stmt *p = PST(st);
    if (i < 1 || i > p->nparams)
        return sqldb_fail(st->db, SQLDB_EOTHER, "bind index %d out of range", i);
    char buf[40];
    const char *v = NULL;
    Oid t = 0;
    if (type == SQLDB_T_INT64) {
        snprintf(buf, sizeof(buf), "%lld", (long long)iv);
        v = buf;
        t = OID_INT8;
    } else if (type == SQLDB_T_DOUBLE) {
        /* 17 significant digits read back to the same double. */
        snprintf(buf, sizeof(buf), "%.17g", dv);
        v = buf;
        t = OID_FLOAT8;
    } else if (type == SQLDB_T_TEXT) {
        v = sv;
        t = OID_TEXT;
    }
    char *copy = v ? strdup(v) : NULL;
    if (v && !copy)
        return sqldb_fail(st->db, SQLDB_ENOMEM, "out of memory");
    free(p->values[i - 1]);
    p->values[i - 1] = copy;
    p->types[i - 1] = t;
    return SQLDB_OK;
}

static int pg_step(struct sqldb_stmt *st)
{
    struct pg_stmt *p = PST(st);
    if (!p->res) {
        int rc = pg_run(st->db, NULL, p, &p->res);
        if (rc)
            return rc;
        p->row = -1;
        p->nrows = PQresultStatus(p->res) == PGRES_TUPLES_OK ? PQntuples(p->res) : 0;
    }
    return ++p->row < p->nrows ? SQLDB_ROW : SQLDB_DONE;
}

static void pg_reset(struct sqldb_stmt *st)
{
    PQclear(PST(st)->res);
    PST(st)->res = NULL;
}

static void pg_finalize(struct sqldb_stmt *st)
{
    struct pg_stmt *p = PST(st);
    PQclear(p->res);
    for (int i = 0; i < p->nparams; i++)
        free(p->values[i]);
    free(p->values);
    free(p->types);
    free(p->sql);
    free(p);
}

static bool pg_is_null(struct sqldb_stmt *st, int i)
{
    struct pg_stmt *p = PST(st);
    return !p->res || p->row >= p->nrows || PQgetisnull(p->res, p->row, i);
}

static const char *pg_col_text(struct sqldb_stmt *st, int i)
{
    return pg_is_null(st, i) ? NULL : PQgetvalue(PST(st)->res, PST(st)->row, i);
}

static int64_t pg_col_int64(struct sqldb_stmt *st, int i)
{
    const char *v = pg_col_text(st, i);
    if (!v)
        return 0;
    if (!strcmp(v, "t") || !strcmp(v, "f"))
        return *v == 't';
    /* sum() and avg() of integers come back as numeric: "12" or "12.0000". */
    return strchr(v, '.') ? (int64_t)strtod(v, NULL) : strtoll(v, NULL, 10);
}

static double pg_col_double(struct sqldb_stmt *st, int i)
{
    const char *v = pg_col_text(st, i);
    return v ? strtod(v, NULL) : 0.0;
}

static int pg_lock_try(struct sqldb *db, int32_t space, int32_t key)
{
    struct pg *p = PG(db);
    if (p->nlocks == PG_MAX_LOCKS)
        return sqldb_fail(db, SQLDB_EOTHER, "too many session locks");
    char sql[96];
    snprintf(sql, sizeof(sql), "SELECT pg_try_advisory_lock(%d, %d)", (int)space, (int)key);
    PGresult *r;
    int rc = pg_run(db, sql, NULL, &r);
    if (rc)
        return rc;
    bool got = !strcmp(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    if (got) {
        p->locks[p->nlocks][0] = space;
        p->locks[p->nlocks][1] = key;
        p->nlocks++;
    }
    return got ? 1 : 0;
}

static int pg_lock_held(struct sqldb *db, int32_t space, int32_t key)
{
    char sql[192];
    /* The two-key form of an advisory lock shows as classid, objid and objsubid 2. */
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %u "
             "AND objid = %u AND objsubid = 2 AND granted",
             (unsigned)space, (unsigned)key);
    PGresult *r;
    int rc = pg_run(db, sql, NULL, &r);
    if (rc)
        return rc;
    bool held = strcmp(PQgetvalue(r, 0, 0), "0") != 0;
    PQclear(r);
    return held ? 1 : 0;
}

/* Forgets the lock first: a failure here (the server gone) releases it anyway. */
static void pg_unlock(struct sqldb *db, int32_t space, int32_t key)
{
    struct pg *p = PG(db);
    for (int i = 0; i < p->nlocks; i++) {
        if (p->locks[i][0] != space || p->locks[i][1] != key)
            continue;
        p->locks[i][0] = p->locks[p->nlocks - 1][0];
        p->locks[i][1] = p->locks[p->nlocks - 1][1];
        p->nlocks--;
        char sql[96];
        snprintf(sql, sizeof(sql), "SELECT pg_advisory_unlock(%d, %d)", (int)space, (int)key);
        PGresult *r = PQexec(p->conn, sql);
        PQclear(r);
        return;
    }
}

static void pg_close(struct sqldb *db)
{
    struct pg *p = PG(db);
    if (!p)
        return;
    PQfinish(p->conn);
    free(p->target);
    free(p);
}

static const struct sqldb_ops pg_ops = {
    .exec = pg_exec,
    .begin_write = pg_begin_write,
    .commit = pg_commit,
    .prepare = pg_prepare,
    .bind = pg_bind,
    .step = pg_step,
    .reset = pg_reset,
    .finalize = pg_finalize,
    .is_null = pg_is_null,
    .col_int64 = pg_col_int64,
    .col_double = pg_col_double,
    .col_text = pg_col_text,
    .lock_try = pg_lock_try,
    .lock_held = pg_lock_held,
    .unlock = pg_unlock,
    .reconnect = pg_reconnect,
    .close = pg_close,
};

int sqldb_pg_open(struct sqldb *db, const char *target, unsigned flags)
{
    db->ops = &pg_ops;
    db->dialect = SQLDB_POSTGRES;
    struct pg *p = calloc(1, sizeof(*p));
    if (!p || !(p->target = strdup(target))) {
        free(p);
        db->ops = NULL;
        return sqldb_fail(db, SQLDB_ENOMEM, "out of memory");
    }
    db->impl = p;
    db->readonly = flags & SQLDB_OPEN_READONLY;
    return pg_connect(db, flags & SQLDB_OPEN_READONLY);
}
