/* Log-linear histogram; see histogram.h for the layout and the error bound. */
#include "measure/histogram.h"

#include <math.h>

#define LD(p) atomic_load_explicit((p), memory_order_relaxed)
#define ST(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)

_Static_assert(HIST_BUCKETS == 7296, "the layout comment in histogram.h states 7296 buckets");
_Static_assert(sizeof(struct histogram) == 58416, "histogram.h states the size");

/* The lowest value and the width of slot i. */
static void slot_range(unsigned i, uint64_t *lo, uint64_t *width)
{
    if (i < (2u << HIST_SUB_BITS)) {
        *lo = i;
        *width = 1;
        return;
    }
    unsigned r = (i >> HIST_SUB_BITS) - 1;
    *lo = (uint64_t)(i - (r << HIST_SUB_BITS)) << r;
    *width = (uint64_t)1 << r;
}

/* The value reported for slot i: the middle, rounded down, of its range. */
static uint64_t slot_mid(unsigned i)
{
    uint64_t lo, width;
    slot_range(i, &lo, &width);
    return lo + (width - 1) / 2;
}

void hist_init(struct histogram *h)
{
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        ST(&h->bucket[i], 0);
    ST(&h->count, 0);
    ST(&h->overflow, 0);
    ST(&h->sum_lo, 0);
    ST(&h->sum_hi, 0);
    ST(&h->min, UINT64_MAX);
    ST(&h->max, 0);
}

void hist_snapshot(const struct histogram *src, struct histogram *dst)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        uint64_t c = LD(&src->bucket[i]);
        ST(&dst->bucket[i], c);
        n += c;
    }
    ST(&dst->count, n);
    ST(&dst->overflow, LD(&src->overflow));
    /* A carry between these two loads could tear the sum; see hist_record. */
    ST(&dst->sum_lo, LD(&src->sum_lo));
    ST(&dst->sum_hi, LD(&src->sum_hi));
    ST(&dst->min, LD(&src->min));
    ST(&dst->max, LD(&src->max));
}

/* a - b, or 0 if b > a, which only a misuse (swapped arguments) produces. */
static uint64_t sat_sub(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

void hist_subtract(struct histogram *out, const struct histogram *now,
                   const struct histogram *before)
{
    uint64_t n = 0;
    unsigned first = HIST_BUCKETS, last = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        uint64_t c = sat_sub(LD(&now->bucket[i]), LD(&before->bucket[i]));
        ST(&out->bucket[i], c);
        n += c;
        if (c && first == HIST_BUCKETS)
            first = i;
        if (c)
            last = i;
    }
    ST(&out->count, n);
    ST(&out->overflow, sat_sub(LD(&now->overflow), LD(&before->overflow)));

    uint64_t nlo = LD(&now->sum_lo), blo = LD(&before->sum_lo);
    ST(&out->sum_lo, nlo - blo);
    ST(&out->sum_hi, LD(&now->sum_hi) - LD(&before->sum_hi) - (nlo < blo));

    if (n == 0) {
        ST(&out->min, UINT64_MAX);
        ST(&out->max, 0);
        return;
    }
    /*
     * The cumulative min only moves when a new smallest value arrives, so if
     * it moved (or there was nothing before) it was reached in the interval.
     */
    uint64_t bmin = LD(&before->min), nmin = LD(&now->min);
    uint64_t bmax = LD(&before->max), nmax = LD(&now->max);
    int before_empty = bmin > bmax;
    ST(&out->min, (before_empty || nmin < bmin) ? nmin : slot_mid(first));
    ST(&out->max, (before_empty || nmax > bmax) ? nmax : slot_mid(last));
}

void hist_merge(struct histogram *dst, const struct histogram *src)
{
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        ST(&dst->bucket[i], LD(&dst->bucket[i]) + LD(&src->bucket[i]));
    ST(&dst->count, LD(&dst->count) + LD(&src->count));
    ST(&dst->overflow, LD(&dst->overflow) + LD(&src->overflow));
    uint64_t lo = LD(&dst->sum_lo) + LD(&src->sum_lo);
    uint64_t carry = lo < LD(&src->sum_lo);
    ST(&dst->sum_lo, lo);
    ST(&dst->sum_hi, LD(&dst->sum_hi) + LD(&src->sum_hi) + carry);
    uint64_t smin = LD(&src->min), smax = LD(&src->max);
    if (smin < LD(&dst->min))
        ST(&dst->min, smin);
    if (smax > LD(&dst->max))
        ST(&dst->max, smax);
}

uint64_t hist_count(const struct histogram *h)
{
    return LD(&h->count);
}

uint64_t hist_overflow(const struct histogram *h)
{
    return LD(&h->overflow);
}

uint64_t hist_min(const struct histogram *h)
{
    return LD(&h->count) ? LD(&h->min) : 0;
}

uint64_t hist_max(const struct histogram *h)
{
    return LD(&h->count) ? LD(&h->max) : 0;
}

double hist_mean(const struct histogram *h)
{
    uint64_t n = LD(&h->count);
    if (n == 0)
        return 0.0;
    /* The sum can pass 2^64 only with huge values; long double keeps 64 bits. */
    long double sum = (long double)LD(&h->sum_hi) * 18446744073709551616.0L + LD(&h->sum_lo);
    return (double)(sum / n);
}

/* The nearest rank of pct among n values, 1..n. */
static uint64_t nearest_rank(double pct, uint64_t n)
{
    if (!(pct > 0.0)) /* also catches NaN */
        return 1;
    if (pct >= 100.0)
        return n;
    /*
     * pct / 100 * n is often an integer in decimal (99.9% of 1000) that binary
     * rounding lifts just above it; ceil would then skip a rank. Shaving a
     * relative 1e-12 undoes that rounding and no genuine fraction is so small
     * for any sensible pct and n below 10^11.
     */
    double x = pct / 100.0 * (double)n;
    double r = ceil(x - x * 1e-12);
    if (r < 1.0)
        return 1;
    return r >= (double)n ? n : (uint64_t)r;
}

double hist_percentile(const struct histogram *h, double pct)
{
    /* Count from the buckets, so a live histogram cannot send the walk past the end. */
    uint64_t n = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        n += LD(&h->bucket[i]);
    if (n == 0)
        return 0.0;
    uint64_t mn = LD(&h->min), mx = LD(&h->max);
    uint64_t rank = nearest_rank(pct, n);
    if (rank == 1)
        return (double)mn;
    if (rank == n)
        return (double)mx;

    uint64_t seen = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += LD(&h->bucket[i]);
        if (seen >= rank) {
            uint64_t v = slot_mid(i);
            v = v < mn ? mn : v;
            v = v > mx ? mx : v;
            return (double)v;
        }
    }
    return (double)mx; /* only reached if a writer raced the two passes */
}
