/* Reading experiments and plan entries back (store_plan.h). */
#include "store/store_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

/* A copy of a text column, NULL for SQL NULL; *oom is set when the copy fails. */
static char *dup_col(sqlite3_stmt *st, int i, bool *oom)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t)
        return NULL;
    char *s = strdup((const char *)t);
    if (!s)
        *oom = true;
    return s;
}

int store_experiment_get(struct store *s, int64_t id, struct store_experiment_info *out, char *err,
                         size_t errlen)
{
    sqlite3_stmt *st;
    memset(out, 0, sizeof(*out));
    int e = store_prepare(s, "SELECT name, status, file_text, seed FROM experiments WHERE id = ?",
                          &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        bool oom = false;
        out->id = id;
        out->name = dup_col(st, 0, &oom);
        out->status = dup_col(st, 1, &oom);
        out->file_text = dup_col(st, 2, &oom);
        out->seed = (uint64_t)sqlite3_column_int64(st, 3);
        if (oom) {
            store_experiment_info_free(out);
            e = err_set(err, errlen, ENOMEM, "out of memory reading experiment %lld",
                        (long long)id);
        }
    } else if (rc == SQLITE_DONE) {
        e = err_set(err, errlen, ENOENT, "there is no experiment %lld in %s", (long long)id,
                    s->path);
    } else {
        e = store_sqlite_err(s, rc, "reading the experiment", err, errlen);
    }
    sqlite3_finalize(st);
    return e;
}

void store_experiment_info_free(struct store_experiment_info *x)
{
    free(x->name);
    free(x->status);
    free(x->file_text);
    memset(x, 0, sizeof(*x));
}

int store_plan_get(struct store *s, int64_t id, int seq, struct store_plan_row *out, char *err,
                   size_t errlen)
{
    sqlite3_stmt *st;
    memset(out, 0, sizeof(*out));
    int e = store_prepare(s,
                          "SELECT variant, cell, warmup, round FROM plan "
                          "WHERE experiment_id = ? AND seq = ?",
                          &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, seq);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        bool oom = false;
        out->seq = seq;
        out->variant = dup_col(st, 0, &oom);
        out->cell = dup_col(st, 1, &oom);
        out->warmup = sqlite3_column_int(st, 2) != 0;
        out->round = sqlite3_column_int(st, 3);
        if (oom || !out->variant) {
            store_plan_row_free(out);
            e = err_set(err, errlen, ENOMEM, "out of memory reading the plan");
        }
    } else if (rc == SQLITE_DONE) {
        e = err_set(err, errlen, ENOENT, "experiment %lld has no planned seq %d", (long long)id,
                    seq);
    } else {
        e = store_sqlite_err(s, rc, "reading the plan", err, errlen);
    }
    sqlite3_finalize(st);
    return e;
}

void store_plan_row_free(struct store_plan_row *p)
{
    free(p->variant);
    free(p->cell);
    memset(p, 0, sizeof(*p));
}
