/*
 * Options shared by every statistics routine: confidence, noise floor,
 * direction of the metric and the bootstrap's size and seed.
 */
#ifndef NETAB_STATS_OPTS_H
#define NETAB_STATS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/opttable.h"

/*
 * What the order of a set's values says (`netab stats --order`). Drift is a
 * claim about run order, so it is made only where the order is run order.
 */
enum stats_order {
    STATS_ORDER_RUN = 0, /* run order as netab recorded it (compare, report): drift judged */
    STATS_ORDER_FILE,    /* a file said to be in run order (netab stats' default): a set in
                            sorted order is taken for sorted, with no drift claimed */
    STATS_ORDER_UNKNOWN, /* not run order (--order unknown): no run-order claim at all */
};

struct stats_opts {
    double confidence;      /* two-sided confidence level in (0, 1), e.g. 0.95 */
    double noise;           /* noise floor as a fraction of the baseline, e.g. 0.01 */
    bool lower_is_better;   /* latency and CPU cost: a smaller value is an improvement */
    uint64_t seed;          /* bootstrap seed; equal seeds give equal intervals */
    size_t resamples;       /* bootstrap resamples, >= 10,000 by default */
    size_t boot_means_cap;  /* resample means only when n_a + n_b <= this; else Fieller */
    enum stats_order order; /* what the values' order says; STATS_ORDER_RUN by default */
};

/* Default: 95 % confidence, 1 % noise floor, higher is better, 10,000 resamples. */
void stats_opts_default(struct stats_opts *o);

/*
 * The words of `netab stats --order`: "run" (the values are in run order as
 * a file says: STATS_ORDER_FILE, so a sorted file is told apart) and
 * "unknown" (STATS_ORDER_UNKNOWN).
 */
extern const struct opt_choice stats_order_choices[];

#endif
