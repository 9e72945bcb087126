/*
 * The runners table (store_runner.h, schema 4) and the newest run row:
 * begin, heartbeat, end; the newest runner of an experiment; a vanished
 * runner's row closed at resume keeps its last heartbeat; the newest run
 * row with its status and error; a read-only store refuses the writes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "netab_assert.h"

#include "store/store.h"
#include "store/store_runner.h"

static char dir[] = "/tmp/netab-runner-XXXXXX";
static char path[256];

static const struct store_plan_entry plan[] = {
    {1, "a", "default", false, 1},
    {2, "b", "default", false, 1},
};

static struct store *open_db(unsigned flags)
{
    struct store *s = NULL;
    char err[512];
    if (store_open(path, flags, &s, err, sizeof(err)))
        fail_msg("store_open: %s", err);
    return s;
}

static void runners_and_last_run(void **state)
{
    (void)state;
    char err[512];
    int64_t eid, r1, r2, run;
    bool found = true;
    struct store *s = open_db(STORE_OPEN_CREATE);
    assert_int_equal(store_experiment_create(s, "e", NULL, NULL, 1, plan, 2, &eid, err, 512), 0);
    struct store_runner r;
    struct store_last_run l;
    /* Nothing yet: no runner, no run. */
    assert_int_equal(store_runner_last(s, eid, &r, &found, err, sizeof(err)), 0);
    assert_false(found);
    assert_int_equal(store_last_run_get(s, eid, &l, &found, err, sizeof(err)), 0);
    assert_false(found);

    /* A runner that vanished mid-run: its row has no end, its run stays 'running'. */
    assert_int_equal(store_runner_begin(s, eid, 4242, "hostA", "boot-1", &r1, err, 512), 0);
    assert_int_equal(store_runner_beat(s, r1, err, sizeof(err)), 0);
    assert_int_equal(store_run_begin(s, eid, 1, "a", "default", NULL, NULL, &run, err, 512), 0);
    assert_int_equal(store_runner_last(s, eid, &r, &found, err, sizeof(err)), 0);
    assert_true(found);
    assert_int_equal(r.id, r1);
    assert_int_equal(r.pid, 4242);
    assert_string_equal(r.host, "hostA");
    assert_string_equal(r.boot_id, "boot-1");
    assert_null(r.ended);
    assert_null(r.end_reason);
    char *beat = strdup(r.heartbeat);
    store_runner_free(&r);
    assert_int_equal(store_last_run_get(s, eid, &l, &found, err, sizeof(err)), 0);
    assert_true(found);
    assert_int_equal(l.run_id, run);
    assert_int_equal(l.seq, 1);
    assert_int_equal(l.status, STORE_RUN_RUNNING);
    assert_string_equal(l.variant, "a");
    store_last_run_free(&l);

    /* Resume: the run is marked with why, the old runner closed, keeping its heartbeat. */
    usleep(5000); /* a later clock reading for ended than for the heartbeat */
    int n = 0;
    assert_int_equal(store_mark_interrupted(s, eid, "runner vanished", &n, err, 512), 0);
    assert_int_equal(n, 1);
    assert_int_equal(store_runner_end(s, r1, "vanished (found at resume)", err, 512), 0);
    assert_int_equal(store_runner_last(s, eid, &r, &found, err, sizeof(err)), 0);
    assert_int_equal(r.id, r1);
    assert_string_equal(r.heartbeat, beat); /* when it was last known alive, not when found */
    assert_non_null(r.ended);
    ASSERT_GT(strcmp(r.ended, beat), 0);
    assert_string_equal(r.end_reason, "vanished (found at resume)");
    store_runner_free(&r);
    assert_int_equal(store_runner_begin(s, eid, 4343, "hostA", NULL, &r2, err, 512), 0);
    assert_int_equal(store_last_run_get(s, eid, &l, &found, err, sizeof(err)), 0);
    assert_int_equal(l.status, STORE_RUN_INTERRUPTED);
    assert_string_equal(l.error, "runner vanished");
    store_last_run_free(&l);
    assert_int_equal(store_runner_last(s, eid, &r, &found, err, sizeof(err)), 0);
    assert_int_equal(r.id, r2);
    assert_null(r.boot_id);
    store_runner_free(&r);
    store_close(s);

    /* A read-only store refuses to record an end; a writable one records it. */
    s = open_db(STORE_OPEN_READONLY);
    assert_int_equal(store_runner_end(s, r2, "complete", err, sizeof(err)), -EROFS);
    store_close(s);
    s = open_db(0);
    assert_int_equal(store_runner_end(s, r2, "complete", err, sizeof(err)), 0);
    assert_int_equal(store_runner_last(s, eid, &r, &found, err, sizeof(err)), 0);
    assert_string_equal(r.end_reason, "complete");
    assert_non_null(r.ended);
    store_runner_free(&r);
    store_close(s);
    free(beat);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof(path), "%s/r.db", dir);
    const struct CMUnitTest tests[] = {cmocka_unit_test(runners_and_last_run)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) ? 1 : rc;
}
