/* Reading the results store: listings, one run in full, and exports. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"
#include "store/store_runinfo.h"
#include "util/csv.h"
#include "util/jsonout.h"
#include "util/outfile.h"

/*
 * The columns every run query reads (column 9, the duration, is filled in C), then the headline
 * figures of headline_fields in their order (run_select() appends them).
 */
#define RUN_COLUMNS                                                                                \
    "id, experiment_id, seq, variant, cell, status, attempt, started, finished, "                  \
    "NULL, exit_code, error, argv_text, "                                                          \
    "params_json, result_json, env_json, dut_identity"
/* Index of params_json, of dut_identity and of the first headline column. */
#define COL_RAW 13
#define COL_DUT_IDENTITY 16
#define COL_HEADLINE 17

/*
 * The headline columns (metric/metric.h names each one and its document path)
 * bound to the fields of struct store_run that hold them: the C side of the
 * columns. A unit test checks that this list and the metric table's columns
 * are the same set.
 */
static const struct {
    const char *name;
    size_t offset;
} headline_fields[] = {
    {"receiver_bps", offsetof(struct store_run, receiver_bps)},
    {"sender_bps", offsetof(struct store_run, sender_bps)},
    {"local_us_per_kib", offsetof(struct store_run, local_us_per_kib)},
    {"remote_us_per_kib", offsetof(struct store_run, remote_us_per_kib)},
    {"cpu_local_pct", offsetof(struct store_run, cpu_local_pct)},
    {"cpu_remote_pct", offsetof(struct store_run, cpu_remote_pct)},
    {"transactions_per_second", offsetof(struct store_run, transactions_per_second)},
    {"latency_p50_us", offsetof(struct store_run, latency_p50_us)},
    {"latency_p99_us", offsetof(struct store_run, latency_p99_us)},
    {"lost_percent", offsetof(struct store_run, lost_percent)},
    {"local_process_us_per_kib", offsetof(struct store_run, local_process_us_per_kib)},
    {"remote_process_us_per_kib", offsetof(struct store_run, remote_process_us_per_kib)},
};
#define N_HEADLINE (sizeof(headline_fields) / sizeof(headline_fields[0]))
/* The DUT's name (schema 6) comes after the headline columns. */
#define COL_DUT (COL_HEADLINE + (int)N_HEADLINE)

/* "SELECT <RUN_COLUMNS>, <headline columns>, dut FROM runs <where>" into sql. */
static const char *run_select(char *sql, size_t len, const char *where)
{
    size_t u = (size_t)snprintf(sql, len, "SELECT " RUN_COLUMNS);
    for (size_t i = 0; i < N_HEADLINE && u < len; i++)
        u += (size_t)snprintf(sql + u, len - u, ", %s", headline_fields[i].name);
    if (u < len)
        snprintf(sql + u, len - u, ", dut FROM runs %s", where);
    return sql;
}

size_t store_headline_count(void)
{
    return N_HEADLINE;
}

const char *store_headline_column(size_t i)
{
    return i < N_HEADLINE ? headline_fields[i].name : NULL;
}

double store_run_figure(const struct store_run *r, const char *column)
{
    for (size_t i = 0; column && i < N_HEADLINE; i++)
        if (!strcmp(column, headline_fields[i].name))
            return *(const double *)((const char *)r + headline_fields[i].offset);
    return NAN;
}

static double *headline_ptr(struct store_run *r, size_t i)
{
    return (double *)((char *)r + headline_fields[i].offset);
}

static double headline_get(const struct store_run *r, size_t i)
{
    return *(const double *)((const char *)r + headline_fields[i].offset);
}

static double col_double(struct sqldb_stmt *st, int i)
{
    return sqldb_column_is_null(st, i) ? NAN : sqldb_column_double(st, i);
}

enum store_run_status store_run_status_parse(const char *s)
{
    for (int i = STORE_RUN_RUNNING; i <= STORE_RUN_INTERRUPTED; i++)
        if (s && !strcmp(s, store_run_status_name((enum store_run_status)i)))
            return (enum store_run_status)i;
    return STORE_RUN_FAILED;
}

static int load_intervals(struct store *s, struct store_run *r, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s,
                          "SELECT idx, start, \"end\", bits_per_second, packets FROM intervals "
                          "WHERE run_id = ? ORDER BY idx",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, r->id);
    size_t cap = 0;
    int rc;
    while ((rc = sqldb_step(st)) == SQLDB_ROW) {
        if (r->n_intervals == cap) {
            cap = cap ? 2 * cap : 16;
            void *p = realloc(r->intervals, cap * sizeof(*r->intervals));
            if (!p) {
                e = err_set(err, errlen, ENOMEM, "out of memory reading intervals");
                break;
            }
            r->intervals = p;
        }
        struct store_interval *iv = &r->intervals[r->n_intervals++];
        iv->idx = sqldb_column_int(st, 0);
        iv->start = col_double(st, 1);
        iv->end = col_double(st, 2);
        iv->bits_per_second = col_double(st, 3);
        iv->packets = sqldb_column_is_null(st, 4) ? -1 : sqldb_column_int64(st, 4);
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(s, rc, "reading intervals", err, errlen);
    sqldb_finalize(st);
    return e;
}

/* Fills r from the current row of a RUN_COLUMNS query. */
static int read_run(struct store *s, struct sqldb_stmt *st, bool with_raw, struct store_run *r,
                    char *err, size_t errlen)
{
    bool oom = false;
    memset(r, 0, sizeof(*r));
    r->id = sqldb_column_int64(st, 0);
    r->experiment_id = sqldb_column_int64(st, 1);
    r->seq = sqldb_column_is_null(st, 2) ? -1 : sqldb_column_int(st, 2);
    r->variant = store_col_text(st, 3, &oom);
    r->cell = store_col_text(st, 4, &oom);
    r->status = store_run_status_parse(sqldb_column_text(st, 5));
    r->attempt = sqldb_column_int(st, 6);
    r->started = store_col_text(st, 7, &oom);
    r->finished = store_col_text(st, 8, &oom);
    /* Column 9 is a place holder: the duration is computed here, the same on both databases. */
    r->duration_s = r->finished ? store_seconds_between(r->started, r->finished) : NAN;
    r->has_exit_code = !sqldb_column_is_null(st, 10);
    r->exit_code = sqldb_column_int(st, 10);
    r->error = store_col_text(st, 11, &oom);
    r->argv_text = store_col_text(st, 12, &oom);
    r->dut_identity = store_col_text(st, COL_DUT_IDENTITY, &oom);
    r->dut = store_col_text(st, COL_DUT, &oom);
    for (size_t i = 0; i < N_HEADLINE; i++)
        *headline_ptr(r, i) = col_double(st, COL_HEADLINE + (int)i);
    if (with_raw) {
        r->params_json = store_col_text(st, COL_RAW, &oom);
        r->result_json = store_col_text(st, COL_RAW + 1, &oom);
        r->env_json = store_col_text(st, COL_RAW + 2, &oom);
    }
    int e =
        oom ? err_set(err, errlen, ENOMEM, "out of memory reading run %lld", (long long)r->id) : 0;
    if (!e && with_raw)
        e = load_intervals(s, r, err, errlen);
    if (e)
        store_run_free(r);
    return e;
}

void store_run_free(struct store_run *r)
{
    if (!r)
        return;
    free(r->variant);
    free(r->cell);
    free(r->started);
    free(r->finished);
    free(r->error);
    free(r->argv_text);
    free(r->dut_identity);
    free(r->dut);
    free(r->params_json);
    free(r->result_json);
    free(r->env_json);
    free(r->identity_local);
    free(r->identity_remote);
    free(r->intervals);
    memset(r, 0, sizeof(*r));
}

void store_run_list_free(struct store_run *runs, size_t n)
{
    for (size_t i = 0; runs && i < n; i++)
        store_run_free(&runs[i]);
    free(runs);
}

int store_run_get(struct store *s, int64_t run_id, struct store_run *out, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    memset(out, 0, sizeof(*out));
    char sql[1024];
    int e = store_prepare(s, run_select(sql, sizeof(sql), "WHERE id = ?"), &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, run_id);
    int rc = sqldb_step(st);
    if (rc == SQLDB_ROW) {
        e = read_run(s, st, true, out, err, errlen);
        if (!e && (e = store_runinfo_fill(s, out, 1, err, errlen)))
            store_run_free(out);
    } else if (rc == SQLDB_DONE)
        e = err_set(err, errlen, ENOENT, "no run %lld in %s", (long long)run_id, s->path);
    else
        e = store_db_err(s, rc, "reading a run", err, errlen);
    sqldb_finalize(st);
    return e;
}

int store_run_list(struct store *s, int64_t experiment_id, bool with_raw, struct store_run **out,
                   size_t *n, char *err, size_t errlen)
{
    const char *where = experiment_id == STORE_ALL_RUNS ? "WHERE ?1 IS NOT NULL ORDER BY id"
                        : experiment_id == 0
                            ? "WHERE experiment_id IS NULL AND ?1 IS NOT NULL ORDER BY id"
                            : "WHERE experiment_id = ?1 ORDER BY id";
    char sqlbuf[1024];
    const char *sql = run_select(sqlbuf, sizeof(sqlbuf), where);
    struct sqldb_stmt *st;
    *out = NULL;
    *n = 0;
    int e = store_prepare(s, sql, &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, experiment_id);
    struct store_run *runs = NULL;
    size_t count = 0, cap = 0;
    int rc;
    while ((rc = sqldb_step(st)) == SQLDB_ROW) {
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            void *p = realloc(runs, cap * sizeof(*runs));
            if (!p) {
                e = err_set(err, errlen, ENOMEM, "out of memory listing runs");
                break;
            }
            runs = p;
        }
        e = read_run(s, st, with_raw, &runs[count], err, errlen);
        if (e)
            break;
        count++;
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(s, rc, "listing runs", err, errlen);
    sqldb_finalize(st);
    if (!e)
        e = store_runinfo_fill(s, runs, count, err, errlen);
    if (e) {
        store_run_list_free(runs, count);
        return e;
    }
    *out = runs;
    *n = count;
    return 0;
}

int store_experiment_list(struct store *s, struct store_experiment **out, size_t *n, char *err,
                          size_t errlen)
{
    struct sqldb_stmt *st;
    *out = NULL;
    *n = 0;
    int e = store_prepare(s,
                          "SELECT id, name, created, status, seed, "
                          "(SELECT count(*) FROM plan p WHERE p.experiment_id = e.id), "
                          "(SELECT count(*) FROM runs r WHERE r.experiment_id = e.id) "
                          "FROM experiments e ORDER BY id",
                          &st, err, errlen);
    if (e)
        return e;
    struct store_experiment *list = NULL;
    size_t count = 0, cap = 0;
    int rc;
    while ((rc = sqldb_step(st)) == SQLDB_ROW) {
        if (count == cap) {
            cap = cap ? 2 * cap : 16;
            void *p = realloc(list, cap * sizeof(*list));
            if (!p) {
                e = err_set(err, errlen, ENOMEM, "out of memory listing experiments");
                break;
            }
            list = p;
        }
        bool oom = false;
        struct store_experiment *x = &list[count++];
        x->id = sqldb_column_int64(st, 0);
        x->name = store_col_text(st, 1, &oom);
        x->created = store_col_text(st, 2, &oom);
        x->status = store_col_text(st, 3, &oom);
        x->seed = (uint64_t)sqldb_column_int64(st, 4);
        x->planned = sqldb_column_int64(st, 5);
        x->runs = sqldb_column_int64(st, 6);
        if (oom) {
            e = err_set(err, errlen, ENOMEM, "out of memory listing experiments");
            break;
        }
    }
    if (!e && rc != SQLDB_DONE)
        e = store_db_err(s, rc, "listing experiments", err, errlen);
    sqldb_finalize(st);
    if (e) {
        store_experiment_list_free(list, count);
        return e;
    }
    *out = list;
    *n = count;
    return 0;
}

void store_experiment_list_free(struct store_experiment *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++) {
        free(list[i].name);
        free(list[i].created);
        free(list[i].status);
    }
    free(list);
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A stored document parsed back, or the raw text as a string if it does not parse. */
static json_t *raw_doc(const char *text)
{
    if (!text)
        return json_null();
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v ? v : json_string(text);
}

json_t *store_run_to_json(const struct store_run *r, bool with_raw)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "id", json_integer(r->id));
    json_object_set_new(o, "experiment",
                        r->experiment_id ? json_integer(r->experiment_id) : json_null());
    json_object_set_new(o, "seq", r->seq >= 0 ? json_integer(r->seq) : json_null());
    json_object_set_new(o, "variant", str_or_null(r->variant));
    json_object_set_new(o, "cell", str_or_null(r->cell));
    json_object_set_new(o, "status", json_string(store_run_status_name(r->status)));
    json_object_set_new(o, "attempt", json_integer(r->attempt));
    json_object_set_new(o, "started", str_or_null(r->started));
    json_object_set_new(o, "finished", str_or_null(r->finished));
    json_object_set_new(o, "duration_s", num_or_null(r->duration_s));
    json_object_set_new(o, "exit_code",
                        r->has_exit_code ? json_integer(r->exit_code) : json_null());
    json_object_set_new(o, "error", str_or_null(r->error));
    json_object_set_new(o, "argv", str_or_null(r->argv_text));
    json_object_set_new(o, "dut_identity", str_or_null(r->dut_identity));
    json_object_set_new(o, "dut", str_or_null(r->dut));
    for (size_t i = 0; i < N_HEADLINE; i++)
        json_object_set_new(o, headline_fields[i].name, num_or_null(headline_get(r, i)));
    store_runinfo_json(r, o);
    if (with_raw) {
        json_object_set_new(o, "params", raw_doc(r->params_json));
        json_object_set_new(o, "env", raw_doc(r->env_json));
        json_object_set_new(o, "result", raw_doc(r->result_json));
        json_t *iv = json_array();
        for (size_t i = 0; iv && i < r->n_intervals; i++) {
            const struct store_interval *x = &r->intervals[i];
            json_array_append_new(
                iv, json_pack("{s:i, s:o, s:o, s:o, s:o}", "idx", x->idx, "start",
                              num_or_null(x->start), "end", num_or_null(x->end), "bits_per_second",
                              num_or_null(x->bits_per_second), "packets",
                              x->packets >= 0 ? json_integer(x->packets) : json_null()));
        }
        json_object_set_new(o, "intervals", iv ? iv : json_null());
    }
    return o;
}

/*
 * One header row and one record per run, through the shared CSV writer
 * (util/csv.h); CRLF line ends, as RFC 4180 and spreadsheets expect.
 */
static void export_csv(FILE *f, const struct store_run *runs, size_t n)
{
    static const char *const head[] = {"id",       "experiment", "seq",       "variant",
                                       "cell",     "status",     "attempt",   "started",
                                       "finished", "duration_s", "exit_code", "error"};
    struct csv w;
    csv_init(&w, f, CSV_CRLF);
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
        csv_text(&w, head[i]);
    for (size_t i = 0; i < N_HEADLINE; i++)
        csv_text(&w, headline_fields[i].name);
    store_runinfo_csv_head(&w);
    csv_end(&w);
    for (size_t k = 0; k < n; k++) {
        const struct store_run *r = &runs[k];
        csv_integer(&w, r->id);
        if (r->experiment_id)
            csv_integer(&w, r->experiment_id);
        else
            csv_empty(&w);
        if (r->seq >= 0)
            csv_integer(&w, r->seq);
        else
            csv_empty(&w);
        csv_text(&w, r->variant);
        csv_text(&w, r->cell);
        csv_text(&w, store_run_status_name(r->status));
        csv_integer(&w, r->attempt);
        csv_text(&w, r->started);
        csv_text(&w, r->finished);
        csv_number(&w, r->duration_s);
        if (r->has_exit_code)
            csv_integer(&w, r->exit_code);
        else
            csv_empty(&w);
        csv_text(&w, r->error);
        for (size_t i = 0; i < N_HEADLINE; i++)
            csv_number(&w, headline_get(r, i));
        store_runinfo_csv(&w, r);
        csv_end(&w);
    }
}

int store_export(struct store *s, int64_t experiment_id, enum store_format fmt, FILE *f, char *err,
                 size_t errlen)
{
    struct store_run *runs;
    size_t n;
    int e = store_run_list(s, experiment_id, fmt == STORE_FORMAT_JSON, &runs, &n, err, errlen);
    if (e)
        return e;
    if (fmt == STORE_FORMAT_CSV) {
        export_csv(f, runs, n);
    } else {
        json_t *arr = json_array();
        for (size_t i = 0; arr && i < n; i++)
            if (json_array_append_new(arr, store_run_to_json(&runs[i], true)))
                e = err_set(err, errlen, ENOMEM, "out of memory exporting runs");
        if (!arr)
            e = err_set(err, errlen, ENOMEM, "out of memory exporting runs");
        if (!e && jsonout_write(f, arr))
            e = err_set(err, errlen, EIO, "writing the export failed");
        json_decref(arr);
    }
    store_run_list_free(runs, n);
    if (!e && (fflush(f) || ferror(f)))
        e = err_set(err, errlen, EIO, "writing the export failed: %s", strerror(errno));
    return e;
}

int store_export_path(struct store *db, int64_t experiment_id, enum store_format fmt,
                      const char *path, char *err, size_t errlen)
{
    if (!path || !strcmp(path, "-"))
        return store_export(db, experiment_id, fmt, stdout, err, errlen);
    /* Under a temporary name: a failed export leaves no partial file. */
    struct outfile o;
    int e = outfile_open(&o, path, err, errlen);
    if (e)
        return e;
    e = store_export(db, experiment_id, fmt, o.f, err, errlen);
    if (e) {
        outfile_abort(&o);
        return e;
    }
    return outfile_commit(&o, err, errlen);
}

json_t *store_run_list_json(const struct store_run *runs, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, store_run_to_json(&runs[i], false))) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

int store_format_parse(const char *name, enum store_format *fmt)
{
    if (!strcmp(name, "csv"))
        *fmt = STORE_FORMAT_CSV;
    else if (!strcmp(name, "json"))
        *fmt = STORE_FORMAT_JSON;
    else
        return -EINVAL;
    return 0;
}
