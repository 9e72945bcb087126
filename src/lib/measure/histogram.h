/*
 * A log-linear (HDR-style) histogram of non-negative 64-bit values, meant for
 * nanosecond latencies and delay variations.
 *
 * Layout: values 0..255 each have their own bucket (exact). Above that, each
 * power-of-two range [2^k, 2^(k+1)) for k = 8..62 is split into 128 equal
 * sub-buckets of width 2^(k-7). A bucket's width is therefore at most 1/128
 * of its lower bound, and reporting its midpoint is within 1/256 (0.39%) of
 * any value in it, which is what makes every percentile good to 1%.
 *
 * Size: 57 blocks of 128 buckets = HIST_BUCKETS (7296) counters of 8 bytes,
 * 58,416 bytes in all including the totals. Allocate it with the object that
 * owns the stream, or on the heap; it is too big for a small thread stack.
 *
 * Range: HIST_MAX_VALUE is INT64_MAX (292 years of nanoseconds). A larger
 * value can only be a negative signed difference converted to unsigned (a
 * clock stepping back, skew between hosts), so it is clamped to
 * HIST_MAX_VALUE and also counted in `overflow`, for the report to show.
 *
 * Concurrency: one writer records; any number of other threads may read the
 * counters at the same time (hist_snapshot, the accessors) without a data
 * race. The writer updates each counter with a relaxed load and store, not a
 * locked read-modify-write, because it is the only writer. A reader sees
 * each counter whole but not all counters at one instant; hist_snapshot
 * recomputes the count from the buckets it copied so that percentiles of a
 * snapshot are self-consistent.
 */
#ifndef NETAB_MEASURE_HISTOGRAM_H
#define NETAB_MEASURE_HISTOGRAM_H

#include <stdatomic.h>
#include <stdint.h>

#define HIST_SUB_BITS 7 /* 128 sub-buckets per octave */
/* Row 0 holds 0..255 in two blocks of 128; rows 1..55 one octave each. */
#define HIST_BUCKETS (57 << HIST_SUB_BITS) /* 7296 */
#define HIST_MAX_VALUE ((uint64_t)INT64_MAX)

struct histogram {
    /*
     * The bucket of v is (r << 7) + (v >> r) with r = max(0, floor(log2 v) - 7):
     * row 0 uses slots 0..255, row r >= 1 slots (r+1)*128 .. (r+1)*128+127.
     * INT64_MAX has r = 55 and slot 7295, the last one.
     */
    _Atomic uint64_t bucket[HIST_BUCKETS];
    _Atomic uint64_t count;    /* values recorded */
    _Atomic uint64_t overflow; /* values above HIST_MAX_VALUE, clamped */
    _Atomic uint64_t sum_lo;   /* exact 128-bit sum of the (clamped) values */
    _Atomic uint64_t sum_hi;
    _Atomic uint64_t min; /* UINT64_MAX while empty */
    _Atomic uint64_t max; /* 0 while empty */
};

/* Makes *h empty. */
void hist_init(struct histogram *h);

/* The slot of v (v <= HIST_MAX_VALUE). OR-ing 255 makes 0..255 land in row 0. */
static inline unsigned hist_slot_of(uint64_t v)
{
    unsigned r = (unsigned)(63 - __builtin_clzll(v | 255)) - HIST_SUB_BITS;
    return (r << HIST_SUB_BITS) + (unsigned)(v >> r);
}

/*
 * Adds one value. O(1); its only branch is the rarely taken sum carry.
 * Single writer only. Inline: a UDP receiver records every datagram's
 * delay variation, and a call costs as much as the recording.
 */
static inline void hist_record(struct histogram *h, uint64_t v)
{
    /* Both compile to conditional moves; overflow adds 0 or 1. */
    uint64_t over = v > HIST_MAX_VALUE;
    v = over ? HIST_MAX_VALUE : v;

    _Atomic uint64_t *b = &h->bucket[hist_slot_of(v)];
    atomic_store_explicit(b, atomic_load_explicit(b, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&h->count, atomic_load_explicit(&h->count, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&h->overflow,
                          atomic_load_explicit(&h->overflow, memory_order_relaxed) + over,
                          memory_order_relaxed);

    uint64_t lo = atomic_load_explicit(&h->sum_lo, memory_order_relaxed) + v;
    atomic_store_explicit(&h->sum_lo, lo, memory_order_relaxed);
    /* The carry is rare (once per 2^64 ns summed) and so well predicted. */
    if (lo < v)
        atomic_store_explicit(&h->sum_hi,
                              atomic_load_explicit(&h->sum_hi, memory_order_relaxed) + 1,
                              memory_order_relaxed);

    uint64_t mn = atomic_load_explicit(&h->min, memory_order_relaxed);
    uint64_t mx = atomic_load_explicit(&h->max, memory_order_relaxed);
    atomic_store_explicit(&h->min, v < mn ? v : mn, memory_order_relaxed);
    atomic_store_explicit(&h->max, v > mx ? v : mx, memory_order_relaxed);
}

/*
 * Copies src (which may be live) into dst, which must not be shared.
 * dst->count is the sum of the copied buckets, not src->count.
 */
void hist_snapshot(const struct histogram *src, struct histogram *dst);

/*
 * out = now - before: the values recorded between two snapshots of one
 * histogram (before taken first). out may alias neither input. Counts and sum
 * are exact. min and max are exact when the extreme was reached inside the
 * interval (now->max > before->max, or before was empty); otherwise they are
 * the midpoints of the lowest and highest non-empty buckets (within 0.39%).
 */
void hist_subtract(struct histogram *out, const struct histogram *now,
                   const struct histogram *before);

/* dst += src. dst must not be recorded into concurrently. */
void hist_merge(struct histogram *dst, const struct histogram *src);

uint64_t hist_count(const struct histogram *h);
uint64_t hist_overflow(const struct histogram *h);
/* Exact min and max of the recorded values; 0 when empty. */
uint64_t hist_min(const struct histogram *h);
uint64_t hist_max(const struct histogram *h);
/* Exact arithmetic mean (from the 128-bit sum); 0 when empty. */
double hist_mean(const struct histogram *h);

/*
 * The pct-th percentile (pct in [0, 100], clamped) by the nearest-rank
 * definition: the value of rank ceil(pct/100 * n) in sorted order (rank 1
 * for pct 0). Returns the exact min for rank 1 and the exact max for rank n,
 * otherwise the bucket midpoint clamped to [min, max], within 0.39% of the
 * exact value. Returns 0 when empty. Call it on a snapshot for consistent
 * figures; on a live histogram it is race-free but may mix moments.
 */
double hist_percentile(const struct histogram *h, double pct);

#endif
