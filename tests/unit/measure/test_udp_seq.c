/*
 * Unit tests for measure/udp_seq: hand-made arrival orders with counts worked
 * out in the comments, and seeded random streams checked against a
 * brute-force model that remembers every sequence number (no ring window).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/udp_seq.h"

#define W UDP_SEQ_WINDOW

static struct udp_seq *seq_new(void)
{
    struct udp_seq *s = malloc(sizeof(*s));
    assert_non_null(s);
    udp_seq_init(s);
    return s;
}

static void feed(struct udp_seq *s, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        udp_seq_record(s, v[i]);
}

static struct udp_seq_counts counts(const struct udp_seq *s)
{
    struct udp_seq_counts c;
    udp_seq_read(s, &c);
    return c;
}

static uint64_t final_loss(const struct udp_seq *s, uint64_t sent)
{
    uint64_t lost = 12345;
    assert_int_equal(udp_seq_final_loss(s, sent, &lost), 0);
    return lost;
}

static void test_in_order(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    for (uint64_t i = 0; i < 1000; i++)
        udp_seq_record(s, i);
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.unique, 1000);
    assert_int_equal(c.duplicates + c.out_of_order + c.too_late + c.gap_seqs + c.fill_ins, 0);
    assert_int_equal(c.lost_so_far, 0);
    assert_int_equal(c.next, 1000);
    assert_int_equal(final_loss(s, 1000), 0);
    /* The last 3 were sent but never arrived: only the final figure sees them. */
    assert_int_equal(final_loss(s, 1003), 3);
    free(s);
}

static void test_single_gap(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    static const uint64_t v[] = {0, 1, 2, 3, 4, 6, 7, 8, 9}; /* 5 lost */
    feed(s, v, 9);
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.unique, 9);
    assert_int_equal(c.gap_seqs, 1);
    assert_int_equal(c.lost_so_far, 1);
    assert_int_equal(c.out_of_order, 0);
    assert_int_equal(final_loss(s, 10), 1);
    free(s);
}

static void test_gap_then_fill_in(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    static const uint64_t v[] = {0, 1, 3, 4};
    feed(s, v, 4);
    assert_int_equal(counts(s).lost_so_far, 1); /* 2 missing so far */
    udp_seq_record(s, 2);                       /* ...and here it is */
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.unique, 5);
    assert_int_equal(c.out_of_order, 1);
    assert_int_equal(c.fill_ins, 1);
    assert_int_equal(c.lost_so_far, 0);
    assert_int_equal(c.duplicates, 0);
    assert_int_equal(final_loss(s, 5), 0);
    free(s);
}

static void test_duplicates(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    /* 1 twice at once; 50 again 50 datagrams later; 0 again; 102 twice after a gap. */
    for (uint64_t i = 0; i <= 100; i++) {
        udp_seq_record(s, i);
        if (i == 1)
            udp_seq_record(s, 1);
    }
    udp_seq_record(s, 50);
    udp_seq_record(s, 0);
    static const uint64_t v[] = {103, 102, 102, 101};
    feed(s, v, 4);
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.duplicates, 4);
    assert_int_equal(c.unique, 104);
    /* 102 and 101 came after 103; duplicates are not also out of order. */
    assert_int_equal(c.out_of_order, 2);
    assert_int_equal(c.lost_so_far, 0);
    assert_int_equal(final_loss(s, 104), 0);
    free(s);
}

static void test_start(void **state)
{
    (void)state;
    /* Sequence 0 is an ordinary first datagram, not a gap or a duplicate. */
    struct udp_seq *s = seq_new();
    udp_seq_record(s, 0);
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.unique, 1);
    assert_int_equal(c.gap_seqs, 0);
    assert_int_equal(c.duplicates, 0);
    assert_int_equal(c.next, 1);
    udp_seq_record(s, 0);
    assert_int_equal(counts(s).duplicates, 1);
    free(s);

    /* A stream whose first arrival is 3 lost 0, 1 and 2, until they come. */
    s = seq_new();
    udp_seq_record(s, 3);
    assert_int_equal(counts(s).lost_so_far, 3);
    udp_seq_record(s, 0);
    c = counts(s);
    assert_int_equal(c.lost_so_far, 2);
    assert_int_equal(c.out_of_order, 1);
    assert_int_equal(final_loss(s, 4), 2);
    free(s);
}

static void test_huge_jump(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    const uint64_t forged = 1000000000000ULL; /* 10^12 */
    for (uint64_t i = 0; i < 10; i++)
        udp_seq_record(s, i);
    udp_seq_record(s, forged);
    for (uint64_t i = 10; i < 20; i++)
        udp_seq_record(s, i); /* now far older than the window */
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.gap_seqs, forged - 10);
    assert_int_equal(c.too_late, 10);
    assert_int_equal(c.unique, 21);
    assert_int_equal(c.lost_so_far, forged - 10 - 10);
    /* The window follows the new top. */
    udp_seq_record(s, forged);
    udp_seq_record(s, forged - 5);
    udp_seq_record(s, forged - 5);
    c = counts(s);
    assert_int_equal(c.duplicates, 2);
    assert_int_equal(c.fill_ins, 11);
    /* 22 unique datagrams but the sender sent 20: an error to report. */
    uint64_t lost = 7;
    assert_int_equal(udp_seq_final_loss(s, 20, &lost), -ERANGE);
    assert_int_equal(lost, 0);
    free(s);
}

static void test_invalid(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    udp_seq_record(s, 0);
    udp_seq_record(s, UDP_SEQ_INVALID);
    udp_seq_record(s, UINT64_MAX);
    udp_seq_record(s, UDP_SEQ_INVALID - 1); /* the largest valid number */
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.invalid, 2);
    assert_int_equal(c.unique, 2);
    assert_int_equal(c.next, UDP_SEQ_INVALID);
    free(s);
}

static void test_window_edge(void **state)
{
    (void)state;
    struct udp_seq *s = seq_new();
    /* Everything up to W + 10 except 10 and 11. */
    for (uint64_t i = 0; i <= W + 10; i++)
        if (i != 10 && i != 11)
            udp_seq_record(s, i);
    /* 11 is W - 1 behind the top: still inside, so a fill-in and then a duplicate. */
    udp_seq_record(s, 11);
    udp_seq_record(s, 11);
    /* 10 and 9 are W and W + 1 behind: too late, counted unique either way. */
    udp_seq_record(s, 10);
    udp_seq_record(s, 9); /* really a duplicate, which can no longer be told */
    struct udp_seq_counts c = counts(s);
    assert_int_equal(c.duplicates, 1);
    assert_int_equal(c.too_late, 2);
    assert_int_equal(c.out_of_order, 3);
    assert_int_equal(c.unique, W + 11 + 1);
    assert_int_equal(c.lost_so_far, 0);
    /* The late duplicate makes unique exceed the sent count by one. */
    uint64_t lost;
    assert_int_equal(udp_seq_final_loss(s, W + 11, &lost), -ERANGE);
    free(s);
}

static void test_gap_sizes_around_window(void **state)
{
    (void)state;
    /* After a gap of g, a datagram before the gap is a duplicate while inside the window. */
    static const uint64_t gaps[] = {1, 63, 64, 65, W - 2, W - 1, W, W + 1, 3 * W + 7};
    for (size_t k = 0; k < sizeof(gaps) / sizeof(gaps[0]); k++) {
        struct udp_seq *s = seq_new();
        uint64_t g = gaps[k];
        for (uint64_t i = 0; i < 100; i++)
            udp_seq_record(s, i);
        udp_seq_record(s, 100 + g); /* 100 .. 99 + g skipped */
        udp_seq_record(s, 99);      /* 99 + g + 1 - 99 - 1 = g + 1 behind */
        udp_seq_record(s, 100);     /* a fill-in if g behind is inside */
        struct udp_seq_counts c = counts(s);
        int dup_known = g + 1 < W;
        int fill_known = g < W;
        assert_int_equal(c.duplicates, dup_known ? 1 : 0);
        assert_int_equal(c.too_late, (dup_known ? 0 : 1) + (fill_known ? 0 : 1));
        assert_int_equal(c.gap_seqs, g);
        /* Bits cleared by the gap must not leave stale marks: fresh numbers are new. */
        udp_seq_record(s, 101 + g);
        udp_seq_record(s, 100 + g + W / 2);
        assert_int_equal(counts(s).duplicates, c.duplicates);
        free(s);
    }
}

/* ---- randomised streams against a brute-force model ---- */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int chance(unsigned per_million)
{
    return rng_next() % 1000000 < per_million;
}

struct arrival {
    uint64_t key, seq;
};
static int cmp_arrival(const void *a, const void *b)
{
    const struct arrival *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

struct scenario {
    unsigned drop, burst, dup, far; /* probabilities per million */
    uint64_t burst_max, reorder, dup_delay, far_delay;
};

/*
 * Builds an arrival order for sequences 0..n-1: each datagram gets a key of
 * (index * 16 + small random displacement); drops and bursts remove some,
 * duplicates get a later key, a few are delayed far. Sorting by key is the
 * arrival order.
 */
static size_t make_arrivals(struct arrival *a, uint64_t n, const struct scenario *sc)
{
    size_t m = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (chance(sc->burst)) {
            i += rng_next() % sc->burst_max;
            continue;
        }
        if (chance(sc->drop))
            continue;
        uint64_t key = i * 16 + rng_next() % (sc->reorder * 16);
        if (chance(sc->far))
            key += 16 * (rng_next() % sc->far_delay);
        a[m++] = (struct arrival){key, i};
        if (chance(sc->dup))
            a[m++] = (struct arrival){key + rng_next() % (sc->dup_delay * 16), i};
    }
    qsort(a, m, sizeof(*a), cmp_arrival);
    return m;
}

static void run_random(const struct scenario *sc, uint64_t seed)
{
    enum { NSEQ = 100000 };
    static struct arrival a[2 * NSEQ];
    static unsigned char seen[NSEQ];
    rng_state = seed;
    size_t m = make_arrivals(a, NSEQ, sc);
    memset(seen, 0, sizeof(seen));

    struct udp_seq *s = seq_new();
    /* The same arrivals through the general path only: the inline one must change nothing. */
    struct udp_seq *g = seq_new();
    uint64_t unique = 0, dups = 0, ooo = 0, late = 0, top = 0;
    int any = 0;
    for (size_t k = 0; k < m; k++) {
        uint64_t q = a[k].seq;
        uint64_t unique_before = unique;
        bool counted = udp_seq_record(s, q);
        assert_int_equal(udp_seq_record_any(g, q), counted);
        /* The model: a full array of seen flags, and the window rule applied literally. */
        if (!any || q > top) {
            unique++;
            seen[q] = 1;
            top = q;
            any = 1;
        } else if (top - q >= W) {
            late++, unique++, ooo++;
        } else if (seen[q]) {
            dups++;
        } else {
            seen[q] = 1;
            unique++, ooo++;
        }
        /* It says whether the datagram counted as unique (and so towards bytes and jitter). */
        assert_int_equal(counted, unique != unique_before);
        if (k % 997 == 0 || k == m - 1) {
            struct udp_seq_counts c = counts(s);
            assert_int_equal(c.unique, unique);
            assert_int_equal(c.duplicates, dups);
            assert_int_equal(c.out_of_order, ooo);
            assert_int_equal(c.too_late, late);
            assert_int_equal(c.next, top + 1);
            /* Missing below the top: top + 1 minus those that arrived. */
            uint64_t missing = top + 1 > unique ? top + 1 - unique : 0;
            assert_int_equal(c.lost_so_far, missing);
        }
    }
    if (late == 0) {
        /* Without late arrivals, final loss = sequences never delivered. */
        uint64_t delivered = 0;
        for (size_t q = 0; q < NSEQ; q++)
            delivered += seen[q];
        assert_int_equal(final_loss(s, NSEQ), NSEQ - delivered);
    }
    struct udp_seq_counts cs = counts(s), cg = counts(g);
    assert_memory_equal(&cs, &cg, sizeof(cs));
    assert_memory_equal(s->seen, g->seen, sizeof(s->seen));
    free(g);
    free(s);
}

static void test_random_local_reorder(void **state)
{
    (void)state;
    /* 2% drops, 1% duplicates up to 3000 later, reordering within 20, rare 20000 delays. */
    const struct scenario sc = {.drop = 20000,
                                .burst = 0,
                                .dup = 10000,
                                .far = 100,
                                .burst_max = 1,
                                .reorder = 20,
                                .dup_delay = 3000,
                                .far_delay = 20000};
    for (uint64_t seed = 1; seed <= 5; seed++)
        run_random(&sc, seed);
}

static void test_random_bursts_and_too_late(void **state)
{
    (void)state;
    /* Long loss bursts (up to 2 windows) and delays beyond the window. */
    const struct scenario sc = {.drop = 5000,
                                .burst = 50,
                                .dup = 20000,
                                .far = 2000,
                                .burst_max = 2 * W,
                                .reorder = 5,
                                .dup_delay = 2 * W,
                                .far_delay = 3 * W / 2};
    for (uint64_t seed = 11; seed <= 15; seed++)
        run_random(&sc, seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_single_gap),
        cmocka_unit_test(test_gap_then_fill_in),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_huge_jump),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_window_edge),
        cmocka_unit_test(test_gap_sizes_around_window),
        cmocka_unit_test(test_random_local_reorder),
        cmocka_unit_test(test_random_bursts_and_too_late),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
