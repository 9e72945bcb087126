/*
 * Unit tests for measure/cpu: /proc/stat parsing on fixed texts and the
 * utilisation arithmetic. Expected values are computed here from the raw
 * tick counts, independently of the code under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/cpu.h"

/* Trimmed from a real 4.x+ kernel: ten fields, per-CPU lines, more lines after. */
static const char stat_modern[] = "cpu  10132153 290696 3084719 46828483 16683 0 25195 7 11 13\n"
                                  "cpu0 1393280 32966 572056 13343292 6130 0 17875 0 0 0\n"
                                  "cpu1 1335980 30925 401163 13441487 3437 0 2575 0 0 0\n"
                                  "intr 1462898 0 0 0\n"
                                  "ctxt 23975486\n"
                                  "btime 1700000000\n";

static void test_parse_modern(void **state)
{
    (void)state;
    struct cpu_sample s;
    memset(&s, 0xab, sizeof(s));
    assert_int_equal(cpu_parse_proc_stat(stat_modern, &s), 0);
    assert_int_equal(s.user, 10132153);
    assert_int_equal(s.nice, 290696);
    assert_int_equal(s.system, 3084719);
    assert_int_equal(s.idle, 46828483);
    assert_int_equal(s.iowait, 16683);
    assert_int_equal(s.irq, 0);
    assert_int_equal(s.softirq, 25195);
    assert_int_equal(s.steal, 7);
    /* Fields that do not come from /proc/stat are left untouched. */
    assert_int_equal(s.mono_ns, 0xabababababababab);
}

static void test_parse_variants(void **state)
{
    (void)state;
    struct cpu_sample s;

    /* A 2.6.0-era kernel: seven fields, no steal. */
    memset(&s, 0xab, sizeof(s));
    assert_int_equal(cpu_parse_proc_stat("cpu  1 2 3 4 5 6 7\n", &s), 0);
    assert_int_equal(s.softirq, 7);
    assert_int_equal(s.steal, 0);
    /* A 2.4 kernel: only four fields. */
    assert_int_equal(cpu_parse_proc_stat("cpu 1 2 3 4\n", &s), 0);
    assert_int_equal(s.idle, 4);
    assert_int_equal(s.iowait, 0);
    /* The aggregate line need not come first, and need not end in a newline. */
    assert_int_equal(cpu_parse_proc_stat("ctxt 5\ncpu0 9 9 9 9\ncpu\t1 2 3 40 5 6 7 8 9", &s), 0);
    assert_int_equal(s.idle, 40);
    assert_int_equal(s.steal, 8);
    /* Counters past 2^32 must not be truncated. */
    assert_int_equal(cpu_parse_proc_stat("cpu  5000000000 0 0 1\n", &s), 0);
    assert_int_equal(s.user, 5000000000ULL);
}

static void test_parse_bad(void **state)
{
    (void)state;
    struct cpu_sample s;
    const char *bad[] = {
        "",
        "intr 1 2 3\n",
        "cpu0 1 2 3 4\n",  /* per-CPU line only */
        "cpu  1 2 3\n",    /* too few fields */
        "cpu  1 2 x 4\n",  /* not a number */
        "cpu  1 2 3 4x\n", /* number glued to junk */
        "cpu  -1 2 3 4\n",
        "cpu  99999999999999999999999 2 3 4\n",
        "xcpu  1 2 3 4\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (cpu_parse_proc_stat(bad[i], &s) != -EINVAL)
            fail_msg("accepted bad /proc/stat text: '%s'", bad[i]);
    assert_int_equal(cpu_parse_proc_stat(NULL, &s), -EINVAL);
}

static void assert_close(double got, double want)
{
    double tol = 1e-9 * (want < 0 ? -want : want) + 1e-9;
    double d = got - want;
    if (d > tol || d < -tol)
        fail_msg("got %.12g, expected %.12g", got, want);
}

static void test_usage_math(void **state)
{
    (void)state;
    struct cpu_sample a, b;
    struct cpu_usage u;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    /* Guest fields (the last two) would change nothing even if they were huge. */
    assert_int_equal(cpu_parse_proc_stat("cpu  1000 100 500 8000 200 50 150 0 7777 7777\n", &a), 0);
    assert_int_equal(cpu_parse_proc_stat("cpu  1600 140 800 9000 260 70 270 10 9999 9999\n", &b),
                     0);
    a.mono_ns = 5000000000ULL;
    b.mono_ns = 7500000000ULL; /* 2.5 s */
    a.online_cpus = b.online_cpus = 4;
    a.proc_user_us = 100000;
    a.proc_system_us = 50000;
    b.proc_user_us = 1100000;
    b.proc_system_us = 300000; /* 1,250,000 us of process CPU */

    cpu_usage_between(&a, &b, &u);

    /* Deltas: user 600, nice 40, system 300, idle 1000, iowait 60, irq 20, softirq 120, steal 10.
     */
    double all = 600 + 40 + 300 + 1000 + 60 + 20 + 120 + 10; /* 2150 */
    assert_close(u.total_pct, 100.0 * (600 + 40 + 300 + 20 + 120 + 10) / all);
    assert_close(u.user_pct, 100.0 * 640 / all);
    assert_close(u.system_pct, 100.0 * 300 / all);
    assert_close(u.softirq_pct, 100.0 * 120 / all);
    assert_close(u.irq_pct, 100.0 * 20 / all);
    assert_close(u.steal_pct, 100.0 * 10 / all);
    assert_close(u.seconds, 2.5);
    assert_int_equal(u.online_cpus, 4);
    double busy = 1090.0 / 2150.0 * 2.5 * 4 * 1e6;
    assert_close(u.busy_us, busy);
    assert_close(u.proc_us, 1250000);
    assert_close(u.proc_pct, 50.0); /* 1.25 s of CPU in a 2.5 s window */

    /* netperf service demand: busy microseconds per KiB. 1 GiB = 1048576 KiB. */
    assert_close(cpu_service_demand_us_per_kib(&u, 1ULL << 30), busy / 1048576.0);
    assert_close(cpu_service_demand_us_per_kib(&u, 0), 0);
    assert_close(cpu_service_demand_us_per_tran(&u, 1000), busy / 1000.0);
    assert_close(cpu_service_demand_us_per_tran(&u, 0), 0);
}

static void test_usage_degenerate(void **state)
{
    (void)state;
    struct cpu_sample a, b;
    struct cpu_usage u;

    /* Identical samples: no time passed, nothing divides by zero. */
    memset(&a, 0, sizeof(a));
    a.user = 10;
    a.idle = 10;
    a.online_cpus = 2;
    b = a;
    cpu_usage_between(&a, &b, &u);
    assert_close(u.total_pct, 0);
    assert_close(u.proc_pct, 0);
    assert_close(u.busy_us, 0);

    /* A counter that went backwards (CPU hot-unplug) counts as zero, not 2^64. */
    b.idle = 5;
    b.user = 20;
    b.mono_ns = 1000000000;
    cpu_usage_between(&a, &b, &u);
    assert_close(u.total_pct, 100);
    assert_close(u.busy_us, 1.0 * 2 * 1e6);
}

static void test_sample_take(void **state)
{
    (void)state;
    struct cpu_sample a, b;
    struct cpu_usage u;
    char err[NB_ERRLEN] = "";

    if (cpu_sample_take(&a, err, sizeof(err)))
        fail_msg("cpu_sample_take: %s", err);
    /* Burn a little CPU so that the process figures move. */
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < 20000000; i++)
        x += i;
    if (cpu_sample_take(&b, err, sizeof(err)))
        fail_msg("cpu_sample_take: %s", err);
    ASSERT_GE(a.online_cpus, 1);
    ASSERT_GT(b.mono_ns, a.mono_ns);
    ASSERT_GE(b.user + b.nice + b.system + b.idle, a.user + a.nice + a.system + a.idle);
    cpu_usage_between(&a, &b, &u);
    ASSERT_GE(u.total_pct, 0);
    ASSERT_LE(u.total_pct, 100);
    ASSERT_GT(u.seconds, 0);
    ASSERT_GE(u.proc_us, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_modern),     cmocka_unit_test(test_parse_variants),
        cmocka_unit_test(test_parse_bad),        cmocka_unit_test(test_usage_math),
        cmocka_unit_test(test_usage_degenerate), cmocka_unit_test(test_sample_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
