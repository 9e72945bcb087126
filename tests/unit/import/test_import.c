/*
 * Runs made outside a netab experiment recorded in the store (import.c):
 * other tools' runs become the runs of the variant given, in order, with
 * their documents, parameters and lines, ok or, with an error (a failure
 * word such as -EINTR), failed with that error; a `netab run --json`
 * document becomes a single run with the exit status it implies and the
 * line given or "imported from FILE"; a file that is not such a document
 * is refused naming it, and records nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/import.h"

static char dir[] = "/tmp/netab-import-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

/* A new store in the test's directory, named name. */
static struct store *open_store(const char *name)
{
    char path[96], err[NB_ERRLEN * 2] = "";
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    struct store *db = NULL;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err)), 0);
    return db;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    ASSERT_GT(fputs(text, f) + 1, 0);
    assert_int_equal(fclose(f), 0);
}

static void test_docs_in_order(void **state)
{
    (void)state;
    struct store *db = open_store("docs.db");
    char r0[] = "{\"end\": {\"sum_received\": {\"bits_per_second\": 1e9}}}",
         r1[] = "{\"end\": {\"sum_received\": {\"bits_per_second\": 2e9}}}",
         p0[] = "{\"import\": {\"tool\": \"iperf3\", \"index\": 1}}",
         p1[] = "{\"import\": {\"tool\": \"iperf3\", \"index\": 2}}", a0[] = "iperf3 a.json #1",
         a1[] = "iperf3 a.json #2", r2[] = "{\"error\": \"-EINTR\"}",
         p2[] = "{\"import\": {\"tool\": \"plain\", \"index\": 3}}", a2[] = "plain a.txt #3",
         e2[] = "-EINTR";
    struct input_doc v[] = {{r0, p0, a0, NULL}, {r1, p1, a1, NULL}, {r2, p2, a2, e2}};
    struct input_docs d = {v, 3, INPUT_ORDER_DEFAULT};
    struct store_import_target t = {.variant = "old"};
    char err[NB_ERRLEN * 2] = "";
    int64_t id = 0;
    int seq = -1;
    assert_int_equal(import_docs(db, &t, &d, &id, &seq, err, sizeof(err)), 0);
    ASSERT_GT(id, 0);
    struct store_run *runs = NULL;
    size_t n = 0;
    assert_int_equal(store_run_list(db, id, true, &runs, &n, err, sizeof(err)), 0);
    ASSERT_EQ(n, 3);
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ(runs[i].seq, seq + (int)i);
        /* A failed run is recorded as failed, with its word as the error, so reports count it. */
        ASSERT_EQ(runs[i].status, v[i].error ? STORE_RUN_FAILED : STORE_RUN_OK);
        ASSERT_EQ(runs[i].exit_code, v[i].error ? 1 : 0);
        if (v[i].error)
            assert_string_equal(runs[i].error, "-EINTR");
        else
            assert_null(runs[i].error);
        assert_string_equal(runs[i].variant, "old");
        assert_string_equal(runs[i].argv_text, v[i].argv_text);
        assert_string_equal(runs[i].result_json, v[i].result_json);
        assert_string_equal(runs[i].params_json, v[i].params_json);
    }
    store_run_list_free(runs, n);
    store_close(db);
}

static void test_run_doc(void **state)
{
    (void)state;
    struct store *db = open_store("run.db");
    char ok[96], failed[96], want[128], err[4200 + NB_ERRLEN * 2] = "";
    snprintf(ok, sizeof(ok), "%s/ok.json", dir);
    snprintf(failed, sizeof(failed), "%s/failed.json", dir);
    write_file(ok, "{\"end\": {}}\n");
    write_file(failed, "{\"error\": \"the peer went away\"}\n");
    int64_t id = 0;
    struct store_run r = {0};
    assert_int_equal(import_run_doc(db, ok, NULL, &id, err, sizeof(err)), 0);
    assert_int_equal(store_run_get(db, id, &r, err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "imported from %s", ok);
    assert_string_equal(r.argv_text, want);
    ASSERT_EQ(r.exit_code, 0);
    ASSERT_EQ(r.experiment_id, 0);
    store_run_free(&r);
    assert_int_equal(import_run_doc(db, failed, "netab run -c peer", &id, err, sizeof(err)), 0);
    assert_int_equal(store_run_get(db, id, &r, err, sizeof(err)), 0);
    assert_string_equal(r.argv_text, "netab run -c peer");
    ASSERT_EQ(r.exit_code, 1);
    store_run_free(&r);
    store_close(db);
}

/* Not a run document, or no file: refused, naming the file; nothing recorded. */
static void test_run_doc_refused(void **state)
{
    (void)state;
    struct store *db = open_store("bad.db");
    char bad[96], missing[96], want[128], err[4200 + NB_ERRLEN * 2] = "";
    snprintf(bad, sizeof(bad), "%s/bad.json", dir);
    snprintf(missing, sizeof(missing), "%s/missing.json", dir);
    write_file(bad, "[1, 2]\n");
    int64_t id = 0;
    ASSERT_EQ(import_run_doc(db, bad, NULL, &id, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "%s:", bad);
    ASSERT_STARTS_WITH(err, want);
    ASSERT_LT(import_run_doc(db, missing, NULL, &id, err, sizeof(err)), 0);
    assert_non_null(strstr(err, missing));
    struct store_run *runs = NULL;
    size_t n = 0;
    assert_int_equal(store_run_list(db, STORE_ALL_RUNS, false, &runs, &n, err, sizeof(err)), 0);
    ASSERT_EQ(n, 0);
    store_run_list_free(runs, n);
    store_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docs_in_order),
        cmocka_unit_test(test_run_doc),
        cmocka_unit_test(test_run_doc_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
