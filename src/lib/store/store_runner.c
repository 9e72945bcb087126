/* The runners table (store_runner.h): who runs a campaign, its heartbeat, how it ended. */
#include "store/store_runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

void store_runner_free(struct store_runner *r)
{
    free(r->host);
    free(r->boot_id);
    free(r->started);
    free(r->heartbeat);
    free(r->ended);
    free(r->end_reason);
    memset(r, 0, sizeof(*r));
}

void store_last_run_free(struct store_last_run *r)
{
    free(r->variant);
    free(r->cell);
    free(r->started);
    free(r->error);
    memset(r, 0, sizeof(*r));
}

/* Steps a write statement to its end and finalizes it. */
static int write_done(struct store *s, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_sqlite_err(s, rc, what, err, errlen);
}

static int prepare_write(struct store *s, const char *sql, const char *what, sqlite3_stmt **st,
                         char *err, size_t errlen)
{
    if (s->readonly)
        return store_sqlite_err(s, SQLITE_READONLY, what, err, errlen);
    return store_prepare(s, sql, st, err, errlen);
}

int store_runner_begin(struct store *s, int64_t experiment_id, long pid, const char *host,
                       const char *boot_id, int64_t *id, char *err, size_t errlen)
{
    const char *what = "recording the campaign's runner";
    sqlite3_stmt *st;
    int e = prepare_write(s,
                          "INSERT INTO runners (experiment_id, pid, host, boot_id) "
                          "VALUES (?, ?, ?, ?)",
                          what, &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, experiment_id);
    sqlite3_bind_int64(st, 2, pid);
    store_bind_text(st, 3, host ? host : "");
    store_bind_text(st, 4, boot_id);
    e = write_done(s, st, what, err, errlen);
    if (!e)
        *id = sqlite3_last_insert_rowid(s->db);
    return e;
}

int store_runner_beat(struct store *s, int64_t id, char *err, size_t errlen)
{
    const char *what = "writing the runner's heartbeat";
    sqlite3_stmt *st;
    int e = prepare_write(s, "UPDATE runners SET heartbeat = " NOW " WHERE id = ?", what, &st, err,
                          errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    return write_done(s, st, what, err, errlen);
}

int store_runner_end(struct store *s, int64_t id, const char *reason, char *err, size_t errlen)
{
    const char *what = "recording how the runner ended";
    sqlite3_stmt *st;
    int e = prepare_write(s, "UPDATE runners SET ended = " NOW ", end_reason = ? WHERE id = ?",
                          what, &st, err, errlen);
    if (e)
        return e;
    store_bind_text(st, 1, reason);
    sqlite3_bind_int64(st, 2, id);
    return write_done(s, st, what, err, errlen);
}

int store_runner_last(struct store *s, int64_t experiment_id, struct store_runner *r, bool *found,
                      char *err, size_t errlen)
{
    sqlite3_stmt *st;
    *found = false;
    int e = store_prepare(s,
                          "SELECT id, pid, host, boot_id, started, heartbeat, ended, end_reason "
                          "FROM runners WHERE experiment_id = ? ORDER BY id DESC LIMIT 1",
                          &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, experiment_id);
    int rc = sqlite3_step(st);
    bool oom = false;
    if (rc == SQLITE_ROW) {
        memset(r, 0, sizeof(*r));
        r->id = sqlite3_column_int64(st, 0);
        r->experiment_id = experiment_id;
        r->pid = (long)sqlite3_column_int64(st, 1);
        r->host = store_col_text(st, 2, &oom);
        r->boot_id = store_col_text(st, 3, &oom);
        r->started = store_col_text(st, 4, &oom);
        r->heartbeat = store_col_text(st, 5, &oom);
        r->ended = store_col_text(st, 6, &oom);
        r->end_reason = store_col_text(st, 7, &oom);
        *found = !oom;
        if (oom)
            store_runner_free(r);
    } else if (rc != SQLITE_DONE) {
        e = store_sqlite_err(s, rc, "reading the campaign's runner", err, errlen);
    }
    sqlite3_finalize(st);
    if (oom)
        e = err_set(err, errlen, ENOMEM, "out of memory");
    return e;
}

int store_last_run_get(struct store *s, int64_t experiment_id, struct store_last_run *r,
                       bool *found, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    *found = false;
    int e = store_prepare(s,
                          "SELECT id, seq, attempt, status, variant, cell, started, error "
                          "FROM runs WHERE experiment_id = ? ORDER BY id DESC LIMIT 1",
                          &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, experiment_id);
    int rc = sqlite3_step(st);
    bool oom = false;
    if (rc == SQLITE_ROW) {
        memset(r, 0, sizeof(*r));
        r->run_id = sqlite3_column_int64(st, 0);
        r->seq = sqlite3_column_int(st, 1);
        r->attempt = sqlite3_column_int(st, 2);
        r->status = store_run_status_parse((const char *)sqlite3_column_text(st, 3));
        r->variant = store_col_text(st, 4, &oom);
        r->cell = store_col_text(st, 5, &oom);
        r->started = store_col_text(st, 6, &oom);
        r->error = store_col_text(st, 7, &oom);
        *found = !oom;
        if (oom)
            store_last_run_free(r);
    } else if (rc != SQLITE_DONE) {
        e = store_sqlite_err(s, rc, "reading the last run", err, errlen);
    }
    sqlite3_finalize(st);
    if (oom)
        e = err_set(err, errlen, ENOMEM, "out of memory");
    return e;
}
