/* Unit tests for the compare library: schedule, looks, word splitting, metrics, child runner. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "util/proc.h"
#include "compare/config.h"
#include "compare/metrics.h"
#include "campaign/campaign.h"
#include "compare/schedule.h"
#include "util/words.h"

/*
 * compare's rounds come from the campaign planner with one cell: rounds
 * first .. first + nrounds - 1 into out (seq follows from the round).
 */
static void schedule(uint64_t seed, unsigned nvar, unsigned first, unsigned nrounds,
                     unsigned warmup, unsigned seq0, struct campaign_slot *out)
{
    struct campaign_slot *s;
    size_t n;
    assert_int_equal(
        campaign_plan_rounds(nvar, 1, first, first + nrounds - 1, warmup, seed, &s, &n), 0);
    assert_int_equal(n, (size_t)nvar * nrounds);
    assert_int_equal(s[0].seq, seq0 + 1);
    memcpy(out, s, n * sizeof(*s));
    free(s);
}

static void test_every_variant_once_per_round(void **state)
{
    (void)state;
    enum { NV = 4, ROUNDS = 50 };
    struct campaign_slot s[NV * ROUNDS];
    schedule(7, NV, 1, ROUNDS, 0, 0, s);
    for (unsigned r = 0; r < ROUNDS; r++) {
        unsigned seen = 0;
        for (unsigned i = 0; i < NV; i++) {
            const struct campaign_slot *x = &s[r * NV + i];
            assert_int_equal(x->round, r + 1);
            assert_int_equal(x->seq, r * NV + i + 1);
            ASSERT_LT(x->variant, NV);
            seen |= 1u << x->variant;
        }
        assert_int_equal(seen, (1u << NV) - 1);
    }
}

static void test_rounds_are_shuffled(void **state)
{
    (void)state;
    /* Over 200 rounds of 3 variants every one of the 6 orders must appear. */
    enum { NV = 3, ROUNDS = 200 };
    struct campaign_slot s[NV * ROUNDS];
    schedule(1, NV, 1, ROUNDS, 0, 0, s);
    unsigned orders[6] = {0}, first[NV] = {0};
    for (unsigned r = 0; r < ROUNDS; r++) {
        unsigned a = s[r * NV].variant, b = s[r * NV + 1].variant;
        orders[a * 2 + (b > a ? b - 1 : b)]++;
        first[a]++;
    }
    for (int i = 0; i < 6; i++)
        ASSERT_GT(orders[i], 0);
    /* Each variant goes first about a third of the time, not always the same one. */
    for (int i = 0; i < NV; i++)
        assert_in_range(first[i], 40, 95);
}

/* Field by field: padding bytes of the slots are unspecified. */
static void assert_slots_equal(const struct campaign_slot *a, const struct campaign_slot *b,
                               size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].variant, b[i].variant);
        assert_int_equal(a[i].round, b[i].round);
        assert_int_equal(a[i].seq, b[i].seq);
        assert_int_equal(a[i].warmup, b[i].warmup);
    }
}

static void test_schedule_reproducible(void **state)
{
    (void)state;
    struct campaign_slot a[30], b[30], c[30];
    schedule(42, 3, 1, 10, 2, 0, a);
    schedule(42, 3, 1, 10, 2, 0, b);
    schedule(43, 3, 1, 10, 2, 0, c);
    assert_slots_equal(a, b, 30);
    int differ = 0;
    for (int i = 0; i < 30; i++)
        differ += a[i].variant != c[i].variant;
    ASSERT_GT(differ, 0);
    /* Adding rounds later (adaptive stopping) gives the same rounds as planning them at once. */
    struct campaign_slot d[30];
    schedule(42, 3, 1, 4, 2, 0, d);
    schedule(42, 3, 5, 6, 2, 12, d + 12);
    assert_slots_equal(a, d, 30);
}

static void test_warmups_first(void **state)
{
    (void)state;
    struct campaign_slot s[5 * 3];
    schedule(3, 3, 1, 5, 2, 0, s);
    for (int i = 0; i < 15; i++)
        assert_int_equal(s[i].warmup, i < 6);
}

static void test_looks(void **state)
{
    (void)state;
    unsigned l[16];
    size_t k = compare_looks(5, 50, l, 16);
    unsigned want[] = {5, 8, 12, 18, 27, 41, 50};
    assert_int_equal(k, 7);
    assert_memory_equal(l, want, sizeof(want));
    assert_int_equal(compare_looks(5, 5, l, 16), 1);
    assert_int_equal(l[0], 5);
    assert_int_equal(compare_looks(1, 3, l, 16), 3); /* 1, 2, 3: always at least one more */
    ASSERT_GT(compare_look_confidence(0.95, 5), 0.9899);
    ASSERT_LT(compare_look_confidence(0.95, 5), 0.9901);
    ASSERT_EQ(compare_look_confidence(0.95, 1), 0.95);
}

static void split_ok(const char *s, size_t n, ...)
{
    struct words w;
    char err[NB_ERRLEN];
    int rc = words_split(s, &w, err, sizeof(err));
    if (rc)
        fail_msg("split '%s': %s", s, err);
    assert_int_equal(w.n, n);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(w.w[i], va_arg(ap, const char *));
    va_end(ap);
    assert_null(w.w[n]);
    words_free(&w);
}

static void test_words(void **state)
{
    (void)state;
    split_ok("", 0);
    split_ok("   ", 0);
    split_ok("-l 128K", 2, "-l", "128K");
    split_ok("  -C\tbbr\n-N ", 3, "-C", "bbr", "-N");
    split_ok("-B 'a b' \"c d\"", 3, "-B", "a b", "c d");
    split_ok("x'y'\"z\"", 1, "xyz");
    split_ok("'' \"\"", 2, "", "");
    split_ok("a\\ b \"q\\\"x\" '$HOME' \"$HOME\"", 4, "a b", "q\"x", "$HOME", "$HOME");
    split_ok("$(reboot) `x`", 2, "$(reboot)", "`x`"); /* nothing is ever run or expanded */
    struct words w;
    char err[NB_ERRLEN];
    assert_int_equal(words_split("-l '128K", &w, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "unterminated '"));
    assert_int_equal(words_split("\"abc", &w, err, sizeof(err)), -EINVAL);
    assert_int_equal(words_split("abc\\", &w, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "trailing backslash"));
}

static void test_shell_quote(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(words_shell_quote("a b", buf, sizeof(buf)), 5);
    assert_string_equal(buf, "'a b'");
    words_shell_quote("it's", buf, sizeof(buf));
    assert_string_equal(buf, "'it'\\''s'");
    char small[4];
    assert_int_equal(words_shell_quote("abcdef", small, sizeof(small)), 8);
    assert_string_equal(small, "'ab");
}

static void test_metric_json(void **state)
{
    (void)state;
    double x = 0;
    char err[NB_ERRLEN];
    const char *doc =
        "{\"end\": {\"receiver\": {\"bits_per_second\": 1.5e9}, \"latency_us\": null},"
        " \"streams\": [{\"x\": 3}]}";
    assert_int_equal(compare_metric_from_json(doc, "end.receiver.bits_per_second", &x, err, 256),
                     0);
    ASSERT_EQ(x, 1.5e9);
    assert_int_equal(compare_metric_from_json(doc, "streams.0.x", &x, err, 256), 0);
    ASSERT_EQ(x, 3);
    assert_int_equal(compare_metric_from_json(doc, "end.latency_us.p50", &x, err, 256), -ENOENT);
    assert_int_equal(compare_metric_from_json(doc, "end.receiver", &x, err, 256), -EINVAL);
    assert_int_equal(compare_metric_from_json("not json", "a.b", &x, err, 256), -EINVAL);
    assert_non_null(compare_metric_find("throughput"));
    assert_true(compare_metric_find("local_demand")->lower_is_better);
    assert_false(compare_metric_find("end.receiver.bits_per_second")->lower_is_better);
    assert_null(compare_metric_find("bogus"));
}

static void test_metric_regex(void **state)
{
    (void)state;
    double x = 0;
    char err[NB_ERRLEN];
    assert_int_equal(compare_regex_check("value ([0-9]+)", err, sizeof(err)), 0);
    assert_int_equal(compare_regex_check("value [0-9]+", err, sizeof(err)), -EINVAL);
    assert_int_equal(compare_regex_check("(a)(b)", err, sizeof(err)), -EINVAL);
    assert_int_equal(compare_regex_check("(unclosed", err, sizeof(err)), -EINVAL);
    /* The last match wins: benchmarks print their summary last. */
    const char *out = "[ 1] 0-1 sec 9.1 Gbits/sec\n[ 1] 1-2 sec 9.3 Gbits/sec\n"
                      "[ 1] 0-2 sec 9.2 Gbits/sec\n";
    assert_int_equal(compare_metric_from_regex(out, "([0-9.]+) Gbits/sec", &x, err, sizeof(err)),
                     0);
    ASSERT_EQ(x, 9.2);
    assert_int_equal(compare_metric_from_regex(out, "([0-9.]+) Mbits", &x, err, sizeof(err)),
                     -ENOENT);
    assert_int_equal(compare_metric_from_regex("v abc", "v ([a-z]+)", &x, err, sizeof(err)),
                     -EINVAL);
}

static void test_child(void **state)
{
    (void)state;
    struct proc_result r;
    char err[NB_ERRLEN], why[600];
    assert_int_equal(proc_run_shell("echo out; echo err >&2; exit 3", 10, NULL, &r, err, 256), 0);
    assert_string_equal(r.out, "out\n");
    assert_string_equal(r.err_tail, "err\n");
    proc_describe_failure(&r, 10, why, sizeof(why));
    assert_string_equal(why, "exit status 3: err");
    proc_result_free(&r);
    /* A child that would run far too long is killed, with its own children. */
    assert_int_equal(proc_run_shell("sleep 30 & sleep 30", 0.3, NULL, &r, err, 256), 0);
    assert_true(r.timed_out);
    ASSERT_LT(r.seconds, 5);
    proc_describe_failure(&r, 0.3, why, sizeof(why));
    assert_non_null(strstr(why, "timed out"));
    proc_result_free(&r);
    /* A background grandchild that keeps the pipe open does not keep us waiting. */
    assert_int_equal(proc_run_shell("sleep 3 & echo done", 10, NULL, &r, err, 256), 0);
    assert_false(r.timed_out);
    ASSERT_LT(r.seconds, 2.5);
    assert_string_equal(r.out, "done\n");
    proc_result_free(&r);
    char *bad[] = {"/nonexistent/program", NULL};
    assert_int_not_equal(proc_run(bad, 1, NULL, &r, err, sizeof(err)), 0);
    proc_result_free(&r);
}

/* A variant's --opts, --setup, --teardown and --cmd: where they may stand, once each. */
static void test_variant_options(void **state)
{
    (void)state;
    struct compare_config cfg;
    compare_config_init(&cfg);
    const char *global = NULL;
    char err[NB_ERRLEN];
    assert_int_equal(compare_config_variant_option(&cfg, &global, "opts", "-t 1", err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "--opts '-t 1' must follow a --variant NAME");
    assert_int_equal(
        compare_config_variant_option(&cfg, &global, "cmd", "iperf3 -c x", err, sizeof(err)), 0);
    assert_string_equal(global, "iperf3 -c x");
    assert_int_equal(compare_config_variant_option(&cfg, &global, "cmd", "y", err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "--cmd given twice before the first --variant");
    assert_int_equal(compare_config_add_variant(&cfg, "a", err, sizeof(err)), 0);
    assert_int_equal(
        compare_config_variant_option(&cfg, &global, "setup", "true", err, sizeof(err)), 0);
    assert_string_equal(cfg.variants[0].setup, "true");
    assert_int_equal(
        compare_config_variant_option(&cfg, &global, "setup", "false", err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--setup given twice for variant 'a'");
    assert_int_equal(compare_config_variant_option(&cfg, &global, "cmd", "", err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "--cmd: the command must not be empty");
    assert_int_equal(
        compare_config_variant_option(&cfg, &global, "teardown", "rm -f x", err, sizeof(err)), 0);
    assert_string_equal(cfg.variants[0].teardown, "rm -f x");
    assert_null(cfg.variants[0].opts);
    compare_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_variant_once_per_round),
        cmocka_unit_test(test_variant_options),
        cmocka_unit_test(test_rounds_are_shuffled),
        cmocka_unit_test(test_schedule_reproducible),
        cmocka_unit_test(test_warmups_first),
        cmocka_unit_test(test_looks),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_shell_quote),
        cmocka_unit_test(test_metric_json),
        cmocka_unit_test(test_metric_regex),
        cmocka_unit_test(test_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
