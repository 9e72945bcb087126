/*
 * The latency-under-load test's probe statistics (docs/rrul.md), pure
 * functions of the round trips: exact percentiles, the trimmed mean and RPM
 * with its confidence interval.
 */
#ifndef NETAB_RRUL_PROBE_STATS_H
#define NETAB_RRUL_PROBE_STATS_H

#include <stddef.h>

#include "util/err.h"

/* Percentiles of round trips, in the unit given; all NAN for no value. */
struct probe_summary {
    size_t n;
    double p50, p90, p99, p999, max, min, mean;
};

/*
 * Sorts v[0..n-1] ascending in place and summarises it: percentiles by
 * linear interpolation between order statistics (Hyndman-Fan type 7, R's
 * and numpy's default), exact, from every value (no histogram).
 */
void probe_summarize(double *v, size_t n, struct probe_summary *out);

/*
 * The fraction of the largest round trips RPM leaves out. IETF
 * draft-ietf-ippm-responsiveness ("Responsiveness under Working
 * Conditions", datatracker.ietf.org/doc/draft-ietf-ippm-responsiveness/)
 * aggregates its latency samples with a trimmed mean that drops the top 5%
 * (its 95th-percentile trimmed mean) and reports 60 s over it as Round-trips
 * Per Minute; netab applies that formula to its UDP probes' round trips,
 * not to the draft's HTTP/TLS probes.
 */
#define PROBE_RPM_TRIM 0.05

/*
 * The mean of sorted[0..n-1] (ascending) without its largest
 * floor(n * PROBE_RPM_TRIM) values; NAN for n 0.
 */
double probe_trimmed_mean(const double *sorted, size_t n);

/*
 * RPM, round trips per minute, from the round trips sorted[0..n-1] in
 * milliseconds (ascending): 60000 / the trimmed mean, and a conf (0.95)
 * percentile bootstrap interval of it (1000 resamples of the round trips,
 * fewer, down to 200, beyond 100,000 of them; seeded,
 * so the same round trips always give the same interval). Returns 0, or
 * -EDOM with the figures NAN for no round trip or a trimmed mean of 0,
 * -ENOMEM.
 */
NB_MUST_CHECK int probe_rpm(const double *sorted_ms, size_t n, double conf, double *rpm, double *lo,
                            double *hi);

#endif
