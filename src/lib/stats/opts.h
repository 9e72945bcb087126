/*
 * Options shared by every statistics routine: confidence, noise floor,
 * direction of the metric and the bootstrap's size and seed.
 */
#ifndef NETAB_STATS_OPTS_H
#define NETAB_STATS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_opts {
    double confidence;     /* two-sided confidence level in (0, 1), e.g. 0.95 */
    double noise;          /* noise floor as a fraction of the baseline, e.g. 0.01 */
    bool lower_is_better;  /* latency and CPU cost: a smaller value is an improvement */
    uint64_t seed;         /* bootstrap seed; equal seeds give equal intervals */
    size_t resamples;      /* bootstrap resamples, >= 10,000 by default */
    size_t boot_means_cap; /* resample means only when n_a + n_b <= this; else Fieller */
};

/* Default: 95 % confidence, 1 % noise floor, higher is better, 10,000 resamples. */
void stats_opts_default(struct stats_opts *o);

#endif
