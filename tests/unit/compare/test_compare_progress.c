/*
 * What `netab compare` says while it runs (compare/progress.c): the plan,
 * a finished or failed run, an adaptive look; and the result prepared
 * with the configuration's statistics options.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare/progress.h"
#include "netab_assert.h"

static void test_lines(void **state)
{
    (void)state;
    struct compare_config cfg = {0};
    static const char *names[2] = {"old", "new"};
    cfg.nvariants = 2;
    for (size_t v = 0; v < 2; v++) {
        cfg.variants[v].name = names[v];
        cfg.variants[v].cmd = "true";
    }
    cfg.metric_regex = "v ([0-9.]+)";
    cfg.metric = "latency";
    cfg.lower_is_better = true;
    cfg.runs = 1;
    cfg.warmup = 2;
    cfg.seed = 42;
    cfg.noise = 0.02;
    cfg.confidence = 0.9;
    cfg.until_ci = 0.05;
    struct compare_campaign camp;
    struct compare_result res;
    char err[NB_ERRLEN], line[512];
    assert_int_equal(compare_campaign_init(&camp, &cfg, err, sizeof(err)), 0);
    compare_result_prepare(&res, &camp, &cfg);
    assert_ptr_equal(res.c, &camp);
    assert_true(res.adaptive);
    ASSERT_EQ(res.opts.noise, 0.02);
    ASSERT_EQ(res.opts.confidence, 0.9);
    ASSERT_EQ(res.opts.seed, 42);
    /* --cmd without -t: 600 s per run. */
    ASSERT_EQ(camp.timeout, 600);

    compare_plan_text(&camp, line, sizeof(line));
    assert_string_equal(line, "2 variants (baseline 'old'), 1 run each + 2 warm-up, interleaved, "
                              "seed 42, timeout 600 s per run");
    double v = 12.345678;
    struct compare_run r = {.slot = {.seq = 3, .round = 2, .variant = 1},
                            .status = COMPARE_RUN_OK,
                            .seconds = 1.25,
                            .values = &v};
    compare_run_text(&camp, &r, 8, line, sizeof(line));
    assert_string_equal(line, "run 3/8 round 2 new: latency 12.35 (1.2 s)");
    v = NAN;
    r.slot.warmup = true;
    compare_run_text(&camp, &r, 8, line, sizeof(line));
    assert_string_equal(line, "run 3/8 round 2 (warm-up) new: latency - (1.2 s)");
    r.status = COMPARE_RUN_FAILED;
    snprintf(r.error, sizeof(r.error), "exit status 3");
    compare_run_text(&camp, &r, 8, line, sizeof(line));
    assert_string_equal(line, "run 3/8 round 2 (warm-up) new: FAILED: exit status 3");
    res.worst_halfwidth = 0.0412;
    compare_look_text(&res, 2, 4, 10, true, line, sizeof(line));
    assert_string_equal(line, "look 2/4 after 10 rounds: widest interval of the relative change "
                              "+-4.12% (target +-5%): reached");
    /* The bar's tail names the last run; r is still round 2's warm-up of "new". */
    compare_last_text(&camp, &r, line, sizeof(line));
    assert_string_equal(line, "last: round 2 new (warm-up)");
    r.slot.warmup = false;
    r.slot.variant = 0;
    compare_last_text(&camp, &r, line, sizeof(line));
    assert_string_equal(line, "last: round 2 old");
    /* ETA at the mean pace: 3 of 8 runs in 30 s leave 5 runs of 10 s. */
    compare_eta_text(0, 0, 8, line, sizeof(line));
    assert_string_equal(line, "--:--");
    compare_eta_text(30, 3, 8, line, sizeof(line));
    assert_string_equal(line, "0:50");
    compare_eta_text(400, 4, 10, line, sizeof(line));
    assert_string_equal(line, "10:00");
    compare_eta_text(10, 8, 8, line, sizeof(line));
    assert_string_equal(line, "0:00");
    compare_campaign_free(&camp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
