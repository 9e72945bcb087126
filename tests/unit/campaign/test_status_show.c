/*
 * What `netab experiment run` and `resume` print (campaign/status_show.h):
 * the line of each run with its headline, and what is said at the end of
 * each way a campaign can end.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "campaign/status_show.h"
#include "store/store_import.h"
#include "netab_assert.h"

static void test_event_line(void **state)
{
    (void)state;
    struct campaign_event ev = {.seq = 4,
                                .round = 2,
                                .variant = "patched",
                                .cell = "test=tcp_stream",
                                .status = STORE_RUN_OK,
                                .error = "",
                                .receiver_bps = 9.41e9,
                                .transactions_s = NAN,
                                .done = 3,
                                .planned = 8};
    char line[512];
    campaign_event_line(&ev, line, sizeof(line));
    assert_string_equal(line, "run 3/8 seq 4 round 2 variant=patched cell=test=tcp_stream: ok "
                              "9.4 Gbit/s");
    ev.receiver_bps = 2.5e8;
    ev.warmup = true;
    campaign_event_line(&ev, line, sizeof(line));
    assert_string_equal(line, "run 3/8 seq 4 round 2 (warm-up) variant=patched "
                              "cell=test=tcp_stream: ok 250.0 Mbit/s");
    ev.transactions_s = 12345.4;
    campaign_event_headline(&ev, line, sizeof(line));
    assert_string_equal(line, "12345 trans/s");
    ev.status = STORE_RUN_FAILED;
    ev.error = "connection refused";
    campaign_event_headline(&ev, line, sizeof(line));
    assert_string_equal(line, "connection refused");
    ev.status = STORE_RUN_OK;
    ev.transactions_s = ev.receiver_bps = NAN;
    campaign_event_headline(&ev, line, sizeof(line));
    assert_string_equal(line, "no throughput figure");
}

/* The tail of the progress bar: the headline of a run that succeeded, else its status. */
static void test_event_last_text(void **state)
{
    (void)state;
    struct campaign_event ev = {.variant = "patched",
                                .cell = "test=tcp_rr",
                                .status = STORE_RUN_OK,
                                .error = "",
                                .receiver_bps = NAN,
                                .transactions_s = 41234.6};
    char line[512];
    campaign_event_last_text(&ev, line, sizeof(line));
    assert_string_equal(line, "last: patched test=tcp_rr 41235 trans/s");
    ev.status = STORE_RUN_FAILED;
    ev.error = "connection refused";
    campaign_event_last_text(&ev, line, sizeof(line));
    assert_string_equal(line, "last: patched test=tcp_rr failed");
    campaign_event_last_text(&ev, line, 12);
    assert_string_equal(line, "last: patch");
}

static char text[2048];

/* campaign_outcome_print() into text. */
static void outcome(struct store *db, int rc, enum campaign_outcome o, int signo,
                    const struct store_counts *c)
{
    memset(text, 0, sizeof(text));
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");
    assert_non_null(f);
    campaign_outcome_print(f, db, 5, rc, "the reason", o, signo, c);
    assert_int_equal(fclose(f), 0);
}

static void test_outcome(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-show-XXXXXX", path[64], err[NB_ERRLEN * 2];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.db", dir);
    struct store *db = NULL;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err)), 0);
    struct store_counts c = {.planned = 10, .ok = 6, .failed = 1};
    char want[512];
    outcome(db, 0, CAMPAIGN_COMPLETE, 0, &c);
    assert_string_equal(text, "experiment 5 complete: 10 planned, 6 ok, 1 failed\n");
    outcome(db, -EBUSY, CAMPAIGN_INTERRUPTED, 0, &c);
    assert_string_equal(text, "netab experiment: the reason\n");
    outcome(db, -EIO, CAMPAIGN_INTERRUPTED, 0, &c);
    snprintf(want, sizeof(want),
             "netab experiment: the reason\nnetab experiment: experiment 5 stopped; what is "
             "recorded is kept. Continue with: netab experiment resume --db %s 5\n",
             path);
    assert_string_equal(text, want);
    outcome(db, 0, CAMPAIGN_INTERRUPTED, SIGTERM, &c);
    snprintf(want, sizeof(want), "interrupted by signal %d (%s) after 7 of 10 runs", SIGTERM,
             strsignal(SIGTERM));
    assert_non_null(strstr(text, want));
    outcome(db, 0, CAMPAIGN_REBOOTING, 0, &c);
    assert_non_null(strstr(text, "the reboot command returned and the machine did not reboot"));

    /* Imported runs: nothing to run or resume, said; a planned experiment: something. */
    struct store_import_run run = {"{\"end\": {}}", NULL, "imported", NULL};
    struct store_import_target t = {.variant = "iperf3"};
    int64_t imported, planned;
    int seq;
    assert_int_equal(store_import(db, &t, &run, 1, &imported, &seq, err, sizeof(err)), 0);
    struct store_plan_entry plan[] = {{0, "a", NULL, false, 0}};
    assert_int_equal(
        store_experiment_create(db, "e", NULL, NULL, 1, plan, 1, &planned, err, sizeof(err)), 0);
    memset(text, 0, sizeof(text));
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");
    assert_non_null(f);
    assert_false(campaign_nothing_to_run(f, db, planned));
    assert_true(campaign_nothing_to_run(f, db, imported));
    assert_int_equal(fclose(f), 0);
    snprintf(want, sizeof(want),
             "netab experiment: experiment %lld holds imported runs (netab import); there is "
             "nothing to run or resume\n",
             (long long)imported);
    assert_string_equal(text, want);
    store_close(db);
    unlink(path);
    char side[80];
    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
    assert_int_equal(rmdir(dir), 0);
}

/* What run says once the experiment is recorded: runs planned, seed, store; a picked seed marked.
 */
static void test_created(void **state)
{
    (void)state;
    /* 2 variants x 2 cells x (3 runs + 1 warm-up) = 16 runs. */
    static const char y[] = "name: lines\n"
                            "runs: 3\n"
                            "warmup: 1\n"
                            "matrix:\n"
                            "  streams: [1, 4]\n"
                            "variants:\n"
                            "  - name: a\n"
                            "  - name: b\n";
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    assert_int_equal(experiment_load_buffer(y, strlen(y), &e, &errs), 0);
    memset(text, 0, sizeof(text));
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");
    assert_non_null(f);
    campaign_created_print(f, e, 7, 1234, "/tmp/s.db");
    e->has_seed = true;
    campaign_created_print(f, e, 8, 99, "/tmp/s.db");
    assert_int_equal(fclose(f), 0);
    assert_string_equal(text, "experiment 7 (lines): 16 runs planned, seed 1234 (picked; add "
                              "'seed: N' to the file to replay this order); store /tmp/s.db\n"
                              "experiment 8 (lines): 16 runs planned, seed 99; store /tmp/s.db\n");
    experiment_free(e);
    exp_errors_free(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_line),
        cmocka_unit_test(test_event_last_text),
        cmocka_unit_test(test_outcome),
        cmocka_unit_test(test_created),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
