/* Unit tests of experiment validation: every error, at its exact line and column. */
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
#include "netab_assert.h"

#include "experiment/experiment.h"

/* An expected error: position and a piece of its message. */
struct want {
    int line, col;
    const char *text;
};

/* Loads data/NAME, expects `rc` and exactly the errors in want[0..n), in order. */
static void expect_errors(const char *name, int rc, const struct want *want, size_t n)
{
    char path[512];
    struct exp_errors errs = {0};
    struct experiment *e = (struct experiment *)1;
    snprintf(path, sizeof(path), "%s/%s", EXP_DATA_DIR, name);
    int err = experiment_load(path, &e, &errs);
    for (size_t i = 0; i < errs.n; i++)
        print_message("%s:%d:%d: %s\n", name, errs.v[i].line, errs.v[i].col, errs.v[i].msg);
    assert_int_equal(err, rc);
    assert_null(e);
    assert_int_equal(errs.n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(errs.v[i].line, want[i].line);
        assert_int_equal(errs.v[i].col, want[i].col);
        if (!strstr(errs.v[i].msg, want[i].text))
            fail_msg("error %zu is '%s', wanted '%s'", i, errs.v[i].msg, want[i].text);
    }
    exp_errors_free(&errs);
}

#define EXPECT(name, ...)                                                                          \
    do {                                                                                           \
        const struct want w_[] = {__VA_ARGS__};                                                    \
        expect_errors(name, -EINVAL, w_, sizeof(w_) / sizeof(w_[0]));                              \
    } while (0)

static void test_unknown_top_key_and_duplicate(void **state)
{
    (void)state;
    EXPECT("bad_top.yaml", {3, 1, "unknown key 'rnus' in experiment (did you mean 'runs'?)"},
           {4, 1, "duplicate key 'runs' in experiment (first at line 2)"});
}

static void test_bad_layout(void **state)
{
    (void)state;
    /* An empty path is a syntax error; a missing file is found once the file has loaded. */
    EXPECT("bad_layout.yaml", {6, 13, "'layout' must be a non-empty string"});
    struct exp_errors errs = {0};
    struct experiment *e = (struct experiment *)1;
    const char *yaml = "name: x\nvariants:\n  - name: base\n    layout: layout/no-such.map\n";
    char path[] = "/tmp/netab-test-exp-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    assert_int_equal(experiment_load(path, &e, &errs), -EINVAL);
    unlink(path);
    assert_null(e);
    assert_int_equal(errs.n, 1);
    assert_int_equal(errs.v[0].line, 3);
    assert_non_null(
        strstr(errs.v[0].msg, "variant 'base': layout: cannot read /tmp/layout/no-such.map"));
    exp_errors_free(&errs);
}

static void test_unknown_test_key(void **state)
{
    (void)state;
    EXPECT("bad_test.yaml", {4, 3, "unknown key 'tiem' in test (did you mean 'time'?)"});
}

static void test_variant_errors(void **state)
{
    (void)state;
    EXPECT("bad_variant.yaml", {4, 5, "unknown key 'opt' in variant 1 (did you mean 'opts'?)"},
           {6, 11, "'cpus' must be between 1 and 4096, not 0"},
           {7, 11, "duplicate variant name 'a' (first at line 3)"});
}

static void test_matrix_errors(void **state)
{
    (void)state;
    EXPECT("bad_matrix.yaml", {5, 3, "unknown key 'stream' in matrix (did you mean 'streams'?)"},
           {6, 11, "matrix axis 'length' is empty"},
           {7, 9, "matrix axis 'test' must be a list of values, not 'tcp_stream'"},
           {8, 13, "'reverse' must be true or false, not 'yes'"});
}

static void test_type_errors_all_reported(void **state)
{
    (void)state;
    EXPECT("bad_types.yaml", {1, 7, "'name' must be a non-empty string, not a list"},
           {2, 7, "'runs' must be an integer, not the string 'five'"},
           {3, 9, "'warmup' must be an integer, not '1.5'"}, {4, 7, "'seed' must be between"},
           {5, 11, "'cooldown' must be a number of seconds, not 'soon'"},
           {6, 10, "'prepare' must be a command or a mapping {run: CMD, on: dut|local}"},
           {6, 11, "unknown key 'a' in hook 'prepare'"},
           {7, 8, "'reset' must be 'none' or 'reboot', not 'sometimes'"});
}

static void test_range_errors(void **state)
{
    (void)state;
    EXPECT("bad_ranges.yaml", {2, 7, "'runs' must be between 1 and 100000, not 0"},
           {3, 9, "'warmup' must be between 0 and 100000, not 100001"},
           {4, 11, "'cooldown' must be between 0 and 86400 seconds, not -1"},
           {7, 19, "'max_freq_mhz' must be between 1 and 100000, not 99999999999999999999"},
           {9, 12, "test: 'streams': '0' is out of range"},
           {10, 9, "test: 'time' must be between 0.1 and"});
}

/* The dut: section, hooks with on:, boot/expect and order:, each error at its position. */
static void test_dut_errors(void **state)
{
    (void)state;
    EXPECT(
        "bad_dut.yaml", {2, 8, "'order' must be 'randomized' or 'blocked', not 'sideways'"},
        {4, 8, "dut: 'ssh' must be an OpenSSH destination such as root@192.0.2.1"},
        {5, 13, "dut: 'ssh_opts': unterminated ' quote"},
        {6, 17, "'start_server' must be true or false, not 'yes'"},
        {7, 17, "dut: 'boot_timeout' must be a number of seconds from 1 to 86400, not '0'"},
        {8, 9, "'port' must be between 1 and 65535, not 0"}, {9, 3, "unknown key 'bogus' in dut"},
        {10, 23, "hook 'prepare': 'on' must be 'dut' or 'local', not 'elsewhere'"},
        {13, 5, "variant 'a' has no 'boot', which reset: reboot with a 'dut' runs before"},
        {14, 13, "'expect': '((' is not a valid regular expression: missing closing parenthesis"},
        {17, 12, "'setup' must be a command or a mapping {run: CMD, on: dut|local}"},
        {20, 13,
         "'expect': '((a{1,100}){1,100}){1,100}' is not a valid regular expression: regular "
         "expression is too large"});
    EXPECT("bad_nodut.yaml", {3, 5, "variant 'a' has 'boot', which needs a 'dut' section"});
}

/* Several DUTs: every wrong reference, name and combination, each at its place. */
static void test_duts_errors(void **state)
{
    (void)state;
    EXPECT("bad_duts.yaml", {4, 3, "duts 'p3' and 'pe' are the same machine (ssh root@198.18.1.2"},
           {4, 3, "the experiment has both 'dut' (line 2) and 'duts'"},
           {6, 5, "duplicate DUT name 'p3' (DUT 1 has it too)"},
           {8, 5, "duts entry 3 has no 'name'"},
           {9, 11, "DUT name 'a b' may only use letters, digits"},
           {13, 11, "'parallel' must be 'duts' (several DUTs' runs at the same time) or 'none'"},
           {16, 10, "variant 'a': unknown DUT 'p4' (the experiment's DUTs: p3, pe)"},
           {17, 5, "variant 'b' has 'dut' and the matrix has an axis 'dut'"},
           {20, 13, "matrix axis 'dut': duplicate value 'p3'"},
           {20, 17, "matrix axis 'dut': unknown DUT 'x486' (the experiment's DUTs: p3, pe)"});
    EXPECT("bad_duts_refs.yaml",
           {2, 11,
            "parallel: duts runs several DUTs' runs at the same time, but the runs of "
            "this experiment use 1 DUT"},
           {7, 5,
            "variant 'a' sets this machine's CPUs (cpus, max_freq_mhz), which parallel: "
            "duts would change"},
           {10, 5, "variant 'b' has no 'dut' and the matrix no axis 'dut': with several DUTs"});
    EXPECT("bad_duts_none.yaml", {4, 10, "variant 'a': 'dut: p3' needs a 'duts' section"},
           {6, 9, "matrix axis 'dut': 'dut: p3' needs a 'duts' section"});
}

static void test_syntax_error(void **state)
{
    (void)state;
    EXPECT("bad_syntax.yaml", {4, 2, "YAML syntax error: did not find expected key"});
}

static void test_missing_keys(void **state)
{
    (void)state;
    EXPECT("missing.yaml", {1, 1, "experiment has no 'name'"},
           {1, 1, "experiment has no 'variants'"});
    EXPECT("no_variants.yaml", {2, 11, "'variants' is empty"});
}

static void test_unreadable(void **state)
{
    (void)state;
    const struct want w[] = {{0, 0, "cannot open: No such file or directory"}};
    expect_errors("does-not-exist.yaml", -ENOENT, w, 1);
}

/* Byte strings that must give errors, never a crash or a leak. */
static void test_garbage_inputs(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "",
        "\xff\xfe\x00\x01garbage",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "name: x\nvariants: &v [*v]\n",
        "a: &a [x, x]\nb: &b [*a, *a]\nname: *b\nvariants: *b\n",
        "name: x\nvariants:\n - name: a\nmatrix: {}\n",
        "name: x\nvariants:\n - name: a\n---\nname: y\n",
        "? [a]\n: b\n",
        "name: \"a\\0b\"\nvariants:\n - name: a\n",
        "name: x\nvariants:\n - name: a\n   opts: \"x\\\\\"\n",
        "!!binary name: x\n",
        "name: x\nruns: 1e3\nvariants: [{name: a}]\ntest: {time: nan, bitrate: -1}\n",
    };
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        struct exp_errors errs = {0};
        struct experiment *e;
        size_t len = i == 1 ? 11 : strlen(inputs[i]); /* input 1 holds NUL bytes */
        int err = experiment_load_buffer(inputs[i], len, &e, &errs);
        if (err != -EINVAL || errs.n == 0)
            fail_msg("input %zu: result %d with %zu errors", i, err, errs.n);
        assert_null(e);
        exp_errors_free(&errs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_top_key_and_duplicate),
        cmocka_unit_test(test_unknown_test_key),
        cmocka_unit_test(test_bad_layout),
        cmocka_unit_test(test_variant_errors),
        cmocka_unit_test(test_matrix_errors),
        cmocka_unit_test(test_type_errors_all_reported),
        cmocka_unit_test(test_range_errors),
        cmocka_unit_test(test_dut_errors),
        cmocka_unit_test(test_duts_errors),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_missing_keys),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_garbage_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
