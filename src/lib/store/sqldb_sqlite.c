/* The SQLite backend of the database layer (sqldb.h): a thin wrapper of sqlite3. */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store/sqldb_priv.h"

/* How long a writer waits for another process's lock before giving up. */
#define SQLITE_BUSY_TIMEOUT_MS 10000

#define HANDLE(db) ((sqlite3 *)(db)->impl)
#define STMT(st) ((sqlite3_stmt *)(st)->impl)

/* A SQLite result code as the layer's class, keeping SQLite's message. */
static int lite_err(struct sqldb *db, int rc)
{
    sqlite3 *h = HANDLE(db);
    db->sys_errno = h ? sqlite3_system_errno(h) : 0;
    sqldb_fail(db, 0, "%s", h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
    switch (rc & 0xff) {
    case SQLITE_OK:
        return SQLDB_OK;
    case SQLITE_ROW:
        return SQLDB_ROW;
    case SQLITE_DONE:
        return SQLDB_DONE;
    case SQLITE_READONLY:
        return SQLDB_EREADONLY;
    case SQLITE_FULL:
        return SQLDB_EFULL;
    case SQLITE_NOTADB:
        return SQLDB_ENOTADB;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return SQLDB_EBUSY;
    case SQLITE_CANTOPEN:
        return SQLDB_ECANTOPEN;
    case SQLITE_IOERR:
        if (db->sys_errno == ENOSPC || db->sys_errno == EDQUOT)
            return SQLDB_EFULL;
        if (db->sys_errno == EROFS || db->sys_errno == EACCES || db->sys_errno == EPERM)
            return SQLDB_EREADONLY;
        return SQLDB_EIO;
    case SQLITE_CORRUPT:
        return SQLDB_ECORRUPT;
    case SQLITE_NOMEM:
        return SQLDB_ENOMEM;
    case SQLITE_CONSTRAINT:
        return SQLDB_ECONSTRAINT;
    default:
        return SQLDB_EOTHER;
    }
}

static int lite_exec(struct sqldb *db, const char *sql)
{
    int rc = sqlite3_exec(HANDLE(db), sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        db->changes = sqlite3_changes(HANDLE(db));
    return rc == SQLITE_OK ? SQLDB_OK : lite_err(db, rc);
}

/* IMMEDIATE: the write lock now, so that two writers queue on the busy timeout. */
static int lite_begin_write(struct sqldb *db)
{
    return lite_exec(db, "BEGIN IMMEDIATE");
}

static int lite_prepare(struct sqldb *db, const char *sql, struct sqldb_stmt *st)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(HANDLE(db), sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return lite_err(db, rc);
    st->impl = s;
    return SQLDB_OK;
}

static int lite_bind(struct sqldb_stmt *st, int i, int type, int64_t iv, double dv, const char *sv)
{
    int rc;
    switch (type) {
    case SQLDB_T_INT64:
        rc = sqlite3_bind_int64(STMT(st), i, iv);
        break;
    case SQLDB_T_DOUBLE:
        rc = sqlite3_bind_double(STMT(st), i, dv);
        break;
    case SQLDB_T_TEXT:
        rc = sqlite3_bind_text(STMT(st), i, sv, -1, SQLITE_TRANSIENT);
        break;
    default:
        rc = sqlite3_bind_null(STMT(st), i);
    }
    return rc == SQLITE_OK ? SQLDB_OK : lite_err(st->db, rc);
}

static int lite_step(struct sqldb_stmt *st)
{
    int rc = sqlite3_step(STMT(st));
    if (rc == SQLITE_DONE) {
        st->db->changes = sqlite3_changes(HANDLE(st->db));
        return SQLDB_DONE;
    }
    if (rc == SQLITE_ROW)
        return SQLDB_ROW;
    /* A failed statement inside BEGIN...COMMIT may have ended the transaction. */
    int r = lite_err(st->db, rc);
    if (sqlite3_get_autocommit(HANDLE(st->db)))
        st->db->in_tx = false;
    return r;
}

static void lite_reset(struct sqldb_stmt *st)
{
    sqlite3_reset(STMT(st));
}

static void lite_finalize(struct sqldb_stmt *st)
{
    sqlite3_finalize(STMT(st));
}

static bool lite_is_null(struct sqldb_stmt *st, int i)
{
    return sqlite3_column_type(STMT(st), i) == SQLITE_NULL;
}

static int64_t lite_col_int64(struct sqldb_stmt *st, int i)
{
    return sqlite3_column_int64(STMT(st), i);
}

static double lite_col_double(struct sqldb_stmt *st, int i)
{
    return sqlite3_column_double(STMT(st), i);
}

static const char *lite_col_text(struct sqldb_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(STMT(st), i);
}

static int lite_lock(struct sqldb *db, int32_t space, int32_t key)
{
    (void)space;
    (void)key;
    return sqldb_fail(db, SQLDB_EOTHER, "SQLite stores have no session locks");
}

static void lite_unlock(struct sqldb *db, int32_t space, int32_t key)
{
    (void)db;
    (void)space;
    (void)key;
}

static void lite_close(struct sqldb *db)
{
    sqlite3_close_v2(HANDLE(db));
}

static const struct sqldb_ops lite_ops = {
    .exec = lite_exec,
    .begin_write = lite_begin_write,
    .prepare = lite_prepare,
    .bind = lite_bind,
    .step = lite_step,
    .reset = lite_reset,
    .finalize = lite_finalize,
    .is_null = lite_is_null,
    .col_int64 = lite_col_int64,
    .col_double = lite_col_double,
    .col_text = lite_col_text,
    .lock_try = lite_lock,
    .lock_held = lite_lock,
    .unlock = lite_unlock,
    .close = lite_close,
};

int sqldb_sqlite_open(struct sqldb *db, const char *target, unsigned flags)
{
    db->ops = &lite_ops;
    db->dialect = SQLDB_SQLITE;
    int oflags = flags & SQLDB_OPEN_READONLY
                     ? SQLITE_OPEN_READONLY
                     : SQLITE_OPEN_READWRITE | (flags & SQLDB_OPEN_CREATE ? SQLITE_OPEN_CREATE : 0);
    sqlite3 *h = NULL;
    int rc = sqlite3_open_v2(
        target, &h, oflags | SQLITE_OPEN_FULLMUTEX | (flags & SQLDB_OPEN_URI ? SQLITE_OPEN_URI : 0),
        NULL);
    db->impl = h;
    if (rc != SQLITE_OK)
        return lite_err(db, rc);
    sqlite3_extended_result_codes(h, 1);
    sqlite3_busy_timeout(h, SQLITE_BUSY_TIMEOUT_MS);
    /* SQLite quietly opens read-only when the file or file system forbids writing. */
    db->readonly = (flags & SQLDB_OPEN_READONLY) || sqlite3_db_readonly(h, "main") == 1;
    return SQLDB_OK;
}
