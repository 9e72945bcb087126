/*
 * The database layer's front (sqldb.h): picks the backend, dispatches to
 * it, and the placeholder rewriting the PostgreSQL backend needs.
 */
#include "store/sqldb.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqldb_priv.h"

bool sqldb_is_postgres_url(const char *target)
{
    return target && (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11));
}

int sqldb_fail(struct sqldb *db, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(db->errmsg, sizeof(db->errmsg), fmt, ap);
    va_end(ap);
    /* libpq's messages end in a newline and may span lines ("...unexpectedly\n\tThis
     * probably means..."): a sentence built around one must not break. */
    size_t n = 0;
    for (const char *r = db->errmsg; *r;) {
        if (*r == '\n') {
            while (*r == '\n' || *r == '\t' || *r == ' ')
                r++;
            if (*r && n)
                db->errmsg[n++] = ' ';
        } else {
            db->errmsg[n++] = *r++;
        }
    }
    while (n && db->errmsg[n - 1] == ' ')
        n--;
    db->errmsg[n] = '\0';
    return rc;
}

int sqldb_open(const char *target, unsigned flags, struct sqldb **out)
{
    struct sqldb *db = calloc(1, sizeof(*db));
    *out = db;
    if (!db)
        return SQLDB_ENOMEM;
    if (sqldb_is_postgres_url(target))
        return sqldb_pg_open(db, target, flags);
    return sqldb_sqlite_open(db, target, flags);
}

void sqldb_close(struct sqldb *db)
{
    if (!db)
        return;
    if (db->ops)
        db->ops->close(db);
    free(db);
}

enum sqldb_dialect sqldb_dialect(const struct sqldb *db)
{
    return db->dialect;
}

bool sqldb_readonly(const struct sqldb *db)
{
    return db->readonly;
}

const char *sqldb_errmsg(const struct sqldb *db)
{
    return db && db->errmsg[0] ? db->errmsg : "unknown error";
}

int sqldb_system_errno(const struct sqldb *db)
{
    return db ? db->sys_errno : 0;
}

int sqldb_exec(struct sqldb *db, const char *sql)
{
    return db->ops->exec(db, sql);
}

int sqldb_begin_write(struct sqldb *db)
{
    db->tx_lost = false;
    int rc = db->ops->begin_write(db);
    if (rc == SQLDB_OK)
        db->in_tx = true;
    return rc;
}

int sqldb_commit(struct sqldb *db)
{
    int rc = db->ops->commit ? db->ops->commit(db) : db->ops->exec(db, "COMMIT");
    if (rc == SQLDB_OK)
        db->in_tx = false;
    return rc;
}

void sqldb_rollback(struct sqldb *db)
{
    if (!db->in_tx)
        return;
    char keep[sizeof(db->errmsg)];
    /* The failure that made us roll back is the one to report, not this. */
    memcpy(keep, db->errmsg, sizeof(keep));
    (void)db->ops->exec(db, "ROLLBACK");
    memcpy(db->errmsg, keep, sizeof(keep));
    db->in_tx = false;
}

bool sqldb_in_tx(const struct sqldb *db)
{
    return db->in_tx;
}

bool sqldb_tx_lost(const struct sqldb *db)
{
    return db->tx_lost;
}

int sqldb_reconnect(struct sqldb *db)
{
    db->tx_lost = false;
    if (!db->ops->reconnect)
        return sqldb_fail(db, SQLDB_EOTHER, "this database has no connection to restore");
    return db->ops->reconnect(db);
}

int64_t sqldb_changes(const struct sqldb *db)
{
    return db->changes;
}

int sqldb_prepare(struct sqldb *db, const char *sql, struct sqldb_stmt **out)
{
    struct sqldb_stmt *st = calloc(1, sizeof(*st));
    *out = NULL;
    if (!st)
        return sqldb_fail(db, SQLDB_ENOMEM, "out of memory");
    st->db = db;
    int rc = db->ops->prepare(db, sql, st);
    if (rc != SQLDB_OK) {
        free(st);
        return rc;
    }
    *out = st;
    return SQLDB_OK;
}

int sqldb_bind_int64(struct sqldb_stmt *st, int i, int64_t v)
{
    return st->db->ops->bind(st, i, SQLDB_T_INT64, v, 0, NULL);
}

int sqldb_bind_double(struct sqldb_stmt *st, int i, double v)
{
    return st->db->ops->bind(st, i, SQLDB_T_DOUBLE, 0, v, NULL);
}

int sqldb_bind_text(struct sqldb_stmt *st, int i, const char *s)
{
    return st->db->ops->bind(st, i, s ? SQLDB_T_TEXT : SQLDB_T_NULL, 0, 0, s);
}

int sqldb_bind_null(struct sqldb_stmt *st, int i)
{
    return st->db->ops->bind(st, i, SQLDB_T_NULL, 0, 0, NULL);
}

int sqldb_step(struct sqldb_stmt *st)
{
    return st->db->ops->step(st);
}

void sqldb_reset(struct sqldb_stmt *st)
{
    st->db->ops->reset(st);
}

void sqldb_finalize(struct sqldb_stmt *st)
{
    if (!st)
        return;
    st->db->ops->finalize(st);
    free(st);
}

bool sqldb_column_is_null(struct sqldb_stmt *st, int i)
{
    return st->db->ops->is_null(st, i);
}

int64_t sqldb_column_int64(struct sqldb_stmt *st, int i)
{
    return st->db->ops->col_int64(st, i);
}

int sqldb_column_int(struct sqldb_stmt *st, int i)
{
    return (int)st->db->ops->col_int64(st, i);
}

double sqldb_column_double(struct sqldb_stmt *st, int i)
{
    return st->db->ops->col_double(st, i);
}

const char *sqldb_column_text(struct sqldb_stmt *st, int i)
{
    return st->db->ops->col_text(st, i);
}

int sqldb_lock_try(struct sqldb *db, int32_t space, int32_t key)
{
    return db->ops->lock_try(db, space, key);
}

void sqldb_unlock(struct sqldb *db, int32_t space, int32_t key)
{
    db->ops->unlock(db, space, key);
}

int sqldb_lock_held(struct sqldb *db, int32_t space, int32_t key)
{
    return db->ops->lock_held(db, space, key);
}

char *sqldb_rewrite_placeholders(const char *sql, int *nparams)
{
    /* "$n" is at most as long as "?" plus 10 digits. */
    size_t cap = strlen(sql) * 11 + 1;
    char *out = malloc(cap), *o = out;
    int max = 0;
    char quote = 0;
    if (!out)
        return NULL;
    for (const char *p = sql; *p;) {
        if (quote) {
            /* A doubled quote inside a string stays inside it. */
            if (*p == quote)
                quote = 0;
            *o++ = *p++;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            quote = *p;
            *o++ = *p++;
            continue;
        }
        if (*p != '?') {
            *o++ = *p++;
            continue;
        }
        p++;
        int n;
        if (isdigit((unsigned char)*p)) {
            n = 0;
            while (isdigit((unsigned char)*p) && n < 100000)
                n = n * 10 + (*p++ - '0');
        } else {
            n = max + 1;
        }
        if (n > max)
            max = n;
        o += sprintf(o, "$%d", n);
    }
    *o = '\0';
    *nparams = max;
    return out;
}
