/*
 * Unit tests of the experiment file's shape limits (docs/experiment.md,
 * "Limits"): nesting depth, anchors, aliases expanded. Each refusal names
 * its limit at the exact line and column of the first value past it, and
 * a file just within a limit is not refused for it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netab_assert.h"

#include "experiment/experiment.h"

#define MIB (1024 * 1024)

/* A growing text buffer of at most MIB bytes. */
struct text {
    char *p;
    size_t len;
};

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, MIB + 1 - t->len, fmt, ap);
    va_end(ap);
    ASSERT_GE(n, 0);
    ASSERT_LE(t->len + (size_t)n, (size_t)MIB);
    t->len += (size_t)n;
}

/* Loads t; expects -EINVAL and returns the number of errors that contain `text`. */
static size_t errors_naming(const struct text *t, const char *text, int *line, int *col)
{
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    int rc = experiment_load_buffer(t->p, t->len, &e, &errs);
    size_t found = 0;
    for (size_t i = 0; i < errs.n; i++)
        if (strstr(errs.v[i].msg, text)) {
            found++;
            *line = errs.v[i].line;
            *col = errs.v[i].col;
        }
    if (rc != -EINVAL || errs.n == 0)
        fail_msg("expected -EINVAL with errors, got %d with %zu errors", rc, errs.n);
    assert_null(e);
    exp_errors_free(&errs);
    return found;
}

/* A 1 MiB file of opening brackets: refused at the 65th, in one error naming the limit. */
static void test_brackets_1mib(void **state)
{
    (void)state;
    struct text t = {malloc(MIB + 1), 0};
    put(&t, "name: x\nvariants: ");
    size_t head = t.len;
    memset(t.p + t.len, '[', MIB - t.len);
    t.len = MIB;
    int line = 0, col = 0;
    assert_int_equal(errors_naming(&t, "nested more than 64 deep", &line, &col), 1);
    assert_int_equal(line, 2);
    /* The root mapping is depth 1, so bracket 64 (after "variants: ") is depth 65. */
    assert_int_equal(col, (int)(head - strlen("name: x\n")) + 64);
    free(t.p);
}

/* Block mappings nested by indentation: 64 levels pass the limit, 65 do not. */
static void test_block_depth(void **state)
{
    (void)state;
    /* The root mapping is depth 1, the one holding k0 depth 2, the leaf's depth levels + 2. */
    for (int levels = 62; levels <= 63; levels++) {
        struct text t = {malloc(MIB + 1), 0};
        put(&t, "name: x\nvariants:\n");
        for (int d = 0; d < levels; d++)
            put(&t, "%*sk%d:\n", d + 1, "", d);
        put(&t, "%*sleaf: 1\n", levels + 1, "");
        int line = 0, col = 0;
        size_t n = errors_naming(&t, "nested more than 64 deep", &line, &col);
        if (levels == 62) {
            assert_int_equal(n, 0);
        } else {
            assert_int_equal(n, 1);
            /* The mapping of depth 65 starts at its key "leaf". */
            assert_int_equal(line, 3 + levels);
            assert_int_equal(col, levels + 2);
        }
        free(t.p);
    }
}

/* 256 anchors are allowed, the 257th is refused where it is. */
static void test_anchors(void **state)
{
    (void)state;
    for (int n = 256; n <= 257; n++) {
        struct text t = {malloc(MIB + 1), 0};
        put(&t, "name: x\nvariants:\n");
        for (int i = 0; i < n; i++)
            put(&t, "- &a%d x\n", i);
        int line = 0, col = 0;
        size_t found = errors_naming(&t, "more than 256 anchors", &line, &col);
        assert_int_equal(found, n == 257 ? 1 : 0);
        if (found) {
            assert_int_equal(line, 2 + 257);
            assert_int_equal(col, 3);
        }
        free(t.p);
    }
}

/* Aliases count as what they stand for: 10 levels of ten aliases are 10^10 values. */
static void test_alias_expansion(void **state)
{
    (void)state;
    struct text t = {malloc(MIB + 1), 0};
    put(&t, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 10; i++) {
        put(&t, "l%d: &l%d [", i, i);
        for (int k = 0; k < 10; k++)
            put(&t, "*l%d%s", i - 1, k < 9 ? ", " : "]\n");
    }
    put(&t, "name: x\nvariants: *l9\n");
    int line = 0, col = 0;
    assert_int_equal(errors_naming(&t, "more than 1000000 values", &line, &col), 1);
    /* l5 stands for 1,111,111 values (lN for (10^(N+2) - 1) / 9): the count passes the limit there.
     */
    assert_int_equal(line, 6);
    free(t.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brackets_1mib),
        cmocka_unit_test(test_block_depth),
        cmocka_unit_test(test_anchors),
        cmocka_unit_test(test_alias_expansion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
