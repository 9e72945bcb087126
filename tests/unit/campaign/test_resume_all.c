/*
 * Which experiments `netab experiment resume --all` resumes
 * (campaign/resume_all.h): every one not done, oldest first, until the
 * caller says stop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "campaign/resume_all.h"
#include "netab_assert.h"

struct seen {
    int64_t ids[8];
    char names[8][16];
    size_t n, stop_after; /* returns false on call stop_after (0: never) */
};

static bool record(void *arg, int64_t id, const char *name)
{
    struct seen *s = arg;
    ASSERT_LT(s->n, 8);
    s->ids[s->n] = id;
    snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
    s->n++;
    return s->n != s->stop_after;
}

static void test_resume_all(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-resume-XXXXXX", path[64], side[80], err[NB_ERRLEN * 2];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.db", dir);
    struct store *db = NULL;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err)), 0);
    struct seen s = {0};
    size_t resumed = 99;
    /* An empty store: nothing resumed. */
    assert_int_equal(campaign_resume_all(db, record, &s, &resumed, err, sizeof(err)), 0);
    assert_int_equal(resumed, 0);
    assert_int_equal(s.n, 0);
    /* Four experiments; the second is done, the third failed (it is resumed). */
    static const char *const names[] = {"a", "b", "c", "d"};
    static const char *const status[] = {"planned", "done", "failed", "running"};
    int64_t id[4];
    struct store_plan_entry plan[] = {{0, "v", NULL, false, 0}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(
            store_experiment_create(db, names[i], NULL, NULL, 1, plan, 1, &id[i], err, sizeof(err)),
            0);
        assert_int_equal(store_experiment_set_status(db, id[i], status[i], err, sizeof(err)), 0);
    }
    assert_int_equal(campaign_resume_all(db, record, &s, &resumed, err, sizeof(err)), 0);
    assert_int_equal(resumed, 3);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.ids[0], id[0]);
    assert_int_equal(s.ids[1], id[2]);
    assert_int_equal(s.ids[2], id[3]);
    assert_string_equal(s.names[0], "a");
    assert_string_equal(s.names[1], "c");
    assert_string_equal(s.names[2], "d");
    /* The caller stops after the second: the fourth is left alone. */
    s = (struct seen){.stop_after = 2};
    assert_int_equal(campaign_resume_all(db, record, &s, &resumed, err, sizeof(err)), 0);
    assert_int_equal(resumed, 2);
    assert_int_equal(s.ids[1], id[2]);
    store_close(db);
    unlink(path);
    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
