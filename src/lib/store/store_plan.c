/* Reading an experiment and its plan back, for reports and for resuming campaigns. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_plan.h"
#include "store/store_priv.h"

void store_experiment_free(struct store_experiment *x)
{
    if (!x)
        return;
    free(x->name);
    free(x->created);
    free(x->status);
    memset(x, 0, sizeof(*x));
}

int store_experiment_get(struct store *s, int64_t id, struct store_experiment *out,
                         char **spec_json, char **file_text, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    char *spec = NULL, *file = NULL;
    memset(out, 0, sizeof(*out));
    int e = store_prepare(s,
                          "SELECT id, name, created, status, seed, spec_json, file_text, "
                          "(SELECT count(*) FROM plan p WHERE p.experiment_id = e.id), "
                          "(SELECT count(*) FROM runs r WHERE r.experiment_id = e.id) "
                          "FROM experiments e WHERE id = ?1",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, id);
    int rc = sqldb_step(st);
    if (rc == SQLDB_ROW) {
        bool oom = false;
        out->id = sqldb_column_int64(st, 0);
        out->name = store_col_text(st, 1, &oom);
        out->created = store_col_text(st, 2, &oom);
        out->status = store_col_text(st, 3, &oom);
        out->seed = (uint64_t)sqldb_column_int64(st, 4);
        if (spec_json)
            spec = store_col_text(st, 5, &oom);
        if (file_text)
            file = store_col_text(st, 6, &oom);
        out->planned = sqldb_column_int64(st, 7);
        out->runs = sqldb_column_int64(st, 8);
        if (oom)
            e = err_set(err, errlen, ENOMEM, "out of memory reading experiment %lld",
                        (long long)id);
    } else if (rc == SQLDB_DONE) {
        e = err_set(err, errlen, ENOENT, "there is no experiment %lld in %s", (long long)id,
                    store_path(s));
    } else {
        e = store_db_err(s, rc, "reading an experiment", err, errlen);
    }
    sqldb_finalize(st);
    if (e) {
        store_experiment_free(out);
        free(spec);
        free(file);
        spec = file = NULL;
    }
    if (spec_json)
        *spec_json = spec;
    if (file_text)
        *file_text = file;
    return e;
}

void store_plan_list_free(struct store_plan_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].variant);
        free(rows[i].cell);
    }
    free(rows);
}

/* Columns in this order: seq, variant, cell, warmup, round. */
#define PLAN_COLUMNS "seq, variant, cell, warmup, round"

static void plan_row_read(struct sqldb_stmt *st, struct store_plan_row *r, bool *oom)
{
    r->seq = sqldb_column_int(st, 0);
    r->variant = store_col_text(st, 1, oom);
    r->cell = store_col_text(st, 2, oom);
    r->warmup = sqldb_column_int(st, 3) != 0;
    r->round = sqldb_column_int(st, 4);
}

int store_plan_list(struct store *s, int64_t experiment_id, struct store_plan_row **out, size_t *n,
                    char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    *out = NULL;
    *n = 0;
    int e =
        store_prepare(s, "SELECT " PLAN_COLUMNS " FROM plan WHERE experiment_id = ?1 ORDER BY seq",
                      &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    struct store_plan_row *rows = NULL;
    size_t count = 0, cap = 0;
    int rc;
    while ((rc = sqldb_step(st)) == SQLDB_ROW) {
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            void *p = realloc(rows, cap * sizeof(*rows));
            if (!p) {
                e = err_set(err, errlen, ENOMEM, "out of memory reading the plan");
                break;
            }
            rows = p;
        }
        bool oom = false;
        struct store_plan_row *r = &rows[count++];
        plan_row_read(st, r, &oom);
        if (oom) {
            e = err_set(err, errlen, ENOMEM, "out of memory reading the plan");
            break;
        }
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(s, rc, "reading the plan", err, errlen);
    sqldb_finalize(st);
    if (e) {
        store_plan_list_free(rows, count);
        return e;
    }
    *out = rows;
    *n = count;
    return 0;
}

/* One plan entry, for the campaign runner. */

int store_plan_get(struct store *s, int64_t id, int seq, struct store_plan_row *out, char *err,
                   size_t errlen)
{
    struct sqldb_stmt *st;
    memset(out, 0, sizeof(*out));
    int e =
        store_prepare(s, "SELECT " PLAN_COLUMNS " FROM plan WHERE experiment_id = ? AND seq = ?",
                      &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, id);
    sqldb_bind_int64(st, 2, seq);
    int rc = sqldb_step(st);
    if (rc == SQLDB_ROW) {
        bool oom = false;
        plan_row_read(st, out, &oom);
        if (oom || !out->variant) {
            store_plan_row_free(out);
            e = err_set(err, errlen, ENOMEM, "out of memory reading the plan");
        }
    } else if (rc == SQLDB_DONE) {
        e = err_set(err, errlen, ENOENT, "experiment %lld has no planned seq %d", (long long)id,
                    seq);
    } else {
        e = store_db_err(s, rc, "reading the plan", err, errlen);
    }
    sqldb_finalize(st);
    return e;
}

void store_plan_row_free(struct store_plan_row *p)
{
    free(p->variant);
    free(p->cell);
    memset(p, 0, sizeof(*p));
}
