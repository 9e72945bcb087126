/* bisect_config_init(), bisect_config_check(): the defaults; how --runs and --max-runs combine. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bisect/bisect.h"
#include "netab_assert.h"

static void test_defaults(void **state)
{
    (void)state;
    struct bisect_config cfg;
    char err[NB_ERRLEN] = "";
    bisect_config_init(&cfg);
    ASSERT_EQ(cfg.runs, 5u);
    ASSERT_EQ(cfg.max_runs, 20u);
    ASSERT_EQ(cfg.noise, 0.01);
    ASSERT_EQ(cfg.confidence, 0.95);
    assert_string_equal(cfg.self, "/proc/self/exe");
    assert_null(cfg.db);
    assert_int_equal(bisect_config_check(&cfg, false, err, sizeof(err)), 0);
    ASSERT_EQ(cfg.max_runs, 20u);
}

/* --runs above the default --max-runs raises it; a given --max-runs stays or is refused. */
static void test_max_runs(void **state)
{
    (void)state;
    struct bisect_config cfg;
    char err[NB_ERRLEN] = "";
    bisect_config_init(&cfg);
    cfg.runs = 30;
    assert_int_equal(bisect_config_check(&cfg, false, err, sizeof(err)), 0);
    ASSERT_EQ(cfg.max_runs, 30u);
    cfg.max_runs = 40;
    assert_int_equal(bisect_config_check(&cfg, true, err, sizeof(err)), 0);
    ASSERT_EQ(cfg.max_runs, 40u);
    cfg.max_runs = 10;
    assert_int_equal(bisect_config_check(&cfg, true, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--max-runs 10 is below --runs 30");
    ASSERT_EQ(cfg.max_runs, 10u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_max_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
