/* Unit tests of the results store (src/lib/store). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include "store/store_copy.h"
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "store/store_docs.h"
#include "store/store_print.h"

struct ctx {
    char dir[256];
    char path[512];
};

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof(*c));
    snprintf(c->dir, sizeof(c->dir), "/tmp/netab-store-XXXXXX");
    if (!mkdtemp(c->dir))
        return -1;
    snprintf(c->path, sizeof(c->path), "%s/sub/dir/results.db", c->dir);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    chmod(c->dir, 0700);
    rm_tree(c->dir);
    free(c);
    return 0;
}

static struct store *open_ok(const char *path)
{
    struct store *s = NULL;
    char err[512] = "";
    int e = store_open(path, STORE_OPEN_CREATE, &s, err, sizeof(err));
    if (e)
        fprintf(stderr, "store_open: %s\n", err);
    assert_int_equal(e, 0);
    return s;
}

/* Records a finished single run from a fixture; returns its id. */
static int64_t record_fixture(struct store *s, const char *name)
{
    char *doc = fixture(name);
    assert_non_null(doc);
    int64_t id = 0;
    char err[512] = "";
    int e = store_record_result(s, "netab run -t 0.5 --json", doc, 0, &id, err, sizeof(err));
    if (e)
        fprintf(stderr, "%s\n", err);
    assert_int_equal(e, 0);
    free(doc);
    return id;
}

static void test_default_path(void **state)
{
    (void)state;
    char p[256], err[256];
    setenv("NETAB_DB", "/x/env.db", 1);
    assert_int_equal(store_default_path("/x/cli.db", p, sizeof(p), err, sizeof(err)), 0);
    assert_string_equal(p, "/x/cli.db");
    assert_int_equal(store_default_path(NULL, p, sizeof(p), err, sizeof(err)), 0);
    assert_string_equal(p, "/x/env.db");
    unsetenv("NETAB_DB");
    setenv("XDG_DATA_HOME", "/xdg", 1);
    assert_int_equal(store_default_path(NULL, p, sizeof(p), err, sizeof(err)), 0);
    assert_string_equal(p, "/xdg/netab/results.db");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/u", 1);
    assert_int_equal(store_default_path(NULL, p, sizeof(p), err, sizeof(err)), 0);
    assert_string_equal(p, "/home/u/.local/share/netab/results.db");
    assert_int_equal(store_default_path(NULL, p, 8, err, sizeof(err)), -ENAMETOOLONG);
}

static void test_open_settings(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path); /* also creates sub/dir */
    assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
    struct sqldb_stmt *q;
    assert_int_equal(sqldb_prepare(s->db, "PRAGMA synchronous", &q), SQLDB_OK);
    assert_int_equal(sqldb_step(q), SQLDB_ROW);
    assert_int_equal(sqldb_column_int(q, 0), 2); /* FULL */
    sqldb_finalize(q);
    assert_int_equal(sqldb_prepare(s->db, "PRAGMA foreign_keys", &q), SQLDB_OK);
    assert_int_equal(sqldb_step(q), SQLDB_ROW);
    assert_int_equal(sqldb_column_int(q, 0), 1);
    sqldb_finalize(q);
    sqlite3_stmt *st;
    store_close(s);
    /* WAL is a property of the file: another connection sees it. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_int_equal(raw_int(c->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    /* Opening again is idempotent. */
    s = open_ok(c->path);
    assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
    store_close(s);
}

/* Version 1 exactly as released; a frozen copy, so an edit of migration 1 shows up here. */
static const char schema_v1[] =
    "CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, file_text TEXT,"
    " spec_json TEXT, seed INTEGER NOT NULL DEFAULT 0,"
    " created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    " status TEXT NOT NULL DEFAULT 'planned'"
    " CHECK (status IN ('planned', 'running', 'done', 'failed')));"
    "CREATE TABLE plan (experiment_id INTEGER NOT NULL REFERENCES experiments(id),"
    " seq INTEGER NOT NULL, variant TEXT NOT NULL, cell TEXT,"
    " warmup INTEGER NOT NULL DEFAULT 0 CHECK (warmup IN (0, 1)),"
    " round INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (experiment_id, seq));"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, experiment_id INTEGER REFERENCES experiments(id),"
    " seq INTEGER, variant TEXT, cell TEXT,"
    " status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),"
    " attempt INTEGER NOT NULL DEFAULT 1,"
    " started TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), finished TEXT,"
    " exit_code INTEGER, error TEXT, params_json TEXT, result_json TEXT, env_json TEXT,"
    " receiver_bps REAL, sender_bps REAL, local_us_per_kib REAL, remote_us_per_kib REAL,"
    " cpu_local_pct REAL, cpu_remote_pct REAL, transactions_per_second REAL,"
    " latency_p50_us REAL, latency_p99_us REAL, lost_percent REAL);"
    "CREATE TABLE intervals (run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL,"
    " start REAL, \"end\" REAL, bits_per_second REAL, packets INTEGER,"
    " PRIMARY KEY (run_id, idx));"
    "INSERT INTO experiments (name, seed) VALUES ('old', 7);"
    "INSERT INTO plan VALUES (1, 0, 'a', NULL, 0, 0), (1, 1, 'b', NULL, 0, 0);"
    "INSERT INTO runs (experiment_id, seq, variant, status, finished, exit_code, receiver_bps)"
    " VALUES (1, 0, 'a', 'ok', '2024-01-01T00:00:00Z', 0, 1e9);"
    "INSERT INTO intervals VALUES (1, 0, 0.0, 1.0, 1e9, 5);"
    "PRAGMA application_id = 1314144578;"
    "PRAGMA user_version = 1;";

static void test_migrate_from_v1(void **state)
{
    struct ctx *c = *state;
    snprintf(c->path, sizeof(c->path), "%s/v1.db", c->dir);
    assert_int_equal(raw_exec(c->path, schema_v1), SQLITE_OK);
    assert_int_equal(raw_int(c->path, "PRAGMA user_version"), 1);

    struct store *s = open_ok(c->path);
    assert_int_equal(store_schema_version(s), 6);
    store_close(s);
    assert_int_equal(raw_int(c->path, "PRAGMA user_version"), 6);
    /* Migration 4's table: the runners of campaigns, empty for an old store. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runners"), 0);
    /* Migration 5's columns: the process CPU cost of each end, NULL for older runs. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs WHERE "
                                      "local_process_us_per_kib IS NULL AND "
                                      "remote_process_us_per_kib IS NULL"),
                     1);
    /* Migration 6's column: the DUT name of each run, NULL for older runs. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs WHERE dut IS NULL"), 1);
    /* Migration 3's column: the DUT identity of each run. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM pragma_table_info('runs') "
                                      "WHERE name = 'dut_identity'"),
                     1);
    /* Migration 2's column, index and triggers exist, and the v1 data survived. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM pragma_table_info('runs') "
                                      "WHERE name = 'argv_text'"),
                     1);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM sqlite_master WHERE name = "
                                      "'runs_by_experiment_seq'"),
                     1);
    assert_int_equal(raw_int(c->path, "SELECT receiver_bps FROM runs WHERE id = 1"), 1000000000);
    assert_int_equal(raw_int(c->path, "SELECT packets FROM intervals WHERE run_id = 1"), 5);
    assert_int_equal(raw_exec(c->path, "UPDATE runs SET receiver_bps = 1 WHERE id = 1"),
                     SQLITE_CONSTRAINT);

    /* The migrated store works: resume logic over the old plan. */
    s = open_ok(c->path);
    int seq = -1;
    bool found;
    char err[256];
    assert_int_equal(store_next_pending(s, 1, &seq, &found, err, sizeof(err)), 0);
    assert_true(found);
    assert_int_equal(seq, 1);
    store_close(s);
}

static void test_newer_schema_refused(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    record_fixture(s, "tcp_stream.json");
    store_close(s);
    assert_int_equal(raw_exec(c->path, "PRAGMA user_version = 99"), SQLITE_OK);
    size_t n1, n2;
    char *before = slurp(c->path, &n1);
    char err[512] = "";
    assert_int_equal(store_open(c->path, STORE_OPEN_CREATE, &s, err, sizeof(err)),
                     -EPROTONOSUPPORT);
    assert_null(s);
    assert_non_null(strstr(err, "version 99"));
    assert_non_null(strstr(err, "newer"));
    char *after = slurp(c->path, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(before, after, n1);
    free(before);
    free(after);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs"), 1);
}

static void test_not_a_database(void **state)
{
    struct ctx *c = *state;
    snprintf(c->path, sizeof(c->path), "%s/notes.txt", c->dir);
    const char text[] = "these are my precious notes, not a database, and they are long enough "
                        "that SQLite reads a header from them.............................\n";
    FILE *f = fopen(c->path, "w");
    for (int i = 0; i < 20; i++)
        fputs(text, f);
    fclose(f);
    size_t n1, n2;
    char *before = slurp(c->path, &n1);
    struct store *s;
    char err[512] = "";
    assert_int_equal(store_open(c->path, STORE_OPEN_CREATE, &s, err, sizeof(err)), -ENOTSUP);
    assert_non_null(strstr(err, "not a SQLite database"));
    char *after = slurp(c->path, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(before, after, n1);
    free(before);
    free(after);

    /* Somebody else's SQLite database is refused too, and left alone. */
    snprintf(c->path, sizeof(c->path), "%s/other.db", c->dir);
    assert_int_equal(raw_exec(c->path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);"), SQLITE_OK);
    assert_int_equal(store_open(c->path, STORE_OPEN_CREATE, &s, err, sizeof(err)), -ENOTSUP);
    assert_non_null(strstr(err, "not a netab results store"));
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM sqlite_master"), 1);
}

static void test_unopenable(void **state)
{
    struct ctx *c = *state;
    struct store *s;
    char err[512] = "";
    /* Readers do not create. */
    assert_int_equal(store_open(c->path, 0, &s, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, "no results database"));
    /* A directory. */
    assert_int_equal(store_open(c->dir, STORE_OPEN_CREATE, &s, err, sizeof(err)), -EISDIR);
    /* A directory component that is a file. */
    char file[600], under[700];
    snprintf(file, sizeof(file), "%s/plain", c->dir);
    fclose(fopen(file, "w"));
    snprintf(under, sizeof(under), "%s/plain/sub/r.db", c->dir);
    assert_int_equal(store_open(under, STORE_OPEN_CREATE, &s, err, sizeof(err)), -ENOTDIR);
    assert_non_null(strstr(err, "cannot create directory"));
}

static const struct store_plan_entry plan6[] = {
    {0, "base", "64K", true, 0}, {1, "new", "64K", false, 0},  {2, "base", "64K", false, 0},
    {3, "new", "64K", false, 1}, {4, "base", "64K", false, 1}, {5, "new", "64K", false, 2},
};

static void test_experiment_and_plan(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "";
    int64_t id = 0;
    assert_int_equal(store_experiment_create(s, "gro", "name: gro\n", "{\"a\":1}", 42, plan6, 6,
                                             &id, err, sizeof(err)),
                     0);
    ASSERT_GT(id, 0);
    struct store_counts cnt;
    assert_int_equal(store_experiment_counts(s, id, &cnt, err, sizeof(err)), 0);
    assert_int_equal(cnt.planned, 6);
    assert_int_equal(cnt.pending, 6);
    assert_int_equal(cnt.ok + cnt.failed + cnt.interrupted + cnt.running, 0);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM plan WHERE warmup = 1"), 1);
    assert_int_equal(raw_int(c->path, "SELECT seed FROM experiments"), 42);

    /* A plan with a repeated seq stores nothing at all: one transaction. */
    struct store_plan_entry bad[] = {{0, "a", NULL, false, 0}, {0, "b", NULL, false, 0}};
    int64_t id2 = -1;
    assert_int_equal(
        store_experiment_create(s, "bad", NULL, NULL, 1, bad, 2, &id2, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "repeats seq 0"));
    assert_int_equal(id2, -1);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM experiments"), 1);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM plan"), 6);

    struct store_experiment *x;
    size_t n;
    assert_int_equal(store_experiment_list(s, &x, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_string_equal(x[0].name, "gro");
    assert_string_equal(x[0].status, "planned");
    assert_int_equal(x[0].planned, 6);
    store_experiment_list_free(x, n);
    assert_int_equal(store_experiment_set_status(s, id, "running", err, sizeof(err)), 0);
    assert_int_equal(store_experiment_set_status(s, 999, "running", err, sizeof(err)), -ENOENT);
    store_close(s);
}

static double num_at(json_t *doc, const char *a, const char *b, const char *c3)
{
    json_t *v = json_object_get(json_object_get(doc, a), b);
    if (c3)
        v = json_object_get(v, c3);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void assert_same(double got, double want)
{
    if (isnan(want)) {
        assert_true(isnan(got));
        return;
    }
    ASSERT_LE(fabs(got - want), 1e-9 * fabs(want));
}

/* Headline values computed here from the fixture's own fields. */
static void check_headline(struct store *s, int64_t id, const char *name)
{
    char *text = fixture(name);
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    json_t *end = json_object_get(doc, "end");
    struct store_run r;
    char err[256];
    assert_int_equal(store_run_get(s, id, &r, err, sizeof(err)), 0);
    assert_int_equal(r.status, STORE_RUN_OK);
    assert_same(r.receiver_bps, num_at(end, "receiver", "bits_per_second", NULL));
    assert_same(r.sender_bps, num_at(end, "sender", "bits_per_second", NULL));
    assert_same(r.local_us_per_kib, num_at(end, "service_demand", "local_us_per_kib", NULL));
    assert_same(r.remote_us_per_kib, num_at(end, "service_demand", "remote_us_per_kib", NULL));
    assert_same(r.cpu_local_pct, num_at(end, "cpu", "local", "total_pct"));
    assert_same(r.cpu_remote_pct, num_at(end, "cpu", "remote", "total_pct"));
    json_t *tps = json_object_get(end, "transactions_per_second");
    assert_same(r.transactions_per_second, tps ? json_number_value(tps) : NAN);
    assert_same(r.latency_p50_us, num_at(end, "latency_us", "p50", NULL));
    assert_same(r.latency_p99_us, num_at(end, "latency_us", "p99", NULL));
    assert_same(r.lost_percent, num_at(end, "receiver", "lost_percent", NULL));
    json_t *iv = json_object_get(doc, "intervals");
    assert_int_equal(r.n_intervals, json_array_size(iv));
    for (size_t i = 0; i < r.n_intervals; i++) {
        json_t *o = json_array_get(iv, i);
        assert_same(r.intervals[i].start, json_number_value(json_object_get(o, "start")));
        assert_same(r.intervals[i].end, json_number_value(json_object_get(o, "end")));
        assert_same(r.intervals[i].bits_per_second,
                    json_number_value(json_object_get(o, "bits_per_second")));
        assert_int_equal(r.intervals[i].packets, json_integer_value(json_object_get(o, "packets")));
    }
    /* The raw document is kept byte for byte, and params/env come from it. */
    assert_string_equal(r.result_json, text);
    json_t *params = json_loads(r.params_json, 0, NULL);
    assert_true(json_equal(params, json_object_get(doc, "test")));
    json_t *env = json_loads(r.env_json, 0, NULL);
    assert_true(json_equal(env, json_object_get(doc, "host")));
    assert_string_equal(r.argv_text, "netab run -t 0.5 --json");
    json_decref(params);
    json_decref(env);
    json_decref(doc);
    free(text);
    store_run_free(&r);
}

static void test_headline_from_fixtures(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    const char *names[] = {"tcp_stream.json", "udp_stream.json", "tcp_rr.json"};
    for (int i = 0; i < 3; i++)
        check_headline(s, record_fixture(s, names[i]), names[i]);
    /* Spot checks that the fixtures exercise every column kind. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs WHERE lost_percent IS NULL"), 2);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs WHERE latency_p99_us > 0"), 1);
    store_close(s);
}

static void test_begin_finish(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "";
    int64_t eid, rid;
    assert_int_equal(
        store_experiment_create(s, "e", NULL, NULL, 1, plan6, 6, &eid, err, sizeof(err)), 0);
    assert_int_equal(store_run_begin(s, eid, 0, "base", "64K", "{\"t\":1}", "{\"k\":\"v\"}", &rid,
                                     err, sizeof(err)),
                     0);
    /* Committed before the run: another connection sees the running row. */
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs WHERE status = 'running'"), 1);
    char *doc = fixture("tcp_stream.json");
    assert_int_equal(store_run_finish(s, rid, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)), 0);
    struct store_run r;
    assert_int_equal(store_run_get(s, rid, &r, err, sizeof(err)), 0);
    assert_int_equal(r.experiment_id, eid);
    assert_int_equal(r.seq, 0);
    assert_string_equal(r.variant, "base");
    assert_string_equal(r.cell, "64K");
    assert_int_equal(r.attempt, 1);
    assert_non_null(r.finished);
    ASSERT_GE(r.duration_s, 0);
    assert_true(r.has_exit_code);
    assert_string_equal(r.params_json, "{\"t\":1}");
    store_run_free(&r);
    /* Unknown run, running status and unknown experiment. */
    assert_int_equal(store_run_finish(s, 999, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)),
                     -ENOENT);
    assert_int_equal(store_run_finish(s, rid, STORE_RUN_RUNNING, 0, NULL, doc, err, sizeof(err)),
                     -EINVAL);
    assert_int_equal(store_run_begin(s, 999, 0, "x", NULL, NULL, NULL, &rid, err, sizeof(err)),
                     -ENOENT);
    assert_int_equal(store_run_get(s, 999, &r, err, sizeof(err)), -ENOENT);
    /* A result that is not JSON is kept as is, with no headline numbers. */
    assert_int_equal(store_run_begin(s, eid, 1, "new", NULL, NULL, NULL, &rid, err, sizeof(err)),
                     0);
    assert_int_equal(
        store_run_finish(s, rid, STORE_RUN_FAILED, 3, "crashed", "garbage{", err, sizeof(err)), 0);
    assert_int_equal(store_run_get(s, rid, &r, err, sizeof(err)), 0);
    assert_string_equal(r.result_json, "garbage{");
    assert_string_equal(r.error, "crashed");
    assert_int_equal(r.exit_code, 3);
    assert_true(isnan(r.receiver_bps));
    store_run_free(&r);
    free(doc);
    store_close(s);
}

static void test_interrupted_and_resume(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "";
    int64_t eid, r0, r1, r1b, r2;
    char *doc = fixture("tcp_stream.json");
    assert_int_equal(
        store_experiment_create(s, "e", NULL, NULL, 1, plan6, 4, &eid, err, sizeof(err)), 0);
    assert_int_equal(store_run_begin(s, eid, 0, "base", NULL, NULL, NULL, &r0, err, sizeof(err)),
                     0);
    assert_int_equal(store_run_finish(s, r0, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)), 0);
    assert_int_equal(store_run_begin(s, eid, 1, "new", NULL, NULL, NULL, &r1, err, sizeof(err)), 0);
    /* The process "crashes" here: close without finishing, as a new process would find it. */
    store_close(s);
    s = open_ok(c->path);
    int n = -1, seq = -1;
    bool found;
    assert_int_equal(store_mark_interrupted(s, eid, NULL, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_next_pending(s, eid, &seq, &found, err, sizeof(err)), 0);
    assert_true(found);
    assert_int_equal(seq, 1);
    /* The re-run is a new row, attempt 2; the interrupted row stays as it was. */
    assert_int_equal(store_run_begin(s, eid, 1, "new", NULL, NULL, NULL, &r1b, err, sizeof(err)),
                     0);
    ASSERT_NE(r1b, r1);
    struct store_run r;
    assert_int_equal(store_run_get(s, r1b, &r, err, sizeof(err)), 0);
    assert_int_equal(r.attempt, 2);
    store_run_free(&r);
    assert_int_equal(store_run_finish(s, r1b, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)), 0);
    assert_int_equal(store_run_finish(s, r1, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)),
                     -EALREADY);
    assert_non_null(strstr(err, "interrupted"));
    assert_int_equal(store_run_get(s, r1, &r, err, sizeof(err)), 0);
    assert_int_equal(r.status, STORE_RUN_INTERRUPTED);
    assert_null(r.result_json);
    store_run_free(&r);
    /* A failed run also counts as done for resume. */
    assert_int_equal(store_run_begin(s, eid, 2, "base", NULL, NULL, NULL, &r2, err, sizeof(err)),
                     0);
    assert_int_equal(
        store_run_finish(s, r2, STORE_RUN_FAILED, 1, "refused", NULL, err, sizeof(err)), 0);
    assert_int_equal(store_next_pending(s, eid, &seq, &found, err, sizeof(err)), 0);
    assert_true(found);
    assert_int_equal(seq, 3);
    struct store_counts cnt;
    assert_int_equal(store_experiment_counts(s, eid, &cnt, err, sizeof(err)), 0);
    assert_int_equal(cnt.planned, 4);
    assert_int_equal(cnt.ok, 2);
    assert_int_equal(cnt.failed, 1);
    assert_int_equal(cnt.pending, 1);
    assert_int_equal(cnt.interrupted, 1);
    assert_int_equal(cnt.running, 0);
    double avg;
    assert_int_equal(store_avg_run_seconds(s, eid, &avg, err, sizeof(err)), 0);
    ASSERT_GE(avg, 0);
    ASSERT_LT(avg, 60);
    assert_same(store_eta_seconds(&cnt, 10.0), 10.0);
    assert_true(isnan(store_eta_seconds(&cnt, NAN)));
    /* Last one: nothing pending. */
    int64_t r3;
    assert_int_equal(store_run_begin(s, eid, 3, "new", NULL, NULL, NULL, &r3, err, sizeof(err)), 0);
    assert_int_equal(store_run_finish(s, r3, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)), 0);
    seq = 77;
    assert_int_equal(store_next_pending(s, eid, &seq, &found, err, sizeof(err)), 0);
    assert_false(found);
    assert_int_equal(seq, 77);
    free(doc);
    store_close(s);
}

static void test_nothing_overwritten(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "";
    int64_t id = record_fixture(s, "tcp_stream.json");
    char *other = fixture("udp_stream.json");
    assert_int_equal(store_run_finish(s, id, STORE_RUN_FAILED, 1, "x", other, err, sizeof(err)),
                     -EALREADY);
    free(other);
    struct store_run r;
    assert_int_equal(store_run_get(s, id, &r, err, sizeof(err)), 0);
    assert_int_equal(r.status, STORE_RUN_OK);
    assert_non_null(strstr(r.result_json, "tcp_stream"));
    store_run_free(&r);
    store_close(s);
    /* The schema itself refuses changes to finished runs and deletions. */
    assert_int_equal(raw_exec(c->path, "UPDATE runs SET status = 'failed'"), SQLITE_CONSTRAINT);
    assert_int_equal(raw_exec(c->path, "DELETE FROM runs"), SQLITE_CONSTRAINT);
    assert_int_equal(raw_exec(c->path, "UPDATE intervals SET packets = 0"), SQLITE_CONSTRAINT);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs WHERE status = 'ok'"), 1);
}

static void test_export(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "";
    int64_t eid, rid;
    struct store_plan_entry plan[] = {{0, "a,\"quoted\"", "cell\n2", false, 0}};
    assert_int_equal(
        store_experiment_create(s, "e", NULL, NULL, 1, plan, 1, &eid, err, sizeof(err)), 0);
    char *doc = fixture("tcp_rr.json");
    assert_int_equal(store_run_begin(s, eid, 0, plan[0].variant, plan[0].cell, NULL, NULL, &rid,
                                     err, sizeof(err)),
                     0);
    assert_int_equal(store_run_finish(s, rid, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)), 0);
    record_fixture(s, "udp_stream.json");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(store_export(s, STORE_ALL_RUNS, STORE_FORMAT_CSV, f, err, sizeof(err)), 0);
    fclose(f);
    ASSERT_STARTS_WITH(buf, "id,experiment,seq,variant,cell,status,");
    assert_non_null(strstr(buf, ",receiver_bps,"));
    assert_non_null(strstr(buf, "\"a,\"\"quoted\"\"\",\"cell\n2\",ok,1,"));
    assert_non_null(strstr(buf, ",57.471,")); /* tcp_rr p99 */
    int lines = 0;
    for (char *p = buf; (p = strstr(p, "\r\n")); p += 2)
        lines++;
    assert_int_equal(lines, 3); /* header + 2 runs */
    free(buf);

    /* Filtered to the single runs. */
    f = open_memstream(&buf, &len);
    assert_int_equal(store_export(s, 0, STORE_FORMAT_JSON, f, err, sizeof(err)), 0);
    fclose(f);
    json_t *arr = json_loads(buf, 0, NULL);
    assert_true(json_is_array(arr));
    assert_int_equal(json_array_size(arr), 1);
    json_t *o = json_array_get(arr, 0);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "ok");
    assert_true(json_is_null(json_object_get(o, "experiment")));
    char *udp = fixture("udp_stream.json");
    json_t *want = json_loads(udp, 0, NULL);
    assert_true(json_equal(json_object_get(o, "result"), want));
    assert_int_equal(json_array_size(json_object_get(o, "intervals")), 1);
    json_decref(want);
    json_decref(arr);
    free(udp);
    free(buf);

    /* The experiment's runs only. */
    f = open_memstream(&buf, &len);
    assert_int_equal(store_export(s, eid, STORE_FORMAT_JSON, f, err, sizeof(err)), 0);
    fclose(f);
    arr = json_loads(buf, 0, NULL);
    assert_int_equal(json_array_size(arr), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 0), "variant")),
                        "a,\"quoted\"");
    json_decref(arr);
    free(buf);
    free(doc);
    store_close(s);
}

/*
 * store_docs_ok_runs(): the ok runs' documents of a variant; and
 * store_print_run_list(): one line per run, a dash where nothing is stored.
 */
/*
 * Experiment "e" in s with variant a's run ok (the tcp_rr fixture, returned in *doc, the
 * caller's to free) and variant b's run failed ("refused"); its id in *eid.
 */
static void seed_ok_and_failed(struct store *s, int64_t *eid, char **doc)
{
    char err[512] = "";
    int64_t rid;
    struct store_plan_entry plan[] = {{0, "a", NULL, false, 0}, {1, "b", NULL, false, 0}};
    assert_int_equal(store_experiment_create(s, "e", NULL, NULL, 1, plan, 2, eid, err, sizeof(err)),
                     0);
    *doc = fixture("tcp_rr.json");
    assert_int_equal(store_run_begin(s, *eid, 0, "a", NULL, NULL, NULL, &rid, err, sizeof(err)), 0);
    assert_int_equal(store_run_finish(s, rid, STORE_RUN_OK, 0, NULL, *doc, err, sizeof(err)), 0);
    assert_int_equal(store_run_begin(s, *eid, 1, "b", NULL, NULL, NULL, &rid, err, sizeof(err)), 0);
    assert_int_equal(
        store_run_finish(s, rid, STORE_RUN_FAILED, 1, "refused", NULL, err, sizeof(err)), 0);
}

static void test_docs_and_print(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "";
    int64_t eid;
    char *doc;
    seed_ok_and_failed(s, &eid, &doc);
    json_t **docs = NULL;
    size_t n = 0;
    assert_int_equal(store_docs_ok_runs(s, eid, "a", &docs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    json_t *want = json_loads(doc, 0, NULL);
    assert_true(json_equal(docs[0], want));
    json_decref(want);
    store_docs_free(docs, n);
    assert_int_equal(store_docs_ok_runs(s, eid, "b", &docs, &n, err, sizeof(err)), -ENODATA);
    assert_string_equal(err, "experiment 1 has no ok run of variant b");
    /* The same through the store's path, opened and closed again. */
    assert_int_equal(store_docs_ok_runs_at(c->path, eid, "a", &docs, &n, err, sizeof(err)), 0);
    ASSERT_EQ(n, 1);
    store_docs_free(docs, n);
    /* EXPERIMENT[:VARIANT] as --hot-from names the runs. */
    int64_t ref_id = 0;
    const char *ref_variant = NULL;
    assert_int_equal(store_docs_parse_ref("12:patched", &ref_id, &ref_variant), 0);
    ASSERT_EQ(ref_id, 12);
    assert_string_equal(ref_variant, "patched");
    assert_int_equal(store_docs_parse_ref("7", &ref_id, &ref_variant), 0);
    ASSERT_EQ(ref_id, 7);
    assert_null(ref_variant);
    const char *bad_refs[] = {"", "0", "-3", "12:", "x", "12x", "run.json"};
    for (size_t i = 0; i < sizeof(bad_refs) / sizeof(bad_refs[0]); i++)
        assert_int_equal(store_docs_parse_ref(bad_refs[i], &ref_id, &ref_variant), -EINVAL);

    struct store_run *runs;
    assert_int_equal(store_run_list(s, eid, false, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    /* runs list --json: one object per run, in the list's order. */
    json_t *arr = store_run_list_json(runs, n);
    ASSERT_EQ(json_array_size(arr), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 1), "status")),
                        "failed");
    json_decref(arr);
    enum store_format fmt = STORE_FORMAT_CSV;
    assert_int_equal(store_format_parse("json", &fmt), 0);
    ASSERT_EQ(fmt, STORE_FORMAT_JSON);
    assert_int_equal(store_format_parse("csv", &fmt), 0);
    ASSERT_EQ(fmt, STORE_FORMAT_CSV);
    assert_int_equal(store_format_parse("xml", &fmt), -EINVAL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(store_print_run_list(f, runs, n), 0);
    fclose(f);
    store_run_list_free(runs, n);
    ASSERT_STARTS_WITH(buf, "   ID  EXP  SEQ VARIANT");
    /* The failed run of b has no figures: dashes, not zeros. */
    const char *line_b = strstr(buf, " b          -          failed");
    assert_non_null(line_b);
    assert_non_null(strstr(line_b, "           -           -"));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(store_print_run_list(f, NULL, 0), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\n(no runs recorded)\n"));
    free(buf);
    free(doc);
    store_close(s);
}

static void test_record_single(void **state)
{
    struct ctx *c = *state;
    char err[512] = "";
    char *doc = fixture("tcp_stream.json");
    assert_int_equal(store_record_single(c->path, "netab run -t 0.5", doc, 0, err, sizeof(err)), 0);
    /* A failed run: non-zero exit and an error in the document. */
    const char failed[] = "{\"netab_version\":\"0.1.0\",\"error\":\"connection refused\"}";
    assert_int_equal(store_record_single(c->path, "netab run -c h", failed, 1, err, sizeof(err)),
                     0);
    struct store *s = open_ok(c->path);
    struct store_run *runs;
    size_t n;
    assert_int_equal(store_run_list(s, 0, false, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    assert_int_equal(runs[0].status, STORE_RUN_OK);
    assert_int_equal(runs[0].experiment_id, 0);
    assert_int_equal(runs[0].seq, -1);
    assert_string_equal(runs[0].argv_text, "netab run -t 0.5");
    assert_null(runs[0].result_json); /* lists leave the raw documents out */
    assert_int_equal(runs[1].status, STORE_RUN_FAILED);
    assert_string_equal(runs[1].error, "connection refused");
    assert_int_equal(runs[1].exit_code, 1);
    store_run_list_free(runs, n);
    store_close(s);
    free(doc);
}

/* netab run --db: the document compacted, the command line "netab " and its words. */
static void test_record_run_doc(void **state)
{
    struct ctx *c = *state;
    char err[512] = "";
    char *text = fixture("tcp_stream.json");
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    char *argv[] = {"run", "-t", "0.5", "--db", c->path};
    assert_int_equal(store_record_run_doc(c->path, "patched", 5, argv, doc, 0, err, sizeof(err)),
                     0);
    struct store *s = open_ok(c->path);
    struct store_run *runs;
    size_t n;
    assert_int_equal(store_run_list(s, 0, false, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_int_equal(runs[0].status, STORE_RUN_OK);
    char want[600];
    snprintf(want, sizeof(want), "netab run -t 0.5 --db %s", c->path);
    assert_string_equal(runs[0].argv_text, want);
    assert_string_equal(runs[0].variant, "patched");
    /* Recorded after it ended, the run started when its document says (2026-11-29T22:16:33Z). */
    assert_string_equal(runs[0].started, "2026-11-29T22:16:33.000Z");
    ASSERT_GT(runs[0].duration_s, 0.0);
    store_run_list_free(runs, n);
    store_close(s);
    json_decref(doc);
    free(text);
}

/* A start time that is not netab's form, or lies ahead: the run started when it was recorded. */
static void test_record_start_time(void **state)
{
    struct ctx *c = *state;
    char err[512] = "";
    static const char *const docs[] = {
        "{\"start\":{\"time\":\"yesterday\"},\"error\":null}",
        "{\"start\":{\"time\":\"2026-11-29 22:16:33Z\"},\"error\":null}",
        "{\"start\":{\"time\":\"2999-01-01T00:00:00Z\"},\"error\":null}",
        "{\"start\":{\"time\":7},\"error\":null}",
        "{\"error\":null}",
    };
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
        assert_int_equal(store_record_single(c->path, "x", docs[i], 0, err, sizeof(err)), 0);
    struct store *s = open_ok(c->path);
    struct store_run *runs;
    size_t n;
    assert_int_equal(store_run_list(s, 0, false, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 5);
    /* Started and finished as it was recorded: a duration of (almost) nothing, never NAN. */
    for (size_t i = 0; i < n; i++)
        if (!(runs[i].duration_s >= 0 && runs[i].duration_s < 60))
            fail_msg("run %zu started '%s': %g s before it finished", i, runs[i].started,
                     runs[i].duration_s);
    store_run_list_free(runs, n);
    store_close(s);
}

/* Read-only access: what remains readable, and the error a write gets. */
static void test_readonly(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    int64_t first = record_fixture(s, "tcp_stream.json");
    store_close(s);
    char err[512] = "";
    /* The flag: SQLITE_OPEN_READONLY underneath. */
    assert_int_equal(store_open(c->path, STORE_OPEN_READONLY, &s, err, sizeof(err)), 0);
    char *doc = fixture("udp_stream.json");
    assert_int_equal(store_record_result(s, "x", doc, 0, NULL, err, sizeof(err)), -EROFS);
    assert_non_null(strstr(err, "read-only"));
    assert_non_null(strstr(err, "nothing already recorded was changed"));
    struct store_run r;
    assert_int_equal(store_run_get(s, first, &r, err, sizeof(err)), 0);
    assert_int_equal(r.status, STORE_RUN_OK);
    store_run_free(&r);
    store_close(s);
    if (geteuid() != 0) {
        /* Permissions: a read-only file (root ignores them; test_store_fs covers root). */
        assert_int_equal(chmod(c->path, 0444), 0);
        assert_int_equal(store_record_single(c->path, "x", doc, 0, err, sizeof(err)), -EROFS);
        assert_non_null(strstr(err, "read-only"));
        chmod(c->path, 0644);
    }
    free(doc);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM runs"), 1);
}

/*
 * A URL of an unknown scheme is refused by its scheme, listing the known
 * ones; a PostgreSQL URL whose server is not there fails to connect. Neither
 * creates anything on disk nor echoes the password.
 */
static void test_url_refused(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    struct store *db = NULL;
    const char *url = "postgresql://u:secret@/db?host=/nonexistent-netab-dir";
    assert_int_equal(store_check_path(url, err, sizeof(err)), 0);
    assert_int_equal(store_open(url, STORE_OPEN_CREATE, &db, err, sizeof(err)), -ECONNREFUSED);
    assert_null(db);
    assert_non_null(strstr(err, "cannot connect to the results database postgresql://u@/db"));
    assert_null(strstr(err, "secret"));
    struct stat sb;
    assert_int_not_equal(stat("postgresql:", &sb), 0);
    assert_int_equal(store_open("mysql://u:secret@h/db", STORE_OPEN_CREATE, &db, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "mysql://..."));
    assert_non_null(strstr(err, "postgresql://"));
    assert_null(strstr(err, "secret"));
    assert_int_not_equal(stat("mysql:", &sb), 0);
    assert_int_equal(store_check_path("sqlite3://x", err, sizeof(err)), -EINVAL);
    assert_int_equal(store_check_path("postgres://h/db", err, sizeof(err)), 0);
    assert_int_equal(store_check_path("results.db", err, sizeof(err)), 0);
    assert_int_equal(store_check_path("dir/a:b.db", err, sizeof(err)), 0);
    assert_int_equal(store_check_path("://x", err, sizeof(err)), 0);
}

/*
 * store_copy_all(): every experiment and then the single runs, each said in
 * one line; a second copy adds nothing and says so; an unknown id stops it.
 */
static void test_copy_all(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    char err[512] = "", to_path[600];
    int64_t eid, rid;
    char *doc;
    seed_ok_and_failed(s, &eid, &doc);
    assert_int_equal(store_record_result(s, "netab run", doc, 0, &rid, err, sizeof(err)), 0);
    snprintf(to_path, sizeof(to_path), "%s/copy.db", c->dir);
    struct store *t = open_ok(to_path);
    char out[1024];
    for (int pass = 0; pass < 2; pass++) {
        memset(out, 0, sizeof(out));
        FILE *f = fmemopen(out, sizeof(out) - 1, "w");
        assert_non_null(f);
        assert_int_equal(store_copy_all(s, t, NULL, 0, f, err, sizeof(err)), 0);
        assert_int_equal(fclose(f), 0);
        assert_string_equal(out, pass ? "experiment 1 -> 1: 0 runs copied, 2 already there\n"
                                        "single runs: 0 copied, 1 already there\n"
                                      : "experiment 1 -> 1 (new): 2 runs copied, 0 already "
                                        "there\nsingle runs: 1 copied, 0 already there\n");
    }
    int64_t missing = 99;
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(store_copy_all(s, t, &missing, 1, f, err, sizeof(err)), -ENOENT);
    fclose(f);
    free(doc);
    store_close(t);
    store_close(s);
}

/*
 * Two single runs of one command that started in the same second (start
 * times are whole seconds; a password dropped from --db makes two command
 * lines one) are two runs to copy, not one: their documents differ.
 */
static void test_copy_same_second(void **state)
{
    struct ctx *c = *state;
    char err[512] = "", to_path[600], out[256] = "";
    char *text = fixture("tcp_stream.json");
    char *argv[] = {"run", "-t", "0.2"};
    for (int i = 0; i < 2; i++) {
        json_t *doc = json_loads(text, 0, NULL);
        assert_non_null(doc);
        json_object_set_new(doc, "which", json_integer(i));
        assert_int_equal(store_record_run_doc(c->path, NULL, 3, argv, doc, 0, err, sizeof(err)), 0);
        json_decref(doc);
    }
    struct store *s = open_ok(c->path);
    snprintf(to_path, sizeof(to_path), "%s/copy.db", c->dir);
    struct store *t = open_ok(to_path);
    FILE *f = fmemopen(out, sizeof(out) - 1, "w");
    assert_non_null(f);
    assert_int_equal(store_copy_all(s, t, NULL, 0, f, err, sizeof(err)), 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(out, "single runs: 2 copied, 0 already there\n");
    store_close(t);
    store_close(s);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_path),
        cmocka_unit_test_setup_teardown(test_docs_and_print, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_settings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unopenable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_experiment_and_plan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_headline_from_fixtures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_begin_finish, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupted_and_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_overwritten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_start_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_run_doc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_same_second, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_single, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
        cmocka_unit_test(test_url_refused),
        cmocka_unit_test_setup_teardown(test_copy_all, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
