/*
 * Interarrival jitter of one datagram stream, RFC 3550 section 6.4.1, as
 * iperf computes it, plus whole-test figures that iperf lacks.
 *
 * For each datagram, in arrival order (not sequence order), transit =
 * arrival - send and D = transit - transit of the previous arrival. The
 * RFC's estimate is J += (|D| - J) / 16, kept in double nanoseconds (the
 * caller reports milliseconds). Because only differences of transit times
 * enter, a constant offset between the sender's and the receiver's clocks
 * cancels out.
 *
 * One deliberate difference from iperf3: iperf3 starts with a previous
 * transit of 0, so its first datagram adds transit/16 (the whole one-way
 * delay plus the clock offset) to J. Here the first datagram only sets the
 * reference and D starts with the second.
 *
 * J is an exponential average over the last ~16 datagrams, so its final
 * value describes the end of the test only. The histogram abs_d keeps every
 * |D| (ns) so that the mean and the p99 describe the whole test, and so that
 * the caller can snapshot and subtract it for interval figures.
 *
 * Timestamps are int64 nanoseconds on any clocks; differences are taken
 * modulo 2^64, so they are right whenever |D| < 2^63 ns, and never undefined.
 *
 * Concurrency: one writer records; other threads may call the accessors
 * (and hist_snapshot on abs_d) at any time. No allocation; the struct is
 * sizeof(struct histogram) + 32 bytes, about 57 KiB.
 */
#ifndef NETAB_MEASURE_JITTER_H
#define NETAB_MEASURE_JITTER_H

#include <stdatomic.h>
#include <stdint.h>

#include "measure/histogram.h"

struct jitter {
    _Atomic double j_ns;       /* RFC 3550 J, nanoseconds */
    _Atomic uint64_t arrivals; /* datagrams recorded; D values = arrivals - 1 */
    uint64_t prev_transit;     /* writer only: arrival - send mod 2^64 */
    int have_prev;             /* writer only */
    struct histogram abs_d;    /* every |D|, nanoseconds */
};

/* Starts a new stream. */
void jitter_init(struct jitter *j);

/*
 * Accounts for one datagram, in arrival order. O(1). Single writer. Inline,
 * as hist_record: it runs for every datagram a UDP receiver takes.
 */
static inline void jitter_record(struct jitter *j, int64_t send_ns, int64_t arrival_ns)
{
    /* Unsigned arithmetic wraps instead of overflowing; the offset cancels in D. */
    uint64_t transit = (uint64_t)arrival_ns - (uint64_t)send_ns;
    uint64_t d = transit - j->prev_transit;
    int first = !j->have_prev;
    j->prev_transit = transit;
    j->have_prev = 1;
    atomic_store_explicit(&j->arrivals,
                          atomic_load_explicit(&j->arrivals, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (first)
        return;

    /* d holds D modulo 2^64; D is negative when the top bit is set. */
    uint64_t abs_d = d >> 63 ? -d : d;
    hist_record(&j->abs_d, abs_d);
    double jn = atomic_load_explicit(&j->j_ns, memory_order_relaxed);
    jn += ((double)abs_d - jn) / 16.0;
    atomic_store_explicit(&j->j_ns, jn, memory_order_relaxed);
}

/* The RFC 3550 jitter after the last arrival, ns; 0 before two arrivals. */
double jitter_rfc3550_ns(const struct jitter *j);

/* Mean of |D| over the whole stream, ns (exact); 0 before two arrivals. */
double jitter_mean_abs_ns(const struct jitter *j);

/* 99th percentile (nearest rank, within 1%) of |D| over the stream, ns. */
double jitter_p99_abs_ns(const struct jitter *j);

#endif
