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
