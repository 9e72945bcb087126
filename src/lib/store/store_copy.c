/*
 * Copying experiments between stores (store_copy.h). Every value goes
 * through the database layer typed as the column is (integer, real, text),
 * so a copy reads back exactly as the original on either database.
 */
#include "store/store_copy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

#define WHAT "copying between stores"

/* A column copied as is, and how its value travels: 'i' integer, 'd' real, 't' text. */
struct copy_col {
    const char *name;
    char kind;
};

static const struct copy_col exp_cols[] = {
    {"name", 't'}, {"file_text", 't'}, {"spec_json", 't'},
    {"seed", 'i'}, {"created", 't'},   {"status", 't'},
};
#define N_EXP (sizeof(exp_cols) / sizeof(exp_cols[0]))

static const struct copy_col plan_cols[] = {
    {"seq", 'i'}, {"variant", 't'}, {"cell", 't'}, {"warmup", 'i'}, {"round", 'i'},
};
#define N_PLAN (sizeof(plan_cols) / sizeof(plan_cols[0]))

/* The run columns before the headline ones (store_headline_column(), all real). */
static const struct copy_col run_cols[] = {
    {"seq", 'i'},       {"variant", 't'},      {"cell", 't'},        {"status", 't'},
    {"attempt", 'i'},   {"started", 't'},      {"finished", 't'},    {"exit_code", 'i'},
    {"error", 't'},     {"params_json", 't'},  {"result_json", 't'}, {"env_json", 't'},
    {"argv_text", 't'}, {"dut_identity", 't'}, {"dut", 't'},
};
#define N_RUN (sizeof(run_cols) / sizeof(run_cols[0]))
/* Indexes of run_cols the matching of runs reads. */
enum {
    RC_SEQ = 0,
    RC_VARIANT = 1,
    RC_STATUS = 3,
    RC_ATTEMPT = 4,
    RC_STARTED = 5,
    RC_RESULT = 10,
    RC_ARGV = 12
};

static const struct copy_col iv_cols[] = {
    {"idx", 'i'}, {"start", 'd'}, {"\"end\"", 'd'}, {"bits_per_second", 'd'}, {"packets", 'i'},
};
#define N_IV (sizeof(iv_cols) / sizeof(iv_cols[0]))

/* The name of run column i: run_cols, then the headline columns. */
static const char *run_col(size_t i, char *kind)
{
    *kind = i < N_RUN ? run_cols[i].kind : 'd';
    return i < N_RUN ? run_cols[i].name : store_headline_column(i - N_RUN);
}

static size_t n_run_cols(void)
{
    return N_RUN + store_headline_count();
}

/* Binds column si of src's current row to parameter di of dst, as kind. */
static void bind_from(struct sqldb_stmt *dst, int di, struct sqldb_stmt *src, int si, char kind)
{
    if (sqldb_column_is_null(src, si))
        (void)sqldb_bind_null(dst, di);
    else if (kind == 'i')
        (void)sqldb_bind_int64(dst, di, sqldb_column_int64(src, si));
    else if (kind == 'd')
        (void)sqldb_bind_double(dst, di, sqldb_column_double(src, si));
    else
        (void)sqldb_bind_text(dst, di, sqldb_column_text(src, si));
}

/* "a, b, c" of the columns into buf at *u. */
static void list_cols(char *buf, size_t len, size_t *u, const struct copy_col *c, size_t n,
                      bool runs)
{
    size_t count = runs ? n_run_cols() : n;
    for (size_t i = 0; i < count && *u < len; i++) {
        char kind;
        const char *name = runs ? run_col(i, &kind) : c[i].name;
        *u += (size_t)snprintf(buf + *u, len - *u, "%s%s", i ? ", " : "", name);
    }
}

/* "SELECT <cols> FROM table WHERE <where>" into buf. */
static const char *select_sql(char *buf, size_t len, const struct copy_col *c, size_t n, bool runs,
                              const char *rest)
{
    size_t u = (size_t)snprintf(buf, len, "SELECT ");
    list_cols(buf, len, &u, c, n, runs);
    if (u < len)
        snprintf(buf + u, len - u, " %s", rest);
    return buf;
}

/* "INSERT INTO table (lead, <cols>) VALUES (?, ...)<tail>" into buf. */
static const char *insert_sql(char *buf, size_t len, const char *table, const char *lead,
                              const struct copy_col *c, size_t n, bool runs, const char *tail)
{
    size_t u = (size_t)snprintf(buf, len, "INSERT INTO %s (%s%s", table, lead, *lead ? ", " : "");
    list_cols(buf, len, &u, c, n, runs);
    size_t count = (runs ? n_run_cols() : n) + (*lead ? 1 : 0);
    if (u < len)
        u += (size_t)snprintf(buf + u, len - u, ") VALUES (");
    for (size_t i = 0; i < count && u < len; i++)
        u += (size_t)snprintf(buf + u, len - u, "%s?", i ? ", " : "");
    if (u < len)
        snprintf(buf + u, len - u, ")%s", tail);
    return buf;
}

/* Steps a statement that returns no rows and finalizes it. */
static int done(struct store *s, struct sqldb_stmt *st, char *err, size_t errlen)
{
    int rc = sqldb_step(st);
    sqldb_finalize(st);
    return rc == SQLDB_DONE ? 0 : store_db_err(s, rc, WHAT, err, errlen);
}

/* Whether the query st (bound) returns a row; *yes. */
static int exists(struct store *s, struct sqldb_stmt *st, bool *yes, char *err, size_t errlen)
{
    int rc = sqldb_step(st);
    *yes = rc == SQLDB_ROW;
    int e = rc == SQLDB_ROW || rc == SQLDB_DONE ? 0 : store_db_err(s, rc, WHAT, err, errlen);
    sqldb_finalize(st);
    return e;
}

/*
 * The target's experiment for the source's current row of exp_cols (found
 * by name, created and seed, else inserted), into *to_id; its status
 * follows the source's.
 */
static int target_experiment(struct store *to, struct sqldb_stmt *src, int64_t *to_id,
                             bool *created, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(to,
                          "SELECT id FROM experiments WHERE name = ? AND created = ? AND seed = ? "
                          "ORDER BY id",
                          &st, err, errlen);
    if (e)
        return e;
    bind_from(st, 1, src, 0, 't');
    bind_from(st, 2, src, 4, 't');
    bind_from(st, 3, src, 3, 'i');
    int rc = sqldb_step(st);
    *created = rc == SQLDB_DONE;
    if (rc == SQLDB_ROW)
        *to_id = sqldb_column_int64(st, 0);
    else if (rc != SQLDB_DONE)
        e = store_db_err(to, rc, WHAT, err, errlen);
    sqldb_finalize(st);
    if (e)
        return e;
    char sql[512];
    if (*created) {
        e = store_prepare(to,
                          insert_sql(sql, sizeof(sql), "experiments", "", exp_cols, N_EXP, false,
                                     " RETURNING id"),
                          &st, err, errlen);
        for (size_t i = 0; !e && i < N_EXP; i++)
            bind_from(st, (int)i + 1, src, (int)i, exp_cols[i].kind);
        return e ? e : store_insert_id(to, st, to_id, WHAT, err, errlen);
    }
    e = store_prepare(to, "UPDATE experiments SET status = ? WHERE id = ?", &st, err, errlen);
    if (e)
        return e;
    bind_from(st, 1, src, 5, 't');
    sqldb_bind_int64(st, 2, *to_id);
    return done(to, st, err, errlen);
}

/* The plan rows of from_id the target's to_id lacks. */
static int copy_plan(struct store *from, struct store *to, int64_t from_id, int64_t to_id,
                     char *err, size_t errlen)
{
    char sql[512], ins[512];
    struct sqldb_stmt *src, *st;
    int e = store_prepare(from,
                          select_sql(sql, sizeof(sql), plan_cols, N_PLAN, false,
                                     "FROM plan WHERE experiment_id = ? ORDER BY seq"),
                          &src, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(src, 1, from_id);
    insert_sql(ins, sizeof(ins), "plan", "experiment_id", plan_cols, N_PLAN, false, "");
    int rc = SQLDB_DONE;
    while (!e && (rc = sqldb_step(src)) == SQLDB_ROW) {
        bool have;
        e = store_prepare(to, "SELECT 1 FROM plan WHERE experiment_id = ? AND seq = ?", &st, err,
                          errlen);
        if (!e) {
            sqldb_bind_int64(st, 1, to_id);
            bind_from(st, 2, src, 0, 'i');
            e = exists(to, st, &have, err, errlen);
        }
        if (e || have)
            continue;
        e = store_prepare(to, ins, &st, err, errlen);
        if (e)
            break;
        sqldb_bind_int64(st, 1, to_id);
        for (size_t i = 0; i < N_PLAN; i++)
            bind_from(st, (int)i + 2, src, (int)i, plan_cols[i].kind);
        e = done(to, st, err, errlen);
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(from, rc, WHAT, err, errlen);
    sqldb_finalize(src);
    return e;
}

/* The intervals of source run from_run as those of target run to_run. */
static int copy_intervals(struct store *from, struct store *to, int64_t from_run, int64_t to_run,
                          char *err, size_t errlen)
{
    char sql[512], ins[512];
    struct sqldb_stmt *src, *st;
    int e = store_prepare(from,
                          select_sql(sql, sizeof(sql), iv_cols, N_IV, false,
                                     "FROM intervals WHERE run_id = ? ORDER BY idx"),
                          &src, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(src, 1, from_run);
    insert_sql(ins, sizeof(ins), "intervals", "run_id", iv_cols, N_IV, false, "");
    int rc = SQLDB_DONE;
    while (!e && (rc = sqldb_step(src)) == SQLDB_ROW) {
        e = store_prepare(to, ins, &st, err, errlen);
        if (e)
            break;
        sqldb_bind_int64(st, 1, to_run);
        for (size_t i = 0; i < N_IV; i++)
            bind_from(st, (int)i + 2, src, (int)i, iv_cols[i].kind);
        e = done(to, st, err, errlen);
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(from, rc, WHAT, err, errlen);
    sqldb_finalize(src);
    return e;
}

/* Whether the target already has the source's current run (see store_copy.h). */
static int run_present(struct store *to, struct sqldb_stmt *src, int64_t to_id, bool *have,
                       char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(
        to,
        to_id ? "SELECT 1 FROM runs WHERE experiment_id = ? AND seq = ? AND attempt = ?"
              : "SELECT 1 FROM runs WHERE experiment_id IS NULL AND started = ?2 AND "
                "coalesce(argv_text, '') = coalesce(?3, '') AND "
                "coalesce(variant, '') = coalesce(?4, '') AND "
                "coalesce(result_json, '') = coalesce(?5, '') AND ?1 = 0",
        &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, to_id);
    if (to_id) {
        bind_from(st, 2, src, RC_SEQ, 'i');
        bind_from(st, 3, src, RC_ATTEMPT, 'i');
    } else {
        bind_from(st, 2, src, RC_STARTED, 't');
        (void)sqldb_bind_text(st, 3, sqldb_column_text(src, RC_ARGV));
        (void)sqldb_bind_text(st, 4, sqldb_column_text(src, RC_VARIANT));
        /*
         * Two runs of one command in the same second (start times are whole
         * seconds, and a password dropped from --db makes two command lines
         * one) are still two runs: their documents differ.
         */
        (void)sqldb_bind_text(st, 5, sqldb_column_text(src, RC_RESULT));
    }
    return exists(to, st, have, err, errlen);
}

/* The final runs of from_id (0: single runs) the target lacks, with their intervals. */
static int copy_runs(struct store *from, struct store *to, int64_t from_id, int64_t to_id,
                     struct store_copy_result *res, char *err, size_t errlen)
{
    char sql[2048], ins[2048];
    struct sqldb_stmt *src, *st;
    int idcol = (int)n_run_cols();
    size_t u = 0;
    list_cols(sql, sizeof(sql), &u, NULL, 0, true);
    char rest[2300];
    snprintf(rest, sizeof(rest), "SELECT %s, id FROM runs WHERE %s ORDER BY id", sql,
             from_id ? "experiment_id = ?" : "experiment_id IS NULL AND ? = 0");
    int e = store_prepare(from, rest, &src, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(src, 1, from_id);
    insert_sql(ins, sizeof(ins), "runs", "experiment_id", NULL, 0, true, " RETURNING id");
    int rc = SQLDB_DONE;
    while (!e && (rc = sqldb_step(src)) == SQLDB_ROW) {
        const char *status = sqldb_column_text(src, RC_STATUS);
        bool have = false;
        if (status && !strcmp(status, "running")) {
            res->runs_left_running++;
            continue;
        }
        e = run_present(to, src, to_id, &have, err, errlen);
        if (e || have) {
            res->runs_present += have;
            continue;
        }
        e = store_prepare(to, ins, &st, err, errlen);
        if (e)
            break;
        if (to_id)
            sqldb_bind_int64(st, 1, to_id);
        else
            sqldb_bind_null(st, 1);
        for (int i = 0; i < idcol; i++) {
            char kind;
            (void)run_col((size_t)i, &kind);
            bind_from(st, i + 2, src, i, kind);
        }
        int64_t new_id = 0;
        e = store_insert_id(to, st, &new_id, WHAT, err, errlen);
        if (!e)
            e = copy_intervals(from, to, sqldb_column_int64(src, idcol), new_id, err, errlen);
        res->runs_copied += !e;
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(from, rc, WHAT, err, errlen);
    sqldb_finalize(src);
    return e;
}

int store_copy_experiment(struct store *from, struct store *to, int64_t id,
                          struct store_copy_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof(*res));
    res->from_id = id;
    struct sqldb_stmt *src = NULL;
    char sql[512];
    int e = 0;
    if (id) {
        e = store_prepare(
            from,
            select_sql(sql, sizeof(sql), exp_cols, N_EXP, false, "FROM experiments WHERE id = ?"),
            &src, err, errlen);
        if (e)
            return e;
        sqldb_bind_int64(src, 1, id);
        int rc = sqldb_step(src);
        if (rc != SQLDB_ROW) {
            e = rc == SQLDB_DONE ? err_set(err, errlen, ENOENT, "there is no experiment %lld in %s",
                                           (long long)id, store_path(from))
                                 : store_db_err(from, rc, WHAT, err, errlen);
            sqldb_finalize(src);
            return e;
        }
    }
    e = store_begin(to, WHAT, err, errlen);
    if (!e && id)
        e = target_experiment(to, src, &res->to_id, &res->created, err, errlen);
    sqldb_finalize(src);
    if (!e && id)
        e = copy_plan(from, to, id, res->to_id, err, errlen);
    if (!e)
        e = copy_runs(from, to, id, res->to_id, res, err, errlen);
    return store_end_tx(to, e, WHAT, err, errlen);
}

void store_copy_print(FILE *out, const struct store_copy_result *r)
{
    if (r->from_id)
        fprintf(out, "experiment %lld -> %lld%s: %ld runs copied, %ld already there",
                (long long)r->from_id, (long long)r->to_id, r->created ? " (new)" : "",
                r->runs_copied, r->runs_present);
    else
        fprintf(out, "single runs: %ld copied, %ld already there", r->runs_copied, r->runs_present);
    if (r->runs_left_running)
        fprintf(out, ", %ld still running (not copied)", r->runs_left_running);
    fprintf(out, "\n");
}

/* Copies experiment id (0: the single runs) and says so on out. */
static int copy_one(struct store *from, struct store *to, int64_t id, FILE *out, char *err,
                    size_t errlen)
{
    struct store_copy_result r;
    int e = store_copy_experiment(from, to, id, &r, err, errlen);
    if (!e)
        store_copy_print(out, &r);
    return e;
}

int store_copy_all(struct store *from, struct store *to, const int64_t *ids, size_t n, FILE *out,
                   char *err, size_t errlen)
{
    int e = 0;
    for (size_t i = 0; i < n && !e; i++)
        e = copy_one(from, to, ids[i], out, err, errlen);
    if (n)
        return e;
    struct store_experiment *x;
    size_t nx;
    if ((e = store_experiment_list(from, &x, &nx, err, errlen)))
        return e;
    for (size_t i = 0; i < nx && !e; i++)
        e = copy_one(from, to, x[i].id, out, err, errlen);
    store_experiment_list_free(x, nx);
    return e ? e : copy_one(from, to, 0, out, err, errlen);
}
