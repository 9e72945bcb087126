/*
 * The store's few helpers over the database layer (store_priv.h): errors a
 * user can act on, transactions, new ids, and timestamps written and read
 * the same way on SQLite and PostgreSQL.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store_priv.h"
#include "util/redact.h"

int store_db_err(const struct store *s, int rc, const char *what, char *err, size_t errlen)
{
    const char *path = s && s->path ? s->path : "?";
    int sys = s && s->db ? sqldb_system_errno(s->db) : 0;
    const char *msg = s && s->db ? sqldb_errmsg(s->db) : "unknown error";
    switch (rc) {
    case SQLDB_EREADONLY:
        return err_set(err, errlen, EROFS,
                       "%s: the results database %s is read-only (check the permissions of the "
                       "file and its directory, the file system's mount options, or the database "
                       "role's privileges); nothing already recorded was changed",
                       what, path);
    case SQLDB_EFULL:
        return err_set(err, errlen, ENOSPC,
                       "%s: the disk holding %s is full; nothing already recorded was changed, "
                       "free some space and try again",
                       what, path);
    case SQLDB_ENOTADB:
        return err_set(err, errlen, ENOTSUP,
                       "%s: %s is not a SQLite database (is --db or NETAB_DB pointing at the "
                       "right file?); it was left untouched",
                       what, path);
    case SQLDB_EBUSY:
        return err_set(err, errlen, EBUSY, "%s: %s stayed locked by another process too long", what,
                       path);
    case SQLDB_ECANTOPEN:
        return err_set(err, errlen, sys ? sys : EACCES, "%s: cannot open %s: %s", what, path,
                       sys ? strerror(sys) : msg);
    case SQLDB_ECONN:
        return err_set(err, errlen, ECONNRESET, "%s: the results database %s went away: %s", what,
                       path, msg);
    case SQLDB_EIO:
        return err_set(err, errlen, EIO, "%s: I/O error on %s: %s%s%s", what, path, msg,
                       sys ? ": " : "", sys ? strerror(sys) : "");
    case SQLDB_ECORRUPT:
        return err_set(err, errlen, EIO, "%s: the results database %s is damaged: %s", what, path,
                       msg);
    case SQLDB_ENOMEM:
        return err_set(err, errlen, ENOMEM, "%s: out of memory", what);
    case SQLDB_ECONSTRAINT:
        return err_set(err, errlen, EINVAL, "%s: refused by the database: %s", what, msg);
    default:
        return err_set(err, errlen, EIO, "%s: %s (%s)", what, msg, path);
    }
}

int store_exec(struct store *s, const char *sql, const char *what, char *err, size_t errlen)
{
    int rc = sqldb_exec(s->db, sql);
    return rc == SQLDB_OK ? 0 : store_db_err(s, rc, what, err, errlen);
}

int store_prepare(struct store *s, const char *sql, struct sqldb_stmt **st, char *err,
                  size_t errlen)
{
    int rc = sqldb_prepare(s->db, sql, st);
    return rc == SQLDB_OK ? 0 : store_db_err(s, rc, "preparing a query", err, errlen);
}

int store_begin(struct store *s, const char *what, char *err, size_t errlen)
{
    if (s->readonly)
        return store_db_err(s, SQLDB_EREADONLY, what, err, errlen);
    int rc = sqldb_begin_write(s->db);
    return rc == SQLDB_OK ? 0 : store_db_err(s, rc, what, err, errlen);
}

int store_end_tx(struct store *s, int e, const char *what, char *err, size_t errlen)
{
    if (!e) {
        int rc = sqldb_commit(s->db);
        if (rc != SQLDB_OK)
            e = store_db_err(s, rc, what, err, errlen);
    }
    if (e)
        sqldb_rollback(s->db);
    return e;
}

bool store_tx_again(struct store *s, int *e, int *tries, const char *what, char *err, size_t errlen)
{
    if (*e != -ECONNRESET || !sqldb_tx_lost(s->db) || ++*tries >= STORE_TX_TRIES)
        return false;
    int rc = sqldb_reconnect(s->db);
    if (rc == SQLDB_OK)
        return true;
    *e = store_db_err(s, rc, what, err, errlen);
    return false;
}

int store_insert_id(struct store *s, struct sqldb_stmt *st, int64_t *id, const char *what,
                    char *err, size_t errlen)
{
    int rc = sqldb_step(st);
    int e = 0;
    if (rc == SQLDB_ROW)
        *id = sqldb_column_int64(st, 0);
    else
        e = store_db_err(s, rc == SQLDB_DONE ? SQLDB_EOTHER : rc, what, err, errlen);
    /* RETURNING's row is read; SQLite finishes the statement on the next step. */
    if (!e && (rc = sqldb_step(st)) != SQLDB_DONE)
        e = store_db_err(s, rc, what, err, errlen);
    sqldb_finalize(st);
    return e;
}

void store_now(char out[32])
{
    struct timespec ts;
    struct tm tm;
    char buf[64];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(ts.tv_nsec / 1000000));
    snprintf(out, 32, "%.31s", buf);
}

/* Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fff]Z", or NAN. */
static double iso_seconds(const char *t)
{
    struct tm tm = {0};
    double sec;
    if (!t || sscanf(t, "%d-%d-%dT%d:%d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                     &tm.tm_min, &sec) != 6)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) + sec;
}

double store_seconds_between(const char *a, const char *b)
{
    return iso_seconds(b) - iso_seconds(a);
}

char *store_col_text(struct sqldb_stmt *st, int i, bool *oom)
{
    const char *t = sqldb_column_text(st, i);
    if (!t)
        return NULL;
    char *c = strdup(t);
    if (!c)
        *oom = true;
    return c;
}

int store_bind_clean(struct sqldb_stmt *st, int i, const char *text)
{
    if (!text || (!strstr(text, "postgresql://") && !strstr(text, "postgres://")))
        return sqldb_bind_text(st, i, text);
    char *r = redact_text(text);
    if (!r)
        return SQLDB_ENOMEM;
    int rc = sqldb_bind_text(st, i, r);
    free(r);
    return rc;
}
