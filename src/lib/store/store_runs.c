/*
 * Writing to the results store: experiments with their plans, runs from
 * 'running' to a final status, and the bookkeeping resume needs.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric/metric.h"
#include "store/store_priv.h"
#include "util/jsonout.h"

static const char *const status_names[] = {"running", "ok", "failed", "interrupted"};

const char *store_run_status_name(enum store_run_status s)
{
    return (unsigned)s < 4 ? status_names[s] : "?";
}

static int refuse_readonly(struct store *s, const char *what, char *err, size_t errlen)
{
    return s->readonly ? store_db_err(s, SQLDB_EREADONLY, what, err, errlen) : 0;
}

/* Steps a statement that returns no rows, then finalizes it. */
static int step_done(struct store *s, struct sqldb_stmt *st, const char *what, char *err,
                     size_t errlen)
{
    int rc = sqldb_step(st);
    int e = rc == SQLDB_DONE ? 0 : store_db_err(s, rc, what, err, errlen);
    sqldb_finalize(st);
    return e;
}

/* Inserts plan entries of experiment eid inside the caller's transaction. */
static int insert_plan(struct store *s, int64_t eid, const struct store_plan_entry *plan, size_t n,
                       const char *what, char *err, size_t errlen)
{
    struct sqldb_stmt *st = NULL;
    int e = store_prepare(s,
                          "INSERT INTO plan (experiment_id, seq, variant, cell, warmup, round) "
                          "VALUES (?, ?, ?, ?, ?, ?)",
                          &st, err, errlen);
    for (size_t i = 0; !e && i < n; i++) {
        sqldb_reset(st);
        sqldb_bind_int64(st, 1, eid);
        sqldb_bind_int64(st, 2, plan[i].seq);
        sqldb_bind_text(st, 3, plan[i].variant ? plan[i].variant : "");
        sqldb_bind_text(st, 4, plan[i].cell);
        sqldb_bind_int64(st, 5, plan[i].warmup);
        sqldb_bind_int64(st, 6, plan[i].round);
        int rc = sqldb_step(st);
        if (rc != SQLDB_DONE)
            e = store_db_err(s, rc, what, err, errlen);
        if (e == -EINVAL)
            e = err_set(err, errlen, EINVAL, "%s: plan entry %zu repeats seq %d", what, i,
                        plan[i].seq);
    }
    sqldb_finalize(st);
    return e;
}

static int experiment_create_once(struct store *s, const char *name, const char *file_text,
                                  const char *spec_json, uint64_t seed,
                                  const struct store_plan_entry *plan, size_t n, int64_t *id,
                                  const char *what, char *err, size_t errlen)
{
    struct sqldb_stmt *st = NULL;
    int e = store_begin(s, what, err, errlen);
    if (e)
        return e;
    e = store_prepare(s,
                      "INSERT INTO experiments (name, file_text, spec_json, seed) "
                      "VALUES (?, ?, ?, ?) RETURNING id",
                      &st, err, errlen);
    int64_t eid = 0;
    if (!e) {
        sqldb_bind_text(st, 1, name ? name : "");
        store_bind_clean(st, 2, file_text);
        store_bind_clean(st, 3, spec_json);
        sqldb_bind_int64(st, 4, (int64_t)seed);
        e = store_insert_id(s, st, &eid, what, err, errlen);
        st = NULL;
    }
    if (!e)
        e = insert_plan(s, eid, plan, n, what, err, errlen);
    e = store_end_tx(s, e, what, err, errlen);
    if (!e)
        *id = eid;
    return e;
}

int store_experiment_create(struct store *s, const char *name, const char *file_text,
                            const char *spec_json, uint64_t seed,
                            const struct store_plan_entry *plan, size_t n, int64_t *id, char *err,
                            size_t errlen)
{
    const char *what = "recording the experiment";
    int e, tries = 0;
    do
        e = experiment_create_once(s, name, file_text, spec_json, seed, plan, n, id, what, err,
                                   errlen);
    while (store_tx_again(s, &e, &tries, what, err, errlen));
    return e;
}

int store_plan_append(struct store *s, int64_t id, const struct store_plan_entry *plan, size_t n,
                      char *err, size_t errlen)
{
    const char *what = "adding to the experiment's plan";
    int e, tries = 0;
    do {
        e = store_begin(s, what, err, errlen);
        if (e)
            return e;
        e = insert_plan(s, id, plan, n, what, err, errlen);
        e = store_end_tx(s, e, what, err, errlen);
    } while (store_tx_again(s, &e, &tries, what, err, errlen));
    return e;
}

int store_experiment_set_status(struct store *s, int64_t id, const char *status, char *err,
                                size_t errlen)
{
    const char *what = "updating the experiment's status";
    struct sqldb_stmt *st;
    int e = refuse_readonly(s, what, err, errlen);
    if (!e)
        e = store_prepare(s, "UPDATE experiments SET status = ? WHERE id = ?", &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_text(st, 1, status);
    sqldb_bind_int64(st, 2, id);
    e = step_done(s, st, what, err, errlen);
    if (!e && sqldb_changes(s->db) == 0)
        e = err_set(err, errlen, ENOENT, "%s: no experiment %lld", what, (long long)id);
    return e;
}

/*
 * A run document's own start ("start": {"time": "YYYY-MM-DDTHH:MM:SSZ"}, as
 * netab run writes it) in the store's form, into out. Returns 0, or -1 when
 * the document has none in that form or it lies after now (a clock that went
 * back): then the row keeps the time it was recorded.
 */
static int doc_started(const json_t *doc, char out[32])
{
    const char *t = json_string_value(json_object_get(json_object_get(doc, "start"), "time"));
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    if (!t || strlen(t) != sizeof(form) - 1)
        return -1;
    for (size_t i = 0; form[i]; i++)
        if (form[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != form[i])
            return -1;
    char now[32];
    store_now(now);
    snprintf(out, 32, "%.19s.000Z", t);
    return strcmp(out, now) <= 0 ? 0 : -1;
}

static int begin_row_once(struct store *s, int64_t experiment_id, int seq, const char *variant,
                          const char *cell, const char *params_json, const char *env_json,
                          const char *argv_text, const char *started, int64_t *run_id,
                          const char *what, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_begin(s, what, err, errlen);
    if (e)
        return e;
    /* The attempt number counts earlier rows for this seq inside the same
     * transaction, so two processes cannot both claim attempt 2. A single
     * run (no experiment) has NULL experiment and seq and attempt 1. */
    e = store_prepare(s,
                      experiment_id > 0
                          ? "INSERT INTO runs (experiment_id, seq, variant, cell, status, attempt, "
                            "params_json, env_json, argv_text, started) "
                            "VALUES (?1, ?2, ?3, ?4, 'running', 1 + (SELECT count(*) FROM runs "
                            "WHERE experiment_id = ?1 AND seq = ?2), ?5, ?6, ?7, ?8) RETURNING id"
                          : "INSERT INTO runs (variant, cell, status, attempt, params_json, "
                            "env_json, argv_text, started) "
                            "VALUES (?1, ?2, 'running', 1, ?3, ?4, ?5, ?6) RETURNING id",
                      &st, err, errlen);
    int64_t id = 0;
    if (!e) {
        char now[32];
        store_now(now);
        /* Every parameter is used, so PostgreSQL knows each one's type. */
        int b = experiment_id > 0 ? 2 : 0;
        if (b) {
            sqldb_bind_int64(st, 1, experiment_id);
            sqldb_bind_int64(st, 2, seq);
        }
        sqldb_bind_text(st, b + 1, variant);
        sqldb_bind_text(st, b + 2, cell);
        store_bind_clean(st, b + 3, params_json);
        store_bind_clean(st, b + 4, env_json);
        store_bind_clean(st, b + 5, argv_text);
        sqldb_bind_text(st, b + 6, started ? started : now);
        e = store_insert_id(s, st, &id, what, err, errlen);
        if (e == -EINVAL)
            e = err_set(err, errlen, ENOENT, "%s: no experiment %lld", what,
                        (long long)experiment_id);
    }
    e = store_end_tx(s, e, what, err, errlen);
    if (!e)
        *run_id = id;
    return e;
}

/* started: when the run began (the store's form), or NULL for now. */
static int begin_row(struct store *s, int64_t experiment_id, int seq, const char *variant,
                     const char *cell, const char *params_json, const char *env_json,
                     const char *argv_text, const char *started, int64_t *run_id, char *err,
                     size_t errlen)
{
    const char *what = "recording the start of a run";
    int e, tries = 0;
    do
        e = begin_row_once(s, experiment_id, seq, variant, cell, params_json, env_json, argv_text,
                           started, run_id, what, err, errlen);
    while (store_tx_again(s, &e, &tries, what, err, errlen));
    return e;
}

int store_run_begin(struct store *s, int64_t experiment_id, int seq, const char *variant,
                    const char *cell, const char *params_json, const char *env_json,
                    int64_t *run_id, char *err, size_t errlen)
{
    return begin_row(s, experiment_id, seq, variant, cell, params_json, env_json, NULL, NULL,
                     run_id, err, errlen);
}

/* A number at a dotted path in doc, or NAN. */
static double json_number_at(json_t *doc, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", path);
    json_t *v = doc;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = json_is_object(v) ? json_object_get(v, k) : NULL;
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void bind_double_or_null(struct sqldb_stmt *st, int i, double v)
{
    if (isfinite(v))
        (void)sqldb_bind_double(st, i, v);
    else
        (void)sqldb_bind_null(st, i);
}

static int insert_intervals(struct store *s, int64_t run_id, json_t *doc, const char *what,
                            char *err, size_t errlen)
{
    json_t *iv = json_object_get(doc, "intervals");
    if (!json_is_array(iv) || json_array_size(iv) == 0)
        return 0;
    struct sqldb_stmt *st = NULL;
    int e = store_prepare(s,
                          "INSERT INTO intervals (run_id, idx, start, \"end\", bits_per_second, "
                          "packets) VALUES (?, ?, ?, ?, ?, ?)",
                          &st, err, errlen);
    size_t i;
    json_t *o;
    json_array_foreach(iv, i, o)
    {
        if (e)
            break;
        sqldb_reset(st);
        sqldb_bind_int64(st, 1, run_id);
        sqldb_bind_int64(st, 2, (int64_t)i);
        bind_double_or_null(st, 3, json_number_at(o, "start"));
        bind_double_or_null(st, 4, json_number_at(o, "end"));
        bind_double_or_null(st, 5, json_number_at(o, "bits_per_second"));
        json_t *p = json_object_get(o, "packets");
        if (json_is_integer(p))
            sqldb_bind_int64(st, 6, json_integer_value(p));
        else
            sqldb_bind_null(st, 6);
        int rc = sqldb_step(st);
        if (rc != SQLDB_DONE)
            e = store_db_err(s, rc, what, err, errlen);
    }
    sqldb_finalize(st);
    return e;
}

/* Why a run that is not 'running' cannot be finished: absent or already final. */
static int explain_not_running(struct store *s, int64_t run_id, const char *what, char *err,
                               size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s, "SELECT status FROM runs WHERE id = ?", &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, run_id);
    if (sqldb_step(st) == SQLDB_ROW)
        e = err_set(err, errlen, EALREADY, "%s: run %lld is already %s and is never changed", what,
                    (long long)run_id, sqldb_column_text(st, 0));
    else
        e = err_set(err, errlen, ENOENT, "%s: no run %lld", what, (long long)run_id);
    sqldb_finalize(st);
    return e;
}

/*
 * Sets one text column (a name from this file, never from input) of a run
 * that is still running; what names the step in errors.
 */
static int set_running_text(struct store *s, int64_t run_id, const char *column, const char *value,
                            const char *what, char *err, size_t errlen)
{
    char sql[128];
    snprintf(sql, sizeof(sql), "UPDATE runs SET %s = ? WHERE id = ? AND status = 'running'",
             column);
    struct sqldb_stmt *st;
    int e = refuse_readonly(s, what, err, errlen);
    if (!e)
        e = store_prepare(s, sql, &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_text(st, 1, value);
    sqldb_bind_int64(st, 2, run_id);
    int rc = sqldb_step(st);
    sqldb_finalize(st);
    if (rc != SQLDB_DONE)
        return store_db_err(s, rc, what, err, errlen);
    return sqldb_changes(s->db) ? 0 : explain_not_running(s, run_id, what, err, errlen);
}

int store_run_set_dut_identity(struct store *s, int64_t run_id, const char *identity, char *err,
                               size_t errlen)
{
    return set_running_text(s, run_id, "dut_identity", identity,
                            "recording the DUT identity of a run", err, errlen);
}

int store_run_set_dut(struct store *s, int64_t run_id, const char *name, char *err, size_t errlen)
{
    return set_running_text(s, run_id, "dut", name, "recording the DUT of a run", err, errlen);
}

int store_finish_in_tx(struct store *s, int64_t run_id, enum store_run_status status, int exit_code,
                       const char *error, const char *result_json, const char *what, char *err,
                       size_t errlen)
{
    json_t *doc = result_json ? json_loads(result_json, JSON_DECODE_ANY, NULL) : NULL;
    struct sqldb_stmt *st = NULL;
    char sql[1024];
    int len = snprintf(sql, sizeof(sql),
                       "UPDATE runs SET status = ?, exit_code = ?, error = ?, result_json = ?, "
                       "finished = ?");
    /* Each headline column from the path metric/metric.h gives it (docs/json.md). */
    size_t nh = store_headline_count();
    for (size_t i = 0; i < nh; i++)
        len += snprintf(sql + len, sizeof(sql) - (size_t)len, ", %s = ?", store_headline_column(i));
    snprintf(sql + len, sizeof(sql) - (size_t)len, " WHERE id = ? AND status = 'running'");
    int e = store_prepare(s, sql, &st, err, errlen);
    if (!e) {
        sqldb_bind_text(st, 1, store_run_status_name(status));
        sqldb_bind_int64(st, 2, exit_code);
        store_bind_clean(st, 3, error);
        store_bind_clean(st, 4, result_json);
        char now[32];
        store_now(now);
        sqldb_bind_text(st, 5, now);
        for (size_t i = 0; i < nh; i++) {
            const struct metric *m = metric_by_column(store_headline_column(i));
            bind_double_or_null(st, 6 + (int)i, doc && m ? json_number_at(doc, m->path) : NAN);
        }
        sqldb_bind_int64(st, 6 + (int)nh, run_id);
        e = step_done(s, st, what, err, errlen);
        if (!e && sqldb_changes(s->db) == 0)
            e = explain_not_running(s, run_id, what, err, errlen);
    }
    if (!e && doc)
        e = insert_intervals(s, run_id, doc, what, err, errlen);
    json_decref(doc);
    return e;
}

int store_run_finish(struct store *s, int64_t run_id, enum store_run_status status, int exit_code,
                     const char *error, const char *result_json, char *err, size_t errlen)
{
    const char *what = "recording the result of a run";
    if (status == STORE_RUN_RUNNING || (unsigned)status > STORE_RUN_INTERRUPTED)
        return err_set(err, errlen, EINVAL, "%s: a run must finish as ok, failed or interrupted",
                       what);
    int e, tries = 0;
    do {
        e = store_begin(s, what, err, errlen);
        if (e)
            return e;
        e = store_finish_in_tx(s, run_id, status, exit_code, error, result_json, what, err, errlen);
        e = store_end_tx(s, e, what, err, errlen);
    } while (store_tx_again(s, &e, &tries, what, err, errlen));
    return e;
}

int store_mark_interrupted(struct store *s, int64_t experiment_id, const char *why, int *n,
                           char *err, size_t errlen)
{
    const char *what = "marking unfinished runs as interrupted";
    struct sqldb_stmt *st;
    int e = refuse_readonly(s, what, err, errlen);
    if (!e)
        e = store_prepare(s,
                          "UPDATE runs SET status = 'interrupted', error = ?2 "
                          "WHERE experiment_id = ?1 AND status = 'running'",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    sqldb_bind_text(st, 2, why);
    e = step_done(s, st, what, err, errlen);
    if (!e && n)
        *n = sqldb_changes(s->db);
    return e;
}

int store_next_pending(struct store *s, int64_t experiment_id, int *seq, bool *found, char *err,
                       size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s,
                          "SELECT min(p.seq) FROM plan p WHERE p.experiment_id = ?1 AND NOT "
                          "EXISTS (SELECT 1 FROM runs r WHERE r.experiment_id = ?1 AND r.seq = "
                          "p.seq AND r.status IN ('ok', 'failed'))",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    int rc = sqldb_step(st);
    *found = false;
    if (rc == SQLDB_ROW && !sqldb_column_is_null(st, 0)) {
        *seq = sqldb_column_int(st, 0);
        *found = true;
    } else if (rc != SQLDB_ROW) {
        e = store_db_err(s, rc, "finding the next planned run", err, errlen);
    }
    sqldb_finalize(st);
    return e;
}

int store_experiment_counts(struct store *s, int64_t experiment_id, struct store_counts *c,
                            char *err, size_t errlen)
{
    static const char sql[] =
        "WITH best AS (SELECT p.seq, "
        "  coalesce(max(CASE WHEN r.status = 'ok' THEN 1 ELSE 0 END), 0) AS ok, "
        "  coalesce(max(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END), 0) AS failed "
        "  FROM plan p LEFT JOIN runs r ON r.experiment_id = p.experiment_id AND r.seq = p.seq "
        "  WHERE p.experiment_id = ?1 GROUP BY p.seq) "
        "SELECT count(*), coalesce(sum(ok), 0), "
        "  coalesce(sum(CASE WHEN ok = 0 AND failed = 1 THEN 1 ELSE 0 END), 0), "
        "  coalesce(sum(CASE WHEN ok = 0 AND failed = 0 THEN 1 ELSE 0 END), 0), "
        "  (SELECT count(*) FROM runs WHERE experiment_id = ?1 AND status = 'interrupted'), "
        "  (SELECT count(*) FROM runs WHERE experiment_id = ?1 AND status = 'running') "
        "FROM best";
    struct sqldb_stmt *st;
    int e = store_prepare(s, sql, &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    int rc = sqldb_step(st);
    if (rc == SQLDB_ROW) {
        c->planned = sqldb_column_int64(st, 0);
        c->ok = sqldb_column_int64(st, 1);
        c->failed = sqldb_column_int64(st, 2);
        c->pending = sqldb_column_int64(st, 3);
        c->interrupted = sqldb_column_int64(st, 4);
        c->running = sqldb_column_int64(st, 5);
    } else {
        e = store_db_err(s, rc, "counting the experiment's runs", err, errlen);
    }
    sqldb_finalize(st);
    return e;
}

/* The mean is taken here, from the stored timestamps: the same on both databases. */
int store_avg_run_seconds(struct store *s, int64_t experiment_id, double *avg, char *err,
                          size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s,
                          "SELECT started, finished FROM runs WHERE experiment_id = ? "
                          "AND status IN ('ok', 'failed') AND finished IS NOT NULL",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    double sum = 0;
    long n = 0;
    int rc;
    while ((rc = sqldb_step(st)) == SQLDB_ROW) {
        double d = store_seconds_between(sqldb_column_text(st, 0), sqldb_column_text(st, 1));
        if (isfinite(d)) {
            sum += d;
            n++;
        }
    }
    if (rc != SQLDB_DONE)
        e = store_db_err(s, rc, "averaging run durations", err, errlen);
    else
        *avg = n ? sum / (double)n : NAN;
    sqldb_finalize(st);
    return e;
}

double store_eta_seconds(const struct store_counts *c, double avg_run_seconds)
{
    if (!isfinite(avg_run_seconds) || avg_run_seconds < 0)
        return NAN;
    return (double)c->pending * avg_run_seconds;
}

/* A member of doc serialised compactly, or NULL; caller frees. */
static char *member_text(json_t *doc, const char *key)
{
    json_t *v = json_object_get(doc, key);
    return v ? jsonout_compact(v) : NULL;
}

int store_record_result(struct store *s, const char *argv_text, const char *result_json,
                        int exit_code, int64_t *run_id, char *err, size_t errlen)
{
    return store_record_labeled(s, NULL, argv_text, result_json, exit_code, run_id, err, errlen);
}

int store_record_labeled(struct store *s, const char *variant, const char *argv_text,
                         const char *result_json, int exit_code, int64_t *run_id, char *err,
                         size_t errlen)
{
    json_t *doc = result_json ? json_loads(result_json, JSON_DECODE_ANY, NULL) : NULL;
    char *params = member_text(doc, "test");
    char *env = member_text(doc, "host");
    json_t *error = json_object_get(doc, "error");
    const char *error_text = json_is_string(error) ? json_string_value(error) : NULL;
    bool ok = exit_code == 0 && doc && (!error || json_is_null(error));
    if (!doc && !error_text)
        error_text = "the result is not a JSON document";
    int64_t id = 0;
    /* Recorded after the run ended: its start is the document's, not now. */
    char started[32];
    int e = begin_row(s, 0, 0, variant, NULL, params, env, argv_text,
                      doc_started(doc, started) ? NULL : started, &id, err, errlen);
    if (!e)
        e = store_run_finish(s, id, ok ? STORE_RUN_OK : STORE_RUN_FAILED, exit_code,
                             ok ? NULL : error_text, result_json, err, errlen);
    free(params);
    free(env);
    json_decref(doc);
    if (!e && run_id)
        *run_id = id;
    return e;
}

int store_record_single(const char *db_path, const char *argv_text, const char *result_json,
                        int exit_code, char *err, size_t errlen)
{
    return store_record_single_labeled(db_path, NULL, argv_text, result_json, exit_code, err,
                                       errlen);
}

int store_record_single_labeled(const char *db_path, const char *variant, const char *argv_text,
                                const char *result_json, int exit_code, char *err, size_t errlen)
{
    struct store *s;
    int e = store_open_default(db_path, STORE_OPEN_CREATE, &s, err, errlen);
    if (e)
        return e;
    e = store_record_labeled(s, variant, argv_text, result_json, exit_code, NULL, err, errlen);
    store_close(s);
    return e;
}

int store_record_run_doc(const char *db_path, const char *variant, int argc, char *const *argv,
                         const json_t *doc, int exit_code, char *err, size_t errlen)
{
    char argv_text[2048] = "netab";
    size_t used = strlen(argv_text);
    for (int i = 0; i < argc && used + 2 < sizeof(argv_text); i++)
        used += (size_t)snprintf(argv_text + used, sizeof(argv_text) - used, " %s", argv[i]);
    char *text = jsonout_compact(doc);
    int rc = text ? store_record_single_labeled(db_path, variant, argv_text, text, exit_code, err,
                                                errlen)
                  : err_set(err, errlen, ENOMEM, "out of memory");
    free(text);
    return rc;
}
