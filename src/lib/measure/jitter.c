/* RFC 3550 interarrival jitter; see jitter.h. */
#include "measure/jitter.h"

void jitter_init(struct jitter *j)
{
    atomic_store_explicit(&j->j_ns, 0.0, memory_order_relaxed);
    atomic_store_explicit(&j->arrivals, 0, memory_order_relaxed);
    j->prev_transit = 0;
    j->have_prev = 0;
    hist_init(&j->abs_d);
}

void jitter_record(struct jitter *j, int64_t send_ns, int64_t arrival_ns)
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

double jitter_rfc3550_ns(const struct jitter *j)
{
    return atomic_load_explicit(&j->j_ns, memory_order_relaxed);
}

double jitter_mean_abs_ns(const struct jitter *j)
{
    return hist_mean(&j->abs_d);
}

double jitter_p99_abs_ns(const struct jitter *j)
{
    return hist_percentile(&j->abs_d, 99.0);
}
