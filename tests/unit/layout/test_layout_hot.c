/* Unit tests for layout/layout_hot: comma lists, name files, perf output, matching. */
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

#include "layout/layout_hot.h"
#include "util/opttable.h"

static void text_ok(const char *text, struct layout_hot *h)
{
    char err[NB_ERRLEN] = "";
    int rc = layout_hot_parse_text("hot.txt", text, strlen(text), h, err, sizeof(err));
    if (rc)
        fail_msg("layout_hot_parse_text failed (%d): %s", rc, err);
}

/* Checks that the exact names are exactly want (sorted, NULL-terminated). */
static void exact_is(const struct layout_hot *h, const char *const *want)
{
    size_t n = 0;
    while (want[n])
        n++;
    if (h->nexact != n) {
        for (size_t i = 0; i < h->nexact; i++)
            print_message("exact[%zu] = %s\n", i, h->exact[i]);
        fail_msg("%zu exact names, expected %zu", h->nexact, n);
    }
    for (size_t i = 0; i < n; i++)
        assert_string_equal(h->exact[i], want[i]);
}

static void test_comma_list(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    struct layout_hot h;
    assert_int_equal(
        layout_hot_parse_list("ip_rcv,nf_nat_*,ip_rcv,tcp_v4_rcv", &h, err, sizeof(err)), 0);
    assert_int_equal(h.kind, LAYOUT_HOT_LIST);
    exact_is(&h, (const char *const[]){"ip_rcv", "tcp_v4_rcv", NULL});
    assert_int_equal(h.nglobs, 1);
    assert_true(layout_hot_match(&h, "ip_rcv"));
    assert_true(layout_hot_match(&h, "nf_nat_ipv4_fn"));
    assert_true(layout_hot_match(&h, "tcp_v4_rcv"));
    assert_false(layout_hot_match(&h, "ip_rcv_core"));
    assert_false(layout_hot_match(&h, "udp_rcv"));
    /* GCC clones match by their base name; .cold parts do not. */
    assert_true(layout_hot_match(&h, "ip_rcv.isra.0"));
    assert_true(layout_hot_match(&h, "nf_nat_setup_info.constprop.0"));
    assert_false(layout_hot_match(&h, "ip_rcv.cold"));
    layout_hot_free(&h);

    assert_int_equal(layout_hot_parse_list("ip_rcv,,udp_rcv", &h, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "item 2"));
    assert_int_equal(layout_hot_parse_list("", &h, err, sizeof(err)), -EINVAL);
    assert_int_equal(layout_hot_parse_list("ip_rcv, udp_rcv", &h, err, sizeof(err)), -EINVAL);
}

static void test_pattern_check(void **state)
{
    (void)state;
    char why[NB_ERRLEN] = "";
    ASSERT_EQ(layout_hot_check_pattern("v7_dma_*", why, sizeof(why)), 0);
    ASSERT_EQ(layout_hot_check_pattern("nf_nat_[ai]*", why, sizeof(why)), 0);
    ASSERT_EQ(layout_hot_check_pattern("[]x]", why, sizeof(why)), 0);
    ASSERT_EQ(layout_hot_check_pattern("a\\*b", why, sizeof(why)), 0);
    ASSERT_EQ(layout_hot_check_pattern("v7_dma_[inv", why, sizeof(why)), -EINVAL);
    ASSERT_STARTS_WITH(why, "pattern 'v7_dma_[inv' opens a '[' class");
    ASSERT_EQ(layout_hot_check_pattern("v7 dma", why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "'v7 dma'"));
    ASSERT_EQ(layout_hot_check_pattern("x\\", why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "lone"));
    ASSERT_EQ(layout_hot_check_pattern("", why, sizeof(why)), -EINVAL);

    /* A comma list and a names file name the bad pattern too. */
    struct layout_hot h;
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(layout_hot_parse_list("ip_rcv,v7_dma_[inv", &h, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'v7_dma_[inv'"));
    const char *file = "ip_rcv\nnf_[nat\n";
    ASSERT_EQ(layout_hot_parse_text("hot.txt", file, strlen(file), &h, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "hot.txt line 2"));
    assert_non_null(strstr(err, "'nf_[nat'"));
}

static void test_from_patterns_and_mark(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    struct layout_hot h;
    const char *pats[] = {"v7_dma_*", "tcp_v4_rcv", "nf_nat_*", "no_such_fn"};
    ASSERT_EQ(layout_hot_from_patterns(pats, 4, LAYOUT_HOT_EXPERIMENT, &h, err, sizeof(err)), 0);
    ASSERT_EQ(h.kind, LAYOUT_HOT_EXPERIMENT);
    assert_string_equal(layout_hot_kind_name(h.kind), "experiment file");
    ASSERT_EQ(h.nexact, 2);
    ASSERT_EQ(h.nglobs, 2);
    assert_true(layout_hot_match(&h, "v7_dma_inv_range"));
    assert_true(layout_hot_match(&h, "v7_dma_clean_range.part.0"));
    assert_false(layout_hot_match(&h, "v7_flush_kern_cache_all"));
    /* Marking: which patterns some function matched; the rest match nothing. */
    bool hits[4] = {false, false, false, false};
    layout_hot_mark(&h, "v7_dma_inv_range", hits);
    layout_hot_mark(&h, "tcp_v4_rcv.isra.0", hits);
    layout_hot_mark(&h, "nf_nat_fn.cold", hits); /* a .cold part is not nf_nat_fn's clone */
    size_t unmatched = 0;
    for (size_t i = 0; i < 4; i++)
        if (!hits[i]) {
            unmatched++;
            const char *p = layout_hot_pattern(&h, i);
            if (strcmp(p, "no_such_fn") && strcmp(p, "nf_nat_*"))
                fail_msg("pattern %s unexpectedly unmatched", p);
        }
    /* nf_nat_fn.cold matches nf_nat_* as itself: only no_such_fn is left. */
    ASSERT_EQ(unmatched, 1);
    layout_hot_free(&h);

    const char *bad[] = {"ok_fn", "bad[fn"};
    ASSERT_EQ(layout_hot_from_patterns(bad, 2, LAYOUT_HOT_EXPERIMENT, &h, err, sizeof(err)),
              -EINVAL);
    assert_non_null(strstr(err, "'bad[fn'"));
    ASSERT_EQ(layout_hot_from_patterns(bad, 0, LAYOUT_HOT_EXPERIMENT, &h, err, sizeof(err)),
              -EINVAL);
}

static void test_opt_add_repeatable(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    struct layout_hot h = {0};
    assert_false(layout_hot_given(&h));
    ASSERT_EQ(layout_hot_opt_add(&h, "v7_dma_*,ip_rcv", NULL, err, sizeof(err)), 0);
    ASSERT_EQ(layout_hot_opt_add(&h, "tcp_v4_rcv", NULL, err, sizeof(err)), 0);
    ASSERT_EQ(layout_hot_opt_add(&h, "ip_rcv", NULL, err, sizeof(err)), 0); /* a duplicate */
    assert_true(layout_hot_given(&h));
    ASSERT_EQ(h.kind, LAYOUT_HOT_LIST);
    exact_is(&h, (const char *const[]){"ip_rcv", "tcp_v4_rcv", NULL});
    ASSERT_EQ(h.nglobs, 1);
    assert_true(layout_hot_match(&h, "v7_dma_flush_range"));
    ASSERT_EQ(layout_hot_opt_add(&h, "x,[y", NULL, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'[y'"));
    ASSERT_EQ(h.nexact, 2); /* the bad value added nothing */
    layout_hot_free(&h);
}

static void test_names_file(void **state)
{
    (void)state;
    struct layout_hot h;
    text_ok("# hot path of the router\n\nip_forward\n  nf_nat_*  \nip_forward\n", &h);
    assert_int_equal(h.kind, LAYOUT_HOT_NAMES);
    exact_is(&h, (const char *const[]){"ip_forward", NULL});
    assert_int_equal(h.nglobs, 1);
    assert_string_equal(h.globs[0], "nf_nat_*");
    layout_hot_free(&h);

    char err[NB_ERRLEN] = "";
    const char *bad = "ip_forward\nthis is not a name\n";
    assert_int_equal(layout_hot_parse_text("hot.txt", bad, strlen(bad), &h, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "hot.txt line 2"));
    assert_non_null(strstr(err, "this is not a name"));
    const char *empty = "# nothing\n\n";
    assert_int_equal(layout_hot_parse_text("hot.txt", empty, strlen(empty), &h, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "names no function"));
}

static void test_perf_report(void **state)
{
    (void)state;
    /* perf report --stdio, with children and a call graph: only the symbol column counts. */
    struct layout_hot h;
    text_ok(
        "# To display the perf.data header info, please use --header/--header-only.\n"
        "#\n"
        "# Samples: 52K of event 'cycles'\n"
        "# Event count (approx.): 39182471234\n"
        "#\n"
        "# Children      Self  Command          Shared Object      Symbol\n"
        "# ........  ........  ...............  .................  ..................\n"
        "#\n"
        "    12.34%     0.50%  ksoftirqd/0      [kernel.kallsyms]  [k] __netif_receive_skb_core\n"
        "            |\n"
        "            ---__netif_receive_skb_core\n"
        "               |--5.00%--ip_rcv\n"
        "     8.10%     8.10%  swapper          [kernel.kallsyms]  [k] nf_nat_ipv4_fn\n"
        "     2.00%     2.00%  swapper          [kernel.kallsyms]  [k] 0xffffffff81a2b3c4\n"
        "     1.00%     1.00%  netab            netab              [.] stream_send\n"
        "     0.90%     0.90%  netab            libc.so.6          [.] "
        "__memmove_avx_unaligned_erms\n",
        &h);
    assert_int_equal(h.kind, LAYOUT_HOT_PERF_REPORT);
    exact_is(&h, (const char *const[]){"__memmove_avx_unaligned_erms", "__netif_receive_skb_core",
                                       "nf_nat_ipv4_fn", "stream_send", NULL});
    assert_int_equal(h.nglobs, 0);
    assert_false(layout_hot_match(&h, "ip_rcv")); /* only in the call graph */
    layout_hot_free(&h);
}

static void test_perf_script(void **state)
{
    (void)state;
    /* perf script: one-line samples and call chains; offsets dropped, unknowns skipped. */
    struct layout_hot h;
    text_ok(
        "swapper     0 [000] 12345.678901:     250000 cycles:  ffffffff81a2b3c4 "
        "__netif_receive_skb_core+0x54 ([kernel.kallsyms])\n"
        "ksoftirqd/1 21 [001] 12345.679000:     250000 cycles:\n"
        "\tffffffff81b00010 ip_forward+0x10 ([kernel.kallsyms])\n"
        "\tffffffffc0a00020 nf_nat_ipv4_fn+0x20 ([nf_nat])\n"
        "\t    7f1234567890 [unknown] (/usr/lib/libc.so.6)\n"
        "\n"
        "netab 4242 [001] 12345.680000: 250000 cycles:  55d0c0de1234 main+0x4 (/usr/bin/netab)\n",
        &h);
    assert_int_equal(h.kind, LAYOUT_HOT_PERF_SCRIPT);
    exact_is(&h, (const char *const[]){"__netif_receive_skb_core", "ip_forward", "main",
                                       "nf_nat_ipv4_fn", NULL});
    layout_hot_free(&h);
}

static void test_builtin(void **state)
{
    (void)state;
    struct layout_hot h;
    assert_int_equal(layout_hot_builtin(&h), 0);
    assert_int_equal(h.kind, LAYOUT_HOT_BUILTIN);
    const char *hot[] = {"__netif_receive_skb_core",
                         "ip_rcv",
                         "ip_forward",
                         "nf_nat_ipv4_fn",
                         "nf_nat_inet_fn",
                         "tcp_v4_rcv",
                         "udp_rcv",
                         "dev_queue_xmit",
                         "napi_gro_receive",
                         "ip_rcv_core.isra.0",
                         "nf_conntrack_in"};
    for (size_t i = 0; i < sizeof(hot) / sizeof(hot[0]); i++)
        if (!layout_hot_match(&h, hot[i]))
            fail_msg("%s is not in the built-in hot set", hot[i]);
    const char *cold[] = {"ext4_readdir", "main", "schedule", "ip_rcv.cold", "printk"};
    for (size_t i = 0; i < sizeof(cold) / sizeof(cold[0]); i++)
        if (layout_hot_match(&h, cold[i]))
            fail_msg("%s is in the built-in hot set", cold[i]);
    layout_hot_free(&h);
}

static void test_load_file_or_list(void **state)
{
    (void)state;
    char path[] = "/tmp/netab-test-hot-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    assert_int_equal(write(fd, "alpha\nbeta\n", 11), 11);
    close(fd);
    char err[NB_ERRLEN] = "";
    struct layout_hot h;
    assert_int_equal(layout_hot_load(path, &h, err, sizeof(err)), 0);
    assert_int_equal(h.kind, LAYOUT_HOT_NAMES);
    exact_is(&h, (const char *const[]){"alpha", "beta", NULL});
    layout_hot_free(&h);
    unlink(path);
    /* A name that is no file is a one-item list. */
    assert_int_equal(layout_hot_load(path, &h, err, sizeof(err)), 0);
    assert_int_equal(h.kind, LAYOUT_HOT_LIST);
    exact_is(&h, (const char *const[]){path, NULL});
    layout_hot_free(&h);
}

/*
 * --hot-from: a function below a run's top list but with 1% of the samples
 * in its full list is hot; one under 0.5% is not; clone suffixes go; a
 * document without a full list still gives its top functions.
 */
static void test_from_profiles(void **state)
{
    (void)state;
    json_t *full = json_pack(
        "{s:{s:{s:{s:I, s:[{s:s, s:s, s:I}], s:{s:{s:{s:I, s:I, s:I}}, s:I, s:I}}}}}", "end",
        "profile", "local", "samples", (json_int_t)1000, "functions", "symbol", "tcp_ack", "module",
        "[kernel]", "samples", (json_int_t)500, "full", "functions", "[kernel]", "tcp_ack",
        (json_int_t)500, "ip_rcv_core.isra.0", (json_int_t)10, "rare_fn", (json_int_t)4,
        "omitted_functions", (json_int_t)0, "omitted_samples", (json_int_t)0);
    json_t *top = json_pack("{s:{s:{s:{s:I, s:[{s:s, s:s, s:I}]}}}}", "end", "profile", "local",
                            "samples", (json_int_t)1000, "functions", "symbol", "udp_rcv", "module",
                            "[kernel]", "samples", (json_int_t)300);
    assert_non_null(full);
    assert_non_null(top);
    struct layout_hot hot = {0};
    char err[NB_ERRLEN];
    const json_t *docs[2] = {full, NULL};
    assert_int_equal(layout_hot_from_profiles(docs, 1, 0.5, &hot, err, sizeof(err)), 0);
    ASSERT_EQ(hot.kind, LAYOUT_HOT_PROFILE);
    assert_true(layout_hot_match(&hot, "tcp_ack"));
    assert_true(layout_hot_match(&hot, "ip_rcv_core")); /* 1% only in the full list */
    assert_false(layout_hot_match(&hot, "rare_fn"));    /* 0.4% */
    layout_hot_free(&hot);
    docs[1] = top;
    assert_int_equal(layout_hot_from_profiles(docs, 2, 0.5, &hot, err, sizeof(err)), 0);
    assert_true(layout_hot_match(&hot, "udp_rcv"));
    assert_true(layout_hot_match(&hot, "ip_rcv_core.constprop.0"));
    layout_hot_free(&hot);
    json_decref(full);
    json_decref(top);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comma_list),
        cmocka_unit_test(test_names_file),
        cmocka_unit_test(test_perf_report),
        cmocka_unit_test(test_perf_script),
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_load_file_or_list),
        cmocka_unit_test(test_from_profiles),
        cmocka_unit_test(test_pattern_check),
        cmocka_unit_test(test_from_patterns_and_mark),
        cmocka_unit_test(test_opt_add_repeatable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
