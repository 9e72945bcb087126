/*
 * Unit tests for layout/layout_place: a hand-made table with known answers
 * (offsets within 64-byte lines, lines spanned, clones, .cold parts, names
 * that repeat).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "netab_assert.h"

#include "layout/layout_place.h"

static void test_place(void **state)
{
    (void)state;
    struct symtab t = {0};
    const struct {
        const char *name;
        uint64_t addr, size;
    } defs[] = {
        {"ip_rcv", 0x1030, 0x20},         /* offset 48, 48 + 32 bytes: 2 lines */
        {"tcp_ack.isra.0", 0x1100, 0x40}, /* offset 0, exactly 1 line */
        {"tcp_ack.cold", 0x9000, 0x10},   /* GCC's unlikely part, far away */
        {"dup", 0x2010, 0x8},             /* two static functions of one name */
        {"dup", 0x1f00, 0x8},
        {"nosize", 0x3004, 0},
    };
    for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
        assert_int_equal(
            symtab_add(&t, defs[i].name, strlen(defs[i].name), NULL, defs[i].addr, defs[i].size),
            0);
    symtab_sort(&t);
    struct layout_place p;
    assert_true(layout_place_find(&t, "ip_rcv", 64, &p));
    assert_string_equal(p.name, "ip_rcv");
    ASSERT_EQ(p.addr, 0x1030);
    ASSERT_EQ(p.offset, 48);
    ASSERT_EQ(p.lines, 2);
    ASSERT_EQ(p.count, 1);
    /* With 128-byte lines the same function fits one. */
    assert_true(layout_place_find(&t, "ip_rcv", 128, &p));
    ASSERT_EQ(p.lines, 1);
    /* A profile's clone name finds the build's other clone of it, never the .cold part. */
    assert_true(layout_place_find(&t, "tcp_ack.constprop.0", 64, &p));
    assert_string_equal(p.name, "tcp_ack.isra.0");
    ASSERT_EQ(p.offset, 0);
    ASSERT_EQ(p.lines, 1);
    assert_true(layout_place_find(&t, "tcp_ack", 64, &p));
    assert_string_equal(p.name, "tcp_ack.isra.0");
    ASSERT_EQ(p.count, 1);
    assert_true(layout_place_find(&t, "tcp_ack.cold", 64, &p));
    ASSERT_EQ(p.addr, 0x9000);
    /* Names that repeat: the lowest address, and how many there are. */
    assert_true(layout_place_find(&t, "dup", 64, &p));
    ASSERT_EQ(p.addr, 0x1f00);
    ASSERT_EQ(p.count, 2);
    /* An unknown size spans an unknown number of lines (0). */
    assert_true(layout_place_find(&t, "nosize", 64, &p));
    ASSERT_EQ(p.offset, 4);
    ASSERT_EQ(p.lines, 0);
    assert_false(layout_place_find(&t, "ip_rcv_core", 64, &p));
    assert_null(p.name);
    ASSERT_EQ(p.count, 0);
    symtab_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_place)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
