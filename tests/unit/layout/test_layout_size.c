/*
 * Unit tests for the size rule of layout/layout_diff (docs/layout.md,
 * "Sizes"): a symbol table's own sizes are sizes; a gap to the next symbol
 * (System.map, plain nm) is a size only up to the padding the next symbol's
 * alignment allows, and a gap that grew within that padding is no growth.
 * Also the hot patterns that match no function.
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

#include "layout/layout_diff.h"
#include "layout/layout_report.h"
#include "symbols/symtab.h"

static void parse_ok(const char *text, struct symtab *t)
{
    char err[NB_ERRLEN] = "";
    int rc = symtab_parse_map("test.map", text, strlen(text), t, err, sizeof(err));
    if (rc)
        fail_msg("symtab_parse_map failed (%d): %s", rc, err);
}

static const struct layout_fn *fn(const struct layout_diff *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->fns[i].name, name))
            return &d->fns[i];
    fail_msg("no function %s", name);
    return NULL;
}

/* The text report of d as a string (caller frees). */
static char *report_text(const struct layout_diff *d, const struct symtab *o,
                         const struct symtab *n, const struct layout_hot *hot)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    struct layout_input in = {"old.map", "new.map", o, n, hot};
    layout_report_text(f, d, &in, 10, false);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/*
 * Two builds where v7_dma_inv_range is the same code but the function after
 * it is aligned to 64 bytes in the new one: its gap grows from 32 to 64.
 */
static const char old_map[] = "00001000 T v7_dma_inv_range\n"
                              "00001020 T v7_dma_clean_range\n"
                              "00001030 T v7_dma_flush_range\n"
                              "00001050 T end_text\n";
static const char new_map[] = "00001000 T v7_dma_inv_range\n"
                              "00001040 T v7_dma_clean_range\n"
                              "00001050 T v7_dma_flush_range\n"
                              "000010f0 T end_text\n";

static void test_exact_sizes_gap_grows(void **state)
{
    (void)state;
    /* ELF-like tables (st_size): the same sizes, the second function moved by 32. */
    struct symtab o = {0}, n = {0};
    assert_int_equal(symtab_add(&o, "v7_dma_inv_range", 16, NULL, 0x1000, 0x1c), 0);
    assert_int_equal(symtab_add(&o, "v7_dma_clean_range", 18, NULL, 0x1020, 0x10), 0);
    assert_int_equal(symtab_add(&n, "v7_dma_inv_range", 16, NULL, 0x1000, 0x1c), 0);
    assert_int_equal(symtab_add(&n, "v7_dma_clean_range", 18, NULL, 0x1040, 0x10), 0);
    struct layout_diff d;
    ASSERT_EQ(layout_diff_build(&o, &n, NULL, 64, &d), 0);
    const struct layout_fn *f = fn(&d, "v7_dma_inv_range");
    ASSERT_EQ(f->old_pad, 0);
    ASSERT_EQ(f->new_pad, 0);
    ASSERT_EQ(layout_fn_delta(f), 0);
    assert_false(layout_fn_padding_only(f));
    ASSERT_EQ(d.grow, 0);
    ASSERT_EQ(d.ndelta, 0);
    ASSERT_EQ(d.padding_only, 0);
    layout_diff_free(&d);
    symtab_free(&o);
    symtab_free(&n);
}

static void test_nm_sized_map(void **state)
{
    (void)state;
    /* nm -n -S: the sizes printed are the sizes, whatever the gaps. */
    struct symtab o, n;
    parse_ok("00001000 0000001c T v7_dma_inv_range\n"
             "00001020 00000010 T v7_dma_clean_range\n",
             &o);
    parse_ok("00001000 0000001c T v7_dma_inv_range\n"
             "00001040 00000014 T v7_dma_clean_range\n",
             &n);
    ASSERT_EQ(o.source, SYMTAB_MAP_SIZED);
    ASSERT_EQ(o.syms[0].next_align, 0);
    struct layout_diff d;
    ASSERT_EQ(layout_diff_build(&o, &n, NULL, 64, &d), 0);
    ASSERT_EQ(layout_fn_delta(fn(&d, "v7_dma_inv_range")), 0);
    ASSERT_EQ(layout_fn_delta(fn(&d, "v7_dma_clean_range")), 4); /* real growth */
    ASSERT_EQ(d.grow, 1);
    ASSERT_EQ(d.padding_only, 0);
    layout_diff_free(&d);
    symtab_free(&o);
    symtab_free(&n);
}

static void test_system_map_padding(void **state)
{
    (void)state;
    struct symtab o, n;
    parse_ok(old_map, &o);
    parse_ok(new_map, &n);
    ASSERT_EQ(o.source, SYMTAB_MAP);
    ASSERT_EQ(o.syms[0].size, 0x20);
    ASSERT_EQ(o.syms[0].next_align, 0x20);
    ASSERT_EQ(n.syms[0].next_align, 0x40);
    struct layout_diff d;
    ASSERT_EQ(layout_diff_build(&o, &n, NULL, 64, &d), 0);
    /* Gap 32 (up to 31 padding) -> 64 (up to 63): sizes 1..32 and 1..64 overlap. */
    const struct layout_fn *inv = fn(&d, "v7_dma_inv_range");
    ASSERT_EQ(inv->old_pad, 31);
    ASSERT_EQ(inv->new_pad, 63);
    ASSERT_EQ(layout_fn_gap_delta(inv), 32);
    ASSERT_EQ(layout_fn_delta(inv), 0);
    assert_true(layout_fn_padding_only(inv));
    /* clean_range: gap 16 -> 16, unchanged. flush_range: gap 32 (next at 0x1050, up to 15
     * padding: 17..32) -> 160 (next at 0x10f0, up to 15: 145..160): growth, counted. */
    ASSERT_EQ(layout_fn_delta(fn(&d, "v7_dma_clean_range")), 0);
    const struct layout_fn *flush = fn(&d, "v7_dma_flush_range");
    ASSERT_EQ(flush->old_pad, 15);
    ASSERT_EQ(layout_fn_delta(flush), 128);
    ASSERT_EQ(d.grow, 1);
    ASSERT_EQ(d.padding_only, 1);
    ASSERT_EQ(d.ndelta, 1);

    /* The report says so: the padding is shown, not counted as growth. */
    char err[NB_ERRLEN] = "";
    struct layout_hot hot;
    ASSERT_EQ(layout_hot_parse_list("v7_dma_*,v7_dma_nope", &hot, err, sizeof(err)), 0);
    layout_diff_free(&d);
    ASSERT_EQ(layout_diff_build(&o, &n, &hot, 64, &d), 0);
    char *text = report_text(&d, &o, &n, &hot);
    assert_non_null(strstr(text, "grow/shrink: 1/0"));
    assert_non_null(strstr(text, "size: 80 -> 240 bytes of gaps (+128 counted)"));
    assert_non_null(strstr(text, "size unknown (gap 32 -> 64 bytes, of which padding up to 31 ->"));
    assert_non_null(strstr(text, "not counted: 1 functions whose size is unknown"));
    assert_non_null(strstr(text, "hot patterns that match no function in either build:"));
    assert_non_null(strstr(text, "v7_dma_nope"));
    free(text);
    /* And the JSON: the unmatched pattern and the padding. */
    json_t *sum = layout_summary_json(&d, &hot);
    assert_non_null(sum);
    json_t *un = json_object_get(json_object_get(sum, "hot"), "unmatched");
    ASSERT_EQ(json_array_size(un), 1);
    assert_string_equal(json_string_value(json_array_get(un, 0)), "v7_dma_nope");
    json_t *size = json_object_get(sum, "size");
    ASSERT_EQ(json_integer_value(json_object_get(size, "padding_only")), 1);
    /* The gaps' totals grew by 160; only flush_range's 128 is growth. */
    ASSERT_EQ(json_integer_value(json_object_get(size, "new_total")) -
                  json_integer_value(json_object_get(size, "old_total")),
              160);
    ASSERT_EQ(json_integer_value(json_object_get(size, "delta")), 128);
    json_decref(sum);
    layout_diff_free(&d);
    layout_hot_free(&hot);
    symtab_free(&o);
    symtab_free(&n);
}

static void test_padding_capped_by_line(void **state)
{
    (void)state;
    /* The next symbol at a 4096-byte boundary: padding is at most line - 1 (here 31). */
    struct symtab o, n;
    parse_ok("00001fd0 T f\n00002000 T g\n", &o);
    parse_ok("00001fd0 T f\n00002000 T g\n", &n);
    ASSERT_EQ(o.syms[0].next_align, 4096);
    struct layout_diff d;
    ASSERT_EQ(layout_diff_build(&o, &n, NULL, 32, &d), 0);
    ASSERT_EQ(fn(&d, "f")->old_pad, 31);
    ASSERT_EQ(fn(&d, "g")->old_pad, 0); /* the last symbol: size unknown, 0 */
    layout_diff_free(&d);
    symtab_free(&o);
    symtab_free(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_sizes_gap_grows),
        cmocka_unit_test(test_nm_sized_map),
        cmocka_unit_test(test_system_map_padding),
        cmocka_unit_test(test_padding_capped_by_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
