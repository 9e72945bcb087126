/* The runners table (store_runner.h): who runs a campaign, its heartbeat, how it ended. */
#include "store/store_runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

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
static int write_done(struct store *s, struct sqldb_stmt *st, const char *what, char *err,
                      size_t errlen)
{
    int rc = sqldb_step(st);
    sqldb_finalize(st);
    return rc == SQLDB_DONE ? 0 : store_db_err(s, rc, what, err, errlen);
}

static int prepare_write(struct store *s, const char *sql, const char *what, struct sqldb_stmt **st,
                         char *err, size_t errlen)
{
    if (s->readonly)
        return store_db_err(s, SQLDB_EREADONLY, what, err, errlen);
    return store_prepare(s, sql, st, err, errlen);
}

/* One attempt, in a transaction of its own: a reconnect then knows whether the row was added. */
static int runner_begin_once(struct store *s, int64_t experiment_id, long pid, const char *host,
                             const char *boot_id, int64_t *id, const char *what, char *err,
                             size_t errlen)
{
    struct sqldb_stmt *st;
    int e = prepare_write(s,
                          "INSERT INTO runners (experiment_id, pid, host, boot_id, started, "
                          "heartbeat) VALUES (?, ?, ?, ?, ?5, ?5) RETURNING id",
                          what, &st, err, errlen);
    if (e)
        return e;
    if ((e = store_begin(s, what, err, errlen))) {
        sqldb_finalize(st);
        return e;
    }
    sqldb_bind_int64(st, 1, experiment_id);
    sqldb_bind_int64(st, 2, pid);
    sqldb_bind_text(st, 3, host ? host : "");
    sqldb_bind_text(st, 4, boot_id);
    char now[32];
    store_now(now);
    sqldb_bind_text(st, 5, now);
    int64_t rid = 0;
    e = store_insert_id(s, st, &rid, what, err, errlen);
    e = store_end_tx(s, e, what, err, errlen);
    if (!e)
        *id = rid;
    return e;
}

int store_runner_begin(struct store *s, int64_t experiment_id, long pid, const char *host,
                       const char *boot_id, int64_t *id, char *err, size_t errlen)
{
    const char *what = "recording the campaign's runner";
    int e, tries = 0;
    do
        e = runner_begin_once(s, experiment_id, pid, host, boot_id, id, what, err, errlen);
    while (store_tx_again(s, &e, &tries, what, err, errlen));
    return e;
}

int store_runner_beat(struct store *s, int64_t id, char *err, size_t errlen)
{
    const char *what = "writing the runner's heartbeat";
    struct sqldb_stmt *st;
    int e =
        prepare_write(s, "UPDATE runners SET heartbeat = ? WHERE id = ?", what, &st, err, errlen);
    if (e)
        return e;
    char now[32];
    store_now(now);
    sqldb_bind_text(st, 1, now);
    sqldb_bind_int64(st, 2, id);
    return write_done(s, st, what, err, errlen);
}

int store_runner_end(struct store *s, int64_t id, const char *reason, char *err, size_t errlen)
{
    const char *what = "recording how the runner ended";
    struct sqldb_stmt *st;
    int e = prepare_write(s, "UPDATE runners SET ended = ?, end_reason = ? WHERE id = ?", what, &st,
                          err, errlen);
    if (e)
        return e;
    char now[32];
    store_now(now);
    sqldb_bind_text(st, 1, now);
    sqldb_bind_text(st, 2, reason);
    sqldb_bind_int64(st, 3, id);
    return write_done(s, st, what, err, errlen);
}

int store_runner_last(struct store *s, int64_t experiment_id, struct store_runner *r, bool *found,
                      char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    *found = false;
    int e = store_prepare(s,
                          "SELECT id, pid, host, boot_id, started, heartbeat, ended, end_reason "
                          "FROM runners WHERE experiment_id = ? ORDER BY id DESC LIMIT 1",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    int rc = sqldb_step(st);
    bool oom = false;
    if (rc == SQLDB_ROW) {
        memset(r, 0, sizeof(*r));
        r->id = sqldb_column_int64(st, 0);
        r->experiment_id = experiment_id;
        r->pid = (long)sqldb_column_int64(st, 1);
        r->host = store_col_text(st, 2, &oom);
        r->boot_id = store_col_text(st, 3, &oom);
        r->started = store_col_text(st, 4, &oom);
        r->heartbeat = store_col_text(st, 5, &oom);
        r->ended = store_col_text(st, 6, &oom);
        r->end_reason = store_col_text(st, 7, &oom);
        *found = !oom;
        if (oom)
            store_runner_free(r);
    } else if (rc != SQLDB_DONE) {
        e = store_db_err(s, rc, "reading the campaign's runner", err, errlen);
    }
    sqldb_finalize(st);
    if (oom)
        e = err_set(err, errlen, ENOMEM, "out of memory");
    return e;
}

int store_last_run_get(struct store *s, int64_t experiment_id, struct store_last_run *r,
                       bool *found, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    *found = false;
    int e = store_prepare(s,
                          "SELECT id, seq, attempt, status, variant, cell, started, error "
                          "FROM runs WHERE experiment_id = ? ORDER BY id DESC LIMIT 1",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    int rc = sqldb_step(st);
    bool oom = false;
    if (rc == SQLDB_ROW) {
        memset(r, 0, sizeof(*r));
        r->run_id = sqldb_column_int64(st, 0);
        r->seq = sqldb_column_int(st, 1);
        r->attempt = sqldb_column_int(st, 2);
        r->status = store_run_status_parse(sqldb_column_text(st, 3));
        r->variant = store_col_text(st, 4, &oom);
        r->cell = store_col_text(st, 5, &oom);
        r->started = store_col_text(st, 6, &oom);
        r->error = store_col_text(st, 7, &oom);
        *found = !oom;
        if (oom)
            store_last_run_free(r);
    } else if (rc != SQLDB_DONE) {
        e = store_db_err(s, rc, "reading the last run", err, errlen);
    }
    sqldb_finalize(st);
    if (oom)
        e = err_set(err, errlen, ENOMEM, "out of memory");
    return e;
}
