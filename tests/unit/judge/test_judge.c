/*
 * The one judgement (judge/judge.h): each test kind's deciding figure, the
 * one spelling of a direction, the CPU-cost rule at and around its
 * threshold, its sentence and the median it is decided on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "netab_assert.h"
#include <math.h>
#include <string.h>

#include "judge/judge.h"
#include "stats/opts.h"

static void test_deciders(void **state)
{
    (void)state;
    static const struct {
        const char *test, *metric, *path;
    } want[] = {
        {"tcp_stream", "throughput", "end.receiver.bits_per_second"},
        {"udp_stream", "throughput", "end.receiver.bits_per_second"},
        {"tcp_rr", "transactions", "end.transactions_per_second"},
        {"udp_rr", "transactions", "end.transactions_per_second"},
        {"tcp_crr", "connections", "end.connections_per_second"},
        {"rrul", "rpm", "end.rrul.rpm"},
        {"iperf2", "throughput", "end.receiver.bits_per_second"},
        {NULL, "throughput", "end.receiver.bits_per_second"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct metric *m = judge_decider_of_test(want[i].test);
        assert_non_null(m);
        assert_string_equal(m->name, want[i].metric);
        assert_string_equal(m->path, want[i].path);
        /* Every deciding figure is one more is better. */
        assert_false(m->lower_is_better);
        assert_ptr_equal(m, judge_decider(metric_kind_of(want[i].test)));
    }
}

static void test_direction_spelling(void **state)
{
    (void)state;
    assert_string_equal(judge_direction(true), "lower_is_better");
    assert_string_equal(judge_direction(false), "higher_is_better");
    assert_string_equal(judge_direction_word(true), "lower");
    assert_string_equal(judge_direction_word(false), "higher");
}

static void test_cost_rule(void **state)
{
    (void)state;
    struct judge_cost k;
    /* Clean: the system-wide figure per KiB decides a stream. */
    judge_cost_choose(METRIC_TCP_STREAM, 10, true, true, &k);
    assert_string_equal(k.decides->name, "local_demand");
    assert_string_equal(k.system->name, "local_demand");
    assert_false(k.polluted);
    /* Exactly at the threshold counts as polluted: the process figure decides. */
    judge_cost_choose(METRIC_TCP_STREAM, JUDGE_POLLUTED_PCT, true, true, &k);
    assert_string_equal(k.decides->name, "local_process_demand");
    assert_true(k.polluted);
    judge_cost_choose(METRIC_TCP_STREAM, nextafter(JUDGE_POLLUTED_PCT, 0), true, true, &k);
    assert_string_equal(k.decides->name, "local_demand");
    /* Unknown pollution: not polluted. */
    judge_cost_choose(METRIC_TCP_STREAM, NAN, true, true, &k);
    assert_false(k.polluted);
    assert_string_equal(k.decides->name, "local_demand");
    /* rr and crr per transaction. */
    judge_cost_choose(METRIC_RR, 50, true, true, &k);
    assert_string_equal(k.decides->name, "local_process_demand_tran");
    assert_string_equal(k.system->name, "local_demand_tran");
    judge_cost_choose(METRIC_CRR, 0, true, true, &k);
    assert_string_equal(k.decides->name, "local_demand_tran");
    /* Polluted but no process figure: the system-wide one still decides, said polluted. */
    judge_cost_choose(METRIC_RR, 50, true, false, &k);
    assert_string_equal(k.decides->name, "local_demand_tran");
    assert_true(k.polluted);
    /* No system-wide figure: the process one; neither: none. */
    judge_cost_choose(METRIC_TCP_STREAM, 0, false, true, &k);
    assert_string_equal(k.decides->name, "local_process_demand");
    assert_null(k.system);
    judge_cost_choose(METRIC_TCP_STREAM, 0, false, false, &k);
    assert_null(k.decides);
}

static void test_cost_sentence(void **state)
{
    (void)state;
    struct judge_cost k;
    char b[256];
    judge_cost_choose(METRIC_TCP_STREAM, 40, true, true, &k);
    judge_cost_sentence(&k, "P", "S", b, sizeof(b));
    assert_string_equal(b, "decided on P; the system-wide S is polluted (other processes 40% of "
                           "busy CPU; threshold 25%)");
    judge_cost_choose(METRIC_TCP_STREAM, 12.4, true, true, &k);
    judge_cost_sentence(&k, "S", "S", b, sizeof(b));
    assert_string_equal(b, "decided on S (other processes 12% of busy CPU, below 25%)");
    judge_cost_choose(METRIC_TCP_STREAM, NAN, true, true, &k);
    judge_cost_sentence(&k, "S", "S", b, sizeof(b));
    assert_string_equal(b, "decided on S");
    judge_cost_choose(METRIC_TCP_STREAM, 0, false, false, &k);
    judge_cost_sentence(&k, "S", "S", b, sizeof(b));
    assert_string_equal(b, "");
}

/* netab stats' defaults (stats/, a leaf module) are the judgement's. */
static void test_stats_defaults(void **state)
{
    (void)state;
    struct stats_opts o;
    stats_opts_default(&o);
    ASSERT_EQ(o.noise, JUDGE_NOISE_DEFAULT);
    ASSERT_EQ(o.confidence, JUDGE_CONFIDENCE_DEFAULT);
}

static void test_median(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    ASSERT_EQ(judge_median(odd, 3), 3.0);
    ASSERT_EQ(judge_median(even, 4), 2.5);
    assert_true(isnan(judge_median(odd, 0)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deciders),  cmocka_unit_test(test_direction_spelling),
        cmocka_unit_test(test_cost_rule), cmocka_unit_test(test_cost_sentence),
        cmocka_unit_test(test_median),    cmocka_unit_test(test_stats_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
