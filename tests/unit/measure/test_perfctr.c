/*
 * Unit tests for measure/perfctr: scaling of multiplexed readings, the
 * reasons given for refused counters, and a live set on this machine, whose
 * software counters must count and whose hardware counters either count or
 * say why not (a VM without a PMU).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/perfctr.h"

static void test_scale(void **state)
{
    (void)state;
    struct perfctr_value full = {1000, 50, 50}, half = {1000, 100, 50}, never = {0, 100, 0};
    assert_float_equal(perfctr_scale(&full), 1000, 1e-9);
    assert_float_equal(perfctr_scale(&half), 2000, 1e-9);
    assert_float_equal(perfctr_scale(&never), 0, 1e-9);
}

static void test_reasons(void **state)
{
    (void)state;
    char why[64];
    perfctr_reason(EACCES, true, -1, why, sizeof(why));
    ASSERT_STARTS_WITH(why, "perf_event_paranoid=");
    perfctr_reason(EACCES, false, 3, why, sizeof(why));
    assert_non_null(strstr(why, "system-wide"));
    perfctr_reason(ENOENT, true, -1, why, sizeof(why));
    assert_true(!strcmp(why, "no PMU in this virtual machine") ||
                !strcmp(why, "this CPU's PMU lacks the event"));
    perfctr_reason(EBADF, false, -1, why, sizeof(why));
    ASSERT_STARTS_WITH(why, "perf_event_open: ");
}

static void test_live(void **state)
{
    (void)state;
    struct perfctr_set s;
    perfctr_open(&s, -1);
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++)
        x += i * 0.5;
    struct perfctr_delta d;
    perfctr_read(&s, &d);
    /* Software counters exist on every kernel netab supports: they must count. */
    assert_true(d.valid[PERFCTR_TASK_CLOCK]);
    ASSERT_GT(d.value[PERFCTR_TASK_CLOCK], 1e5); /* the loop took well over 0.1 ms */
    assert_true(d.valid[PERFCTR_CONTEXT_SWITCHES]);
    assert_true(d.valid[PERFCTR_CPU_MIGRATIONS]);
    assert_true(d.valid[PERFCTR_PAGE_FAULTS]);
    for (int i = PERFCTR_CYCLES; i < PERFCTR_COUNT; i++) {
        if (d.valid[i]) {
            ASSERT_GT(d.running_frac[i], 0);
            ASSERT_LE(d.running_frac[i], 1);
        } else {
            ASSERT_GT(strlen(d.why[i]), 0);
        }
    }
    perfctr_close(&s);
    for (int i = 0; i < PERFCTR_COUNT; i++)
        assert_int_equal(s.fd[i], -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
