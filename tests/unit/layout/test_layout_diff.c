/* Unit tests for layout/layout_diff and the verdict: hand-made tables with known answers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "layout/layout_diff.h"
#include "layout/layout_report.h"

struct def {
    const char *name;
    uint64_t addr, size;
};

static void table(struct symtab *t, const struct def *d)
{
    memset(t, 0, sizeof(*t));
    for (; d->name; d++)
        assert_int_equal(symtab_add(t, d->name, strlen(d->name), NULL, d->addr, d->size), 0);
    symtab_sort(t);
}

static const struct layout_fn *fn(const struct layout_diff *d, const char *name, int nth)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->fns[i].name, name) && nth-- == 0)
            return &d->fns[i];
    fail_msg("no function %s", name);
    return NULL;
}

static void test_offsets_and_lines(void **state)
{
    (void)state;
    assert_int_equal(layout_offset(0x1000, 64), 0);
    assert_int_equal(layout_offset(0x1039, 64), 57);
    assert_int_equal(layout_offset(0x1039, 32), 25);
    assert_int_equal(layout_lines(0x1000, 64, 64), 1);
    assert_int_equal(layout_lines(0x1000, 65, 64), 2);
    assert_int_equal(layout_lines(0x103f, 2, 64), 2); /* straddles a line boundary */
    assert_int_equal(layout_lines(0x1039, 5, 64), 1);
    assert_int_equal(layout_lines(0x1000, 0, 64), 0);
    assert_int_equal(layout_lines(0x1020, 200, 128), 2);
}

static const struct def old_defs[] = {{"ip_rcv", 0x1000, 0x80}, {"ip_forward", 0x1080, 0x40},
                                      {"helper", 0x10c0, 0x10}, {"nf_nat_fn", 0x10d0, 0x30},
                                      {"gone", 0x1100, 0x20},   {"init", 0x1120, 0x8},
                                      {"init", 0x1200, 0x8},    {NULL, 0, 0}};
/* "early" pushes everything after it by 0x24; ip_forward grows by 8; gone is removed. */
static const struct def new_defs[] = {{"ip_rcv", 0x1000, 0x80},     {"early", 0x1080, 0x24},
                                      {"ip_forward", 0x10a4, 0x48}, {"helper", 0x10ec, 0x10},
                                      {"nf_nat_fn", 0x1100, 0x30},  {"init", 0x1130, 0x8},
                                      {"init", 0x1210, 0x10},       {NULL, 0, 0}};

static void test_diff(void **state)
{
    (void)state;
    struct symtab old, new;
    table(&old, old_defs);
    table(&new, new_defs);
    char err[NB_ERRLEN];
    struct layout_hot hot;
    assert_int_equal(layout_hot_parse_list("ip_*,nf_nat_fn,early,gone", &hot, err, sizeof(err)), 0);
    struct layout_diff d;
    assert_int_equal(layout_diff_build(&old, &new, &hot, 64, &d), 0);
    assert_int_equal(d.common, 6);
    assert_int_equal(d.added, 1);
    assert_int_equal(d.removed, 1);
    assert_int_equal(d.n, 8);

    const struct layout_fn *f = fn(&d, "ip_rcv", 0);
    assert_true(f->in_old && f->in_new && f->hot);
    assert_false(layout_fn_offset_changed(f, 64));
    f = fn(&d, "ip_forward", 0);
    assert_int_equal(f->old_addr, 0x1080);
    assert_int_equal(f->new_addr, 0x10a4);
    assert_true(layout_fn_offset_changed(f, 64)); /* 0 -> 36 */
    assert_true(layout_fn_lines_changed(f, 64));  /* 1 line -> 2 lines */
    assert_int_equal(layout_fn_delta(f), 8);
    f = fn(&d, "helper", 0);
    assert_false(f->hot);
    assert_true(layout_fn_offset_changed(f, 64)); /* 0 -> 44 */
    assert_false(layout_fn_lines_changed(f, 64));
    /* Duplicate names pair in address order: the second init grew by 8. */
    assert_int_equal(fn(&d, "init", 0)->new_addr, 0x1130);
    assert_int_equal(fn(&d, "init", 1)->old_addr, 0x1200);
    assert_int_equal(fn(&d, "init", 1)->new_addr, 0x1210);
    assert_int_equal(layout_fn_delta(fn(&d, "init", 1)), 8);
    f = fn(&d, "early", 0);
    assert_true(f->in_new && !f->in_old && f->hot);
    f = fn(&d, "gone", 0);
    assert_true(f->in_old && !f->in_new);

    /* Offsets mod 64: ip_rcv 0->0, ip_forward 0->36, helper 0->44, nf_nat_fn 16->0,
     * init 32->48, init 0->16: five of six moved, two of the three hot ones. */
    assert_int_equal(d.offset_changed, 5);
    assert_int_equal(d.hot_common, 3); /* ip_rcv, ip_forward, nf_nat_fn */
    assert_int_equal(d.hot_offset_changed, 2);
    assert_int_equal(d.hot_added, 1);
    assert_int_equal(d.hot_removed, 1);
    assert_string_equal(d.first->name, "ip_rcv");
    assert_string_equal(d.first_hot->name, "ip_rcv");

    /* bloat-o-meter: +0x24 early, +8 ip_forward, +8 init, -0x20 gone. */
    assert_int_equal(d.grow, 2);
    assert_int_equal(d.shrink, 0);
    assert_int_equal(d.up, 0x24 + 8 + 8);
    assert_int_equal(d.down, -0x20);
    assert_int_equal((int64_t)d.new_total - (int64_t)d.old_total, 0x24 + 8 + 8 - 0x20);
    assert_int_equal(d.ndelta, 4);
    assert_string_equal(d.fns[d.by_delta[0]].name, "early");
    assert_string_equal(d.fns[d.by_delta[1]].name, "gone");
    /* Equal |delta| sorts by name. */
    assert_string_equal(d.fns[d.by_delta[2]].name, "init");
    assert_string_equal(d.fns[d.by_delta[3]].name, "ip_forward");

    /* Order: common by old address, then added, then removed. */
    assert_string_equal(d.fns[0].name, "ip_rcv");
    assert_string_equal(d.fns[6].name, "early");
    assert_string_equal(d.fns[7].name, "gone");

    char verdict[512];
    layout_verdict(&d, &hot, verdict, sizeof(verdict));
    assert_non_null(strstr(verdict, "2 of 3 hot functions changed their offset within a "
                                    "64-byte line: a throughput change between these builds "
                                    "may come from layout alone."));
    assert_non_null(strstr(verdict, "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y"));

    layout_diff_free(&d);
    layout_hot_free(&hot);
    symtab_free(&old);
    symtab_free(&new);
}

static void test_verdict_kinds(void **state)
{
    (void)state;
    /* The same table shifted by a whole line: nothing moved within its line. */
    static const struct def a[] = {
        {"ip_rcv", 0x1000, 0x40}, {"udp_rcv", 0x1040, 0x20}, {NULL, 0, 0}};
    static const struct def b[] = {
        {"ip_rcv", 0x1040, 0x40}, {"udp_rcv", 0x1080, 0x20}, {NULL, 0, 0}};
    static const struct def c[] = {
        {"ip_rcv", 0x1040, 0x48}, {"udp_rcv", 0x1080, 0x20}, {NULL, 0, 0}};
    struct symtab ta, tb, tc;
    table(&ta, a);
    table(&tb, b);
    table(&tc, c);
    struct layout_hot hot;
    assert_int_equal(layout_hot_builtin(&hot), 0);
    struct layout_diff d;
    char v[512];
    assert_int_equal(layout_diff_build(&ta, &tb, &hot, 64, &d), 0);
    assert_int_equal(d.hot_common, 2);
    assert_int_equal(d.hot_offset_changed, 0);
    assert_int_equal(d.first_hot->new_addr - d.first_hot->old_addr, 0x40);
    layout_verdict(&d, &hot, v, sizeof(v));
    assert_non_null(strstr(v, "None of the 2 hot functions changed its offset"));
    assert_non_null(strstr(v, "unlikely cause"));
    layout_diff_free(&d);

    assert_int_equal(layout_diff_build(&ta, &tc, &hot, 64, &d), 0);
    assert_int_equal(d.hot_lines_changed, 1);
    layout_verdict(&d, &hot, v, sizeof(v));
    assert_non_null(strstr(v, "1 of them span a different number of lines"));
    layout_diff_free(&d);

    /* A 128-byte line: ip_rcv moved from 0 to 64 within it; the advice names that size. */
    assert_int_equal(layout_diff_build(&ta, &tb, &hot, 128, &d), 0);
    assert_int_equal(d.hot_offset_changed, 2);
    layout_verdict(&d, &hot, v, sizeof(v));
    assert_non_null(strstr(v, "128-byte line"));
    assert_non_null(strstr(v, "-falign-functions=128"));
    assert_null(strstr(v, "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B"));
    layout_diff_free(&d);

    /* No hot function in both builds: nothing to judge. */
    assert_int_equal(layout_diff_build(&ta, &tb, NULL, 64, &d), 0);
    assert_int_equal(d.hot_common, 0);
    assert_null(d.first_hot);
    layout_verdict(&d, NULL, v, sizeof(v));
    assert_non_null(strstr(v, "cannot be judged"));
    layout_diff_free(&d);

    assert_int_equal(layout_diff_build(&ta, &tb, &hot, 48, &d), -EINVAL);
    layout_hot_free(&hot);
    symtab_free(&ta);
    symtab_free(&tb);
    symtab_free(&tc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_and_lines),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_verdict_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
