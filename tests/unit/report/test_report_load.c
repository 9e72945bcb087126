/*
 * What a report loads (report/metric.c, report/multi.c)
 * and the importer that feeds it (store_import.c): path metrics with the
 * rule for absent figures, several experiments grouped by label, and
 * imports that are all or nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/metric.h"
#include "report/multi.h"
#include "store/store.h"
#include "store/store_import.h"

struct ctx {
    char dir[64], path[128];
    struct store *db;
};

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof(*c));
    snprintf(c->dir, sizeof(c->dir), "/tmp/netab-rload-XXXXXX");
    if (!c || !mkdtemp(c->dir))
        return -1;
    snprintf(c->path, sizeof(c->path), "%s/s.db", c->dir);
    char err[512];
    if (store_open(c->path, STORE_OPEN_CREATE, &c->db, err, sizeof(err)))
        return -1;
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    char p[192];
    store_close(c->db);
    const char *suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s%s", c->path, suffix[i]);
        unlink(p);
    }
    rmdir(c->dir);
    free(c);
    return 0;
}

/* A run document with throughput bps, task_clock ns (<0: null), kernel.local as given. */
static char *doc(double bps, double task, const char *kernel_local, const char *release)
{
    char *s, t[32];
    if (task < 0)
        snprintf(t, sizeof(t), "null");
    else
        snprintf(t, sizeof(t), "%.17g", task);
    int n = asprintf(&s,
                     "{\"test\": {\"test\": \"tcp_stream\"}, \"host\": {\"local\": {\"kernel\": "
                     "\"%s\"}}, \"end\": {\"receiver\": {\"bits_per_second\": %.17g}, \"perf\": "
                     "{\"local\": {\"task_clock\": %s}}, \"kernel\": {\"local\": %s}}}",
                     release, bps, t, kernel_local);
    ASSERT_GT(n, 0);
    return s;
}

/* A netab-like experiment of one variant and n ok runs with these documents and environment. */
static int64_t experiment_env(struct store *db, const char *name, const char *variant, char **docs,
                              size_t n, const char *env)
{
    struct store_plan_entry plan[8];
    char spec[128], err[512];
    snprintf(spec, sizeof(spec), "{\"variants\": [{\"name\": \"%s\"}]}", variant);
    for (size_t i = 0; i < n; i++)
        plan[i] = (struct store_plan_entry){(int)i + 1, variant, "default", false, (int)i + 1};
    int64_t id, run;
    assert_int_equal(
        store_experiment_create(db, name, "x", spec, 1, plan, n, &id, err, sizeof(err)), 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(store_run_begin(db, id, (int)i + 1, variant, "default", NULL, env, &run,
                                         err, sizeof(err)),
                         0);
        assert_int_equal(
            store_run_finish(db, run, STORE_RUN_OK, 0, NULL, docs[i], err, sizeof(err)), 0);
        free(docs[i]);
    }
    assert_int_equal(store_experiment_set_status(db, id, "done", err, sizeof(err)), 0);
    return id;
}

/* The same without an environment capture; returns its id. */
static int64_t experiment(struct store *db, const char *name, const char *variant, char **docs,
                          size_t n)
{
    return experiment_env(db, name, variant, docs, n, NULL);
}

/* The entry of group name, cell 0, metric called metric. */
static const struct creport_entry *at(const struct creport *r, const char *name, const char *metric)
{
    size_t m = creport_metric_index(r->metrics, r->nmetrics, metric);
    ASSERT_LT(m, r->nmetrics);
    for (size_t v = 0; v < r->nvariants; v++)
        if (!strcmp(r->variants[v], name))
            return creport_at(r, v, 0, m);
    fail_msg("no group %s", name);
    return NULL;
}

/* Kernel counters: absent = 0 where the run has them; other absent figures are never made up. */
static void test_path_metrics(void **state)
{
    struct ctx *c = *state;
    char *d[] = {
        doc(1e9, 100, "{\"Udp\": {\"RcvbufErrors\": 7}}", "6.1"),
        doc(2e9, 300, "{\"Tcp\": {\"InSegs\": 5}}", "6.1"),
        doc(3e9, -1, "null", "6.1"),
    };
    int64_t id = experiment(c->db, "e", "base", d, 3);
    const char *names[] = {"perf.local.task_clock", "kernel.local.Udp.RcvbufErrors",
                           "end.receiver.bits_per_second:higher", "perf.local.cycles"};
    struct creport_opts o;
    creport_opts_default(&o);
    o.metrics = names;
    o.nmetrics = 4;
    struct creport *r;
    char err[512];
    assert_int_equal(creport_load(c->db, id, &o, &r, err, sizeof(err)), 0);
    const struct creport_entry *e = at(r, "base", "perf.local.task_clock");
    assert_int_equal(e->n, 2); /* the null one is left out */
    assert_true(e->shown);
    ASSERT_EQ(e->median, 200);
    e = at(r, "base", "kernel.local.Udp.RcvbufErrors");
    /* 7, then 0 (absent from an object), and the run without kernel counters left out. */
    assert_int_equal(e->n, 2);
    ASSERT_EQ(e->values[0], 7);
    ASSERT_EQ(e->values[1], 0);
    e = at(r, "base", "end.receiver.bits_per_second");
    assert_int_equal(e->n, 3);
    ASSERT_EQ(e->median, 2e9);
    size_t m = creport_metric_index(r->metrics, r->nmetrics, "perf.local.task_clock");
    assert_true(r->metrics[m].lower_is_better);
    assert_string_equal(r->metrics[m].unit, "ns");
    assert_string_equal(r->metrics[m].path, "end.perf.local.task_clock");
    m = creport_metric_index(r->metrics, r->nmetrics, "end.receiver.bits_per_second");
    assert_false(r->metrics[m].lower_is_better);
    e = at(r, "base", "perf.local.cycles");
    assert_int_equal(e->n, 0);
    assert_false(e->shown);
    assert_int_equal(r->cells[0].decide,
                     (int)creport_metric_index(r->metrics, r->nmetrics, "perf.local.task_clock"));
    creport_free(r);
    char msg[512];
    assert_false(creport_metric_valid("bogus", msg, sizeof(msg)));
    assert_non_null(strstr(msg, "unknown metric 'bogus'"));
    assert_false(creport_metric_valid("perf..x", msg, sizeof(msg)));
    assert_true(creport_metric_valid("throughput", msg, sizeof(msg)));
    assert_true(creport_metric_valid("kernel.remote.Udp.RcvbufErrors", msg, sizeof(msg)));
}

/* Two experiments and an import in one report, by variant and by kernel. */
static void test_several(void **state)
{
    struct ctx *c = *state;
    char err[512];
    char *a[] = {doc(1e9, 1, "{}", "6.1"), doc(1e9, 1, "{}", "6.1")};
    char *b[] = {doc(2e9, 1, "{}", "6.2"), doc(2e9, 1, "{}", "6.2")};
    int64_t ea = experiment(c->db, "old", "nb", a, 2);
    int64_t eb = experiment(c->db, "new", "nb", b, 2);
    char *imp = doc(5e8, 1, "{}", "6.1");
    struct store_import_run ir[] = {{imp, "{\"import\": {}}", "imported", NULL},
                                    {imp, "{\"import\": {}}", "imported", NULL}};
    struct store_import_target t = {.experiment = "iperf-2019", .variant = "iperf3"};
    int64_t ei;
    int seq;
    assert_int_equal(store_import(c->db, &t, ir, 2, &ei, &seq, err, sizeof(err)), 0);
    assert_int_equal(seq, 1);
    int64_t ids[] = {ea, eb, ei};
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    assert_int_equal(
        creport_load_many(c->db, ids, 3, CREPORT_LABEL_VARIANT, &o, &r, err, sizeof(err)), 0);
    char want[3][32];
    snprintf(want[0], sizeof(want[0]), "nb#%lld", (long long)ea);
    snprintf(want[1], sizeof(want[1]), "nb#%lld", (long long)eb);
    snprintf(want[2], sizeof(want[2]), "iperf3");
    assert_int_equal(r->nvariants, 3);
    assert_int_equal(r->ncells, 1);
    for (size_t v = 0; v < 3; v++)
        assert_string_equal(r->variants[v], want[v]);
    ASSERT_EQ(at(r, want[1], "throughput")->median, 2000);
    ASSERT_EQ(at(r, "iperf3", "throughput")->median, 500);
    assert_true(at(r, want[1], "throughput")->has_cmp);
    creport_free(r);
    /* By kernel: 6.1 twice (old and the import) gets #ID, 6.2 is alone. */
    assert_int_equal(
        creport_load_many(c->db, ids, 3, CREPORT_LABEL_KERNEL, &o, &r, err, sizeof(err)), 0);
    snprintf(want[0], sizeof(want[0]), "6.1#%lld", (long long)ea);
    snprintf(want[1], sizeof(want[1]), "6.2");
    snprintf(want[2], sizeof(want[2]), "6.1#%lld", (long long)ei);
    for (size_t v = 0; v < 3; v++)
        assert_string_equal(r->variants[v], want[v]);
    creport_free(r);
    int64_t bad[] = {ea, 999};
    assert_int_equal(
        creport_load_many(c->db, bad, 2, CREPORT_LABEL_VARIANT, &o, &r, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, "no experiment 999"));
    int64_t twice[] = {ea, ea};
    assert_int_equal(
        creport_load_many(c->db, twice, 2, CREPORT_LABEL_VARIANT, &o, &r, err, sizeof(err)),
        -EINVAL);
    /* The same through the store's path, as netab report opens it. */
    assert_int_equal(
        creport_open(c->path, 0, ids, 3, CREPORT_LABEL_VARIANT, &o, &r, err, sizeof(err)), 0);
    ASSERT_EQ(r->nvariants, 3);
    creport_free(r);
    assert_int_equal(
        creport_open(c->path, 999, NULL, 0, CREPORT_LABEL_VARIANT, &o, &r, err, sizeof(err)),
        -ENOENT);
    assert_null(r);
    free(imp);
}

/* --experiments LIST: ids from 1, at most max, at least one. */
static void test_ids_parse(void **state)
{
    (void)state;
    int64_t ids[3];
    size_t n = 0;
    char err[512];
    assert_int_equal(creport_ids_parse("3,5,7", ids, 3, &n, err, sizeof(err)), 0);
    ASSERT_EQ(n, 3);
    ASSERT_EQ(ids[0], 3);
    ASSERT_EQ(ids[2], 7);
    assert_int_equal(creport_ids_parse("1,2,3,4", ids, 3, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--experiments: at most 3 experiments");
    assert_int_equal(creport_ids_parse(",", ids, 3, &n, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--experiments: no experiment id in ','");
    assert_int_equal(creport_ids_parse("2,0", ids, 3, &n, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "--experiments"));
}

/*
 * --label kernel, one release and two builds (a kernel bisect without
 * CONFIG_LOCALVERSION_AUTO): the build IDs tell the groups apart; once a
 * run of that release has no build ID, "#ID" does for all of them.
 */
static void test_kernel_builds(void **state)
{
    struct ctx *c = *state;
    char err[512];
    char *a[] = {doc(1e9, 1, "{}", "6.1"), doc(1e9, 1, "{}", "6.1")};
    char *b[] = {doc(2e9, 1, "{}", "6.1"), doc(2e9, 1, "{}", "6.1")};
    char *n[] = {doc(3e9, 1, "{}", "6.1")};
    int64_t ea = experiment_env(c->db, "good", "k", a, 2,
                                "{\"kernel\": \"6.1\", \"identity\": {\"build_id\": "
                                "\"aaaaaaaaaaaa1111\"}}");
    int64_t eb = experiment_env(c->db, "bad", "k", b, 2,
                                "{\"kernel\": \"6.1\", \"identity\": {\"build_id\": "
                                "\"bbbbbbbbbbbb2222\"}}");
    int64_t en = experiment(c->db, "old", "k", n, 1);
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    int64_t two[] = {ea, eb};
    assert_int_equal(
        creport_load_many(c->db, two, 2, CREPORT_LABEL_KERNEL, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r->nvariants, 2);
    assert_string_equal(r->variants[0], "6.1@aaaaaaaaaaaa");
    assert_string_equal(r->variants[1], "6.1@bbbbbbbbbbbb");
    ASSERT_EQ(at(r, "6.1@bbbbbbbbbbbb", "throughput")->median, 2000);
    creport_free(r);
    int64_t three[] = {ea, eb, en};
    assert_int_equal(
        creport_load_many(c->db, three, 3, CREPORT_LABEL_KERNEL, &o, &r, err, sizeof(err)), 0);
    char want[3][32];
    snprintf(want[0], sizeof(want[0]), "6.1#%lld", (long long)ea);
    snprintf(want[1], sizeof(want[1]), "6.1#%lld", (long long)eb);
    snprintf(want[2], sizeof(want[2]), "6.1#%lld", (long long)en);
    assert_int_equal(r->nvariants, 3);
    for (size_t v = 0; v < 3; v++)
        assert_string_equal(r->variants[v], want[v]);
    creport_free(r);
}

static long count_runs(struct store *db)
{
    struct store_run *runs;
    size_t n;
    char err[512];
    assert_int_equal(store_run_list(db, STORE_ALL_RUNS, false, &runs, &n, err, sizeof(err)), 0);
    store_run_list_free(runs, n);
    return (long)n;
}

/* Import targets: names, ids, cells, refusals, and nothing left behind by a refused one. */
static void test_import_targets(void **state)
{
    struct ctx *c = *state;
    char err[512];
    char *d[] = {doc(1e9, 1, "{}", "6.1")};
    int64_t e = experiment(c->db, "mine", "base", d, 1);
    char *imp = doc(7e8, 1, "{}", "6.1");
    struct store_import_run ir[] = {{imp, NULL, "imported", NULL}};
    char id[24];
    snprintf(id, sizeof(id), "%lld", (long long)e);
    int64_t got;
    int seq;
    /* A variant the experiment file runs is netab's own. */
    struct store_import_target t = {.experiment = id, .variant = "base"};
    long before = count_runs(c->db);
    assert_int_equal(store_import(c->db, &t, ir, 1, &got, &seq, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "one of experiment"));
    t.experiment = "424242";
    assert_int_equal(store_import(c->db, &t, ir, 1, &got, &seq, err, sizeof(err)), -ENOENT);
    assert_int_equal(count_runs(c->db), before);
    /* Into the netab experiment as another variant: its cell, seq after its last. */
    t = (struct store_import_target){.experiment = "mine", .variant = "old"};
    assert_int_equal(store_import(c->db, &t, ir, 1, &got, &seq, err, sizeof(err)), 0);
    assert_int_equal(got, e);
    assert_int_equal(seq, 2);
    bool yes = true;
    assert_int_equal(store_experiment_is_import(c->db, e, &yes, err, sizeof(err)), 0);
    assert_false(yes);
    struct store_counts k;
    assert_int_equal(store_experiment_counts(c->db, e, &k, err, sizeof(err)), 0);
    assert_int_equal(k.planned, 2);
    assert_int_equal(k.pending, 0);
    /* A new import experiment is done and says what it is. */
    t = (struct store_import_target){.variant = "x", .cell = "streams=4"};
    assert_int_equal(store_import(c->db, &t, ir, 1, &got, &seq, err, sizeof(err)), 0);
    assert_int_equal(store_experiment_is_import(c->db, got, &yes, err, sizeof(err)), 0);
    assert_true(yes);
    struct store_run *runs;
    size_t n;
    assert_int_equal(store_run_list(c->db, got, false, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].cell, "streams=4");
    ASSERT_EQ(runs[0].receiver_bps, 7e8); /* through the store's one extraction */
    assert_int_equal(runs[0].status, STORE_RUN_OK);
    store_run_list_free(runs, n);
    /* Two experiments called "import" now: the name is ambiguous. */
    assert_int_equal(store_import(c->db, &t, ir, 1, &got, &seq, err, sizeof(err)), 0);
    t.experiment = "import";
    before = count_runs(c->db);
    assert_int_equal(store_import(c->db, &t, ir, 1, &got, &seq, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "2 experiments are called 'import'"));
    assert_int_equal(count_runs(c->db), before);
    free(imp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_parse),
        cmocka_unit_test_setup_teardown(test_path_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_builds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_several, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_targets, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
