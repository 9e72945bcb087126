/* Unit tests for the option parser of 'netab compare'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "capture.h"
#include "cli/cli.h"
#include "cli/cli_compare.h"

#define MAXARGS 32

/* Parses "compare" + the NULL-terminated arguments; stderr is captured into *errout (or dropped).
 */
static int parse_err(struct compare_config *cfg, char **errout, ...)
{
    static char *argv[MAXARGS + 1];
    int argc = 0;
    argv[argc++] = "compare";
    va_list ap;
    va_start(ap, errout);
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < MAXARGS;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    struct capture c;
    capture_begin(&c, 2);
    int rc = cli_compare_parse(argc, argv, cfg);
    char *text = capture_end(&c);
    if (errout)
        *errout = text;
    else
        free(text);
    return rc;
}

/* Expects a usage error whose message contains `want`. */
#define refused(want, ...)                                                                         \
    do {                                                                                           \
        struct compare_config cfg_;                                                                \
        char *err_;                                                                                \
        int rc_ = parse_err(&cfg_, &err_, __VA_ARGS__, NULL);                                      \
        if (rc_ != EXIT_USAGE || !strstr(err_, want))                                              \
            fail_msg("%s: rc %d, stderr '%s', wanted %d and '%s'", #__VA_ARGS__, rc_, err_,        \
                     EXIT_USAGE, want);                                                            \
        free(err_);                                                                                \
        compare_config_free(&cfg_);                                                                \
    } while (0)

static void test_variants_and_common(void **state)
{
    (void)state;
    struct compare_config cfg;
    assert_int_equal(parse_err(&cfg, NULL, "--runs", "3", "--seed", "1", "--variant", "big",
                               "--opts", "-l 128K", "--setup", "true", "--variant", "small",
                               "--opts", "-l 512", "--teardown", "echo t", "--", "-t", "1", "-c",
                               "198.18.0.2", NULL),
                     -1);
    assert_int_equal(cfg.nvariants, 2);
    assert_string_equal(cfg.variants[0].name, "big");
    assert_int_equal(cfg.variants[0].words.n, 2);
    assert_string_equal(cfg.variants[0].words.w[1], "128K");
    assert_string_equal(cfg.variants[0].setup, "true");
    assert_null(cfg.variants[0].teardown);
    assert_null(cfg.variants[1].setup);
    assert_string_equal(cfg.variants[1].teardown, "echo t");
    assert_int_equal(cfg.ncommon, 4);
    assert_string_equal(cfg.common[0], "-t");
    assert_string_equal(cfg.common[3], "198.18.0.2");
    assert_int_equal(cfg.runs, 3);
    assert_true(cfg.seed_given);
    assert_int_equal(cfg.seed, 1);
    assert_false(compare_uses_cmd(&cfg));
    compare_config_free(&cfg);
}

static void test_defaults(void **state)
{
    (void)state;
    struct compare_config cfg;
    assert_int_equal(parse_err(&cfg, NULL, "--variant", "a", "--variant", "b", NULL), -1);
    assert_int_equal(cfg.runs, 5);
    assert_int_equal(cfg.warmup, 0);
    assert_false(cfg.seed_given);
    assert_int_equal(cfg.ncommon, 0);
    assert_int_equal(cfg.variants[1].words.n, 0);
    ASSERT_EQ(cfg.noise, 0.01);
    ASSERT_EQ(cfg.confidence, 0.95);
    ASSERT_EQ(cfg.until_ci, 0);
    compare_config_free(&cfg);
    /* --until-ci without --max-runs gets a bound. */
    assert_int_equal(
        parse_err(&cfg, NULL, "--until-ci", "2", "--variant", "a", "--variant", "b", NULL), -1);
    ASSERT_EQ(cfg.until_ci, 0.02);
    assert_int_equal(cfg.max_runs, 50);
    compare_config_free(&cfg);
}

static void test_cmd_mode(void **state)
{
    (void)state;
    struct compare_config cfg;
    /* A --cmd before the first --variant is everyone's; a variant's own overrides it. */
    assert_int_equal(parse_err(&cfg, NULL, "--cmd", "iperf3 -J -c 198.18.0.2", "--metric-json",
                               "end.sum_received.bits_per_second", "--variant", "a", "--variant",
                               "b", "--cmd", "other", NULL),
                     -1);
    assert_true(compare_uses_cmd(&cfg));
    assert_string_equal(cfg.variants[0].cmd, "iperf3 -J -c 198.18.0.2");
    assert_string_equal(cfg.variants[1].cmd, "other");
    compare_config_free(&cfg);
    assert_int_equal(parse_err(&cfg, NULL, "--variant", "a", "--cmd", "echo value 1", "--variant",
                               "b", "--cmd", "echo value 2", "--metric-regex", "value ([0-9]+)",
                               "--lower-is-better", NULL),
                     -1);
    assert_true(cfg.lower_is_better);
    compare_config_free(&cfg);
}

static void test_errors(void **state)
{
    (void)state;
    refused("at least two variants", "--variant", "a");
    refused("at least two variants", "--runs", "3");
    refused("given twice", "--variant", "a", "--variant", "a");
    refused("must follow a --variant", "--opts", "-l 1K", "--variant", "a", "--variant", "b");
    refused("must follow a --variant", "--setup", "true", "--variant", "a", "--variant", "b");
    refused("--opts given twice", "--variant", "a", "--opts", "-N", "--opts", "-R", "--variant",
            "b");
    refused("unterminated", "--variant", "a", "--opts", "-B 'x", "--variant", "b");
    refused("--runs", "--runs", "1", "--variant", "a", "--variant", "b");
    refused("--runs", "--runs", "many", "--variant", "a", "--variant", "b");
    refused("--noise: 'x'", "--noise", "x", "--variant", "a", "--variant", "b");
    refused("--confidence", "--confidence", "100", "--variant", "a", "--variant", "b");
    refused("--until-ci", "--until-ci", "0", "--variant", "a", "--variant", "b");
    refused("--max-runs only applies", "--max-runs", "9", "--variant", "a", "--variant", "b");
    refused("less than --runs", "--runs", "10", "--until-ci", "1", "--max-runs", "5", "--variant",
            "a", "--variant", "b");
    refused("--seed: '-1'", "--seed", "-1", "--variant", "a", "--variant", "b");
    refused("--cooldown", "--cooldown", "soon", "--variant", "a", "--variant", "b");
    refused("--metric: 'speed'", "--metric", "speed", "--variant", "a", "--variant", "b");
    refused("direction of 'throughput' is known", "--metric", "throughput", "--lower-is-better",
            "--variant", "a", "--variant", "b");
    refused("unknown option '--frobnicate'", "--frobnicate", "--variant", "a", "--variant", "b");
    refused("unknown option '-t'", "--variant", "a", "--variant", "b", "-t", "1");
    refused("needs a value", "--variant", "a", "--variant", "b", "--opts");
    refused("unexpected argument 'stray'", "--variant", "a", "--variant", "b", "stray");
    refused("every variant has a --cmd or none", "--variant", "a", "--cmd", "x", "--variant", "b",
            "--metric-regex", "(1)");
    refused("exactly one of --metric-json", "--cmd", "x", "--variant", "a", "--variant", "b");
    refused("exactly one of --metric-json", "--cmd", "x", "--metric-json", "a.b", "--metric-regex",
            "(1)", "--variant", "a", "--variant", "b");
    refused("only applies to variants measured with --cmd", "--metric-regex", "(1)", "--variant",
            "a", "--variant", "b");
    refused("capture groups", "--cmd", "x", "--metric-regex", "[0-9]+", "--variant", "a",
            "--variant", "b");
    refused("--variant: the name must not be empty", "--variant", "", "--variant", "b");
    refused("--format: 'xml' is not text, json or ktap", "--format", "xml", "--variant", "a",
            "--variant", "b");
    refused("--json and --format ktap cannot be combined", "--json", "--format", "ktap",
            "--variant", "a", "--variant", "b");
    refused("--format given twice", "--format", "ktap", "--format", "json", "--variant", "a",
            "--variant", "b");
}

/* --format: ktap sets ktap, json is --json, text neither. */
static void test_format(void **state)
{
    (void)state;
    struct compare_config cfg;
    assert_int_equal(
        parse_err(&cfg, NULL, "--format", "ktap", "--variant", "a", "--variant", "b", NULL), -1);
    assert_true(cfg.ktap);
    assert_false(cfg.json);
    compare_config_free(&cfg);
    assert_int_equal(parse_err(&cfg, NULL, "--json", "--format", "json", "--variant", "a",
                               "--variant", "b", NULL),
                     -1);
    assert_true(cfg.json);
    assert_false(cfg.ktap);
    compare_config_free(&cfg);
    assert_int_equal(
        parse_err(&cfg, NULL, "--format", "text", "--variant", "a", "--variant", "b", NULL), -1);
    assert_false(cfg.json);
    assert_false(cfg.ktap);
    compare_config_free(&cfg);
}

static void test_help(void **state)
{
    (void)state;
    struct compare_config cfg;
    struct capture c;
    capture_begin(&c, 1);
    int rc = parse_err(&cfg, NULL, "--help", NULL);
    char *out = capture_end(&c);
    assert_int_equal(rc, EXIT_OK);
    assert_non_null(strstr(out, "usage: netab compare"));
    assert_non_null(strstr(out, "exit status"));
    free(out);
    compare_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_and_common),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_cmd_mode),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
