/* Unit tests of the campaign planner: the randomized interleaved order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "campaign/campaign.h"

static struct campaign_slot *plan(size_t nv, size_t nc, long runs, long warmup, uint64_t seed,
                                  size_t *n)
{
    struct campaign_slot *s = NULL;
    assert_int_equal(campaign_plan(nv, nc, runs, warmup, seed, &s, n), 0);
    assert_non_null(s);
    assert_int_equal(*n, (size_t)(runs + warmup) * nv * nc);
    return s;
}

/* Every (variant, cell) pair exactly once per round, rounds in order, seq contiguous. */
static void test_each_pair_once_per_round(void **state)
{
    (void)state;
    const size_t nv = 3, nc = 4;
    size_t n;
    struct campaign_slot *s = plan(nv, nc, 5, 2, 42, &n);
    for (size_t r = 0; r < 7; r++) {
        int seen[3][4] = {{0}};
        for (size_t i = 0; i < nv * nc; i++) {
            const struct campaign_slot *x = &s[r * nv * nc + i];
            assert_int_equal(x->round, r + 1);
            ASSERT_LT(x->variant, nv);
            ASSERT_LT(x->cell, nc);
            seen[x->variant][x->cell]++;
        }
        for (size_t v = 0; v < nv; v++)
            for (size_t c = 0; c < nc; c++)
                assert_int_equal(seen[v][c], 1);
    }
    for (size_t i = 0; i < n; i++)
        assert_int_equal(s[i].seq, i + 1);
    free(s);
}

/* Warm-up rounds come first and only they are marked. */
static void test_warmups_first(void **state)
{
    (void)state;
    size_t n;
    struct campaign_slot *s = plan(2, 3, 4, 2, 9, &n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(s[i].warmup, i < 2 * 2 * 3);
    free(s);
    s = plan(2, 1, 3, 0, 9, &n);
    for (size_t i = 0; i < n; i++)
        assert_false(s[i].warmup);
    free(s);
}

/* The same seed gives the same order; another seed (almost surely) a different one. */
static void test_reproducible(void **state)
{
    (void)state;
    size_t n1, n2, n3;
    struct campaign_slot *a = plan(4, 5, 6, 1, 1234, &n1);
    struct campaign_slot *b = plan(4, 5, 6, 1, 1234, &n2);
    struct campaign_slot *c = plan(4, 5, 6, 1, 1235, &n3);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1 * sizeof(*a));
    assert_memory_not_equal(a, c, n1 * sizeof(*a));
    free(a);
    free(b);
    free(c);
}

/* The rounds are shuffled: with 20 pairs, not every round is in the same order. */
static void test_rounds_differ(void **state)
{
    (void)state;
    size_t n;
    struct campaign_slot *s = plan(4, 5, 10, 0, 77, &n);
    int differ = 0;
    for (size_t r = 1; r < 10; r++)
        for (size_t i = 0; i < 20; i++)
            if (s[r * 20 + i].variant != s[i].variant || s[r * 20 + i].cell != s[i].cell) {
                differ++;
                break;
            }
    ASSERT_GT(differ, 0);
    free(s);
}

static void test_bad_sizes(void **state)
{
    (void)state;
    struct campaign_slot *s = (void *)1;
    size_t n = 5;
    assert_int_equal(campaign_plan(0, 1, 1, 0, 1, &s, &n), -EINVAL);
    assert_null(s);
    assert_int_equal(n, 0);
    assert_int_equal(campaign_plan(1, 0, 1, 0, 1, &s, &n), -EINVAL);
    assert_int_equal(campaign_plan(1, 1, 0, 0, 1, &s, &n), -EINVAL);
    assert_int_equal(campaign_plan(1, 1, 1, -1, 1, &s, &n), -EINVAL);
    assert_int_equal(campaign_plan(10000, 10000, 100000, 0, 1, &s, &n), -EINVAL);
}

/* One variant and one cell: the plan is just the rounds in order. */
static void test_single_pair(void **state)
{
    (void)state;
    size_t n;
    struct campaign_slot *s = plan(1, 1, 3, 1, 5, &n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i].variant, 0);
        assert_int_equal(s[i].cell, 0);
        assert_int_equal(s[i].round, i + 1);
        assert_int_equal(s[i].seq, i + 1);
    }
    free(s);
}

/* order: blocked: each variant's runs together, in file order, rounds kept, seq renumbered. */
static void test_blocked(void **state)
{
    (void)state;
    const size_t nv = 3, nc = 2;
    size_t n;
    struct campaign_slot *s = plan(nv, nc, 4, 1, 7, &n);
    campaign_plan_block(s, n);
    size_t per = n / nv;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i].seq, i + 1);
        assert_int_equal(s[i].variant, i / per);
        if (i % per)
            ASSERT_GE(s[i].round, s[i - 1].round); /* warm-ups first, rounds in order */
        assert_int_equal(s[i].warmup, s[i].round == 1);
    }
    /* The variant changes only nv - 1 times: the fewest boots. */
    size_t changes = 0;
    for (size_t i = 1; i < n; i++)
        changes += s[i].variant != s[i - 1].variant;
    assert_int_equal(changes, nv - 1);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_pair_once_per_round),
        cmocka_unit_test(test_warmups_first),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_rounds_differ),
        cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_single_pair),
        cmocka_unit_test(test_blocked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
