/*
 * --hot-from EXPERIMENT[:VARIANT] (layout_hot_stored.c): the hot set from
 * the profiles of a stored experiment's ok runs, of one variant or all;
 * a reference that is neither a file nor an experiment, and an experiment
 * without such runs, are refused with a sentence naming the reference.
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

#include "layout/layout_hot.h"
#include "store/store.h"
#include "store/store_import.h"

static char dir[] = "/tmp/netab-hotstored-XXXXXX";
static char db_path[64];
static char ref_all[32], ref_a[40], ref_b[40];

/* A run document whose local profile counts sym's samples and 1 of "cold". */
static void run_doc(char *b, size_t n, const char *sym, int samples)
{
    snprintf(b, n,
             "{\"end\": {\"profile\": {\"local\": {\"samples\": %d, \"functions\": "
             "[{\"symbol\": \"%s\", \"samples\": %d}, {\"symbol\": \"cold\", \"samples\": 1}]}}}}",
             samples + 1, sym, samples);
}

/* One experiment with variant a (tcp_sendmsg hot) and variant b (ip_rcv hot). */
static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(db_path, sizeof(db_path), "%s/s.db", dir);
    char err[NB_ERRLEN * 2], a[256], b[256];
    struct store *db = NULL;
    if (store_open(db_path, STORE_OPEN_CREATE, &db, err, sizeof(err)))
        return -1;
    run_doc(a, sizeof(a), "tcp_sendmsg", 999);
    run_doc(b, sizeof(b), "ip_rcv", 999);
    struct store_import_run ra = {a, NULL, "a", NULL}, rb = {b, NULL, "b", NULL};
    struct store_import_target t = {.variant = "a"};
    int64_t id = 0;
    int rc = store_import(db, &t, &ra, 1, &id, NULL, err, sizeof(err));
    char ids[24];
    snprintf(ids, sizeof(ids), "%lld", (long long)id);
    t = (struct store_import_target){.experiment = ids, .variant = "b"};
    if (!rc)
        rc = store_import(db, &t, &rb, 1, NULL, NULL, err, sizeof(err));
    store_close(db);
    snprintf(ref_all, sizeof(ref_all), "%lld", (long long)id);
    snprintf(ref_a, sizeof(ref_a), "%lld:a", (long long)id);
    snprintf(ref_b, sizeof(ref_b), "%lld:b", (long long)id);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

static void test_experiment_variant(void **state)
{
    (void)state;
    char err[NB_ERRLEN * 2] = "";
    struct layout_hot hot = {0};
    assert_int_equal(layout_hot_from(ref_a, db_path, LAYOUT_HOT_MIN_SHARE, &hot, err, sizeof(err)),
                     0);
    ASSERT_EQ(hot.kind, LAYOUT_HOT_PROFILE);
    ASSERT_EQ(hot.nexact, 1);
    assert_string_equal(hot.exact[0], "tcp_sendmsg");
    layout_hot_free(&hot);
}

/* Every variant's runs: both hot functions; "cold" (0.1%) is under the share. */
static void test_experiment_all_variants(void **state)
{
    (void)state;
    char err[NB_ERRLEN * 2] = "";
    struct layout_hot hot = {0};
    assert_int_equal(
        layout_hot_from(ref_all, db_path, LAYOUT_HOT_MIN_SHARE, &hot, err, sizeof(err)), 0);
    ASSERT_EQ(hot.nexact, 2);
    assert_string_equal(hot.exact[0], "ip_rcv");
    assert_string_equal(hot.exact[1], "tcp_sendmsg");
    layout_hot_free(&hot);
}

static void test_refused(void **state)
{
    (void)state;
    char err[NB_ERRLEN * 2] = "", want[128];
    struct layout_hot hot = {0};
    ASSERT_EQ(layout_hot_from("no-such-file", db_path, 0.5, &hot, err, sizeof(err)), -EINVAL);
    assert_string_equal(err,
                        "--hot-from: 'no-such-file' is neither a file nor EXPERIMENT[:VARIANT]");
    char ref[48];
    snprintf(ref, sizeof(ref), "%s:c", ref_all);
    ASSERT_EQ(layout_hot_from(ref, db_path, 0.5, &hot, err, sizeof(err)), -ENODATA);
    snprintf(want, sizeof(want), "--hot-from %s: ", ref);
    ASSERT_STARTS_WITH(err, want);
    layout_hot_free(&hot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_experiment_variant),
        cmocka_unit_test(test_experiment_all_variants),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
