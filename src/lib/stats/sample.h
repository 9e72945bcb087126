/*
 * A sample set prepared once for every statistic that needs order or ranks.
 *
 * The statistics code needs the values in run order (for drift), sorted (for
 * medians, percentiles, fences and Mann-Whitney) and their ranks (for the
 * Spearman trend test, found in the sorted copy). Sorting a million values
 * is the most expensive step of `netab stats`, so it happens once, here.
 * A sample holds 8 bytes per value (16 in a frame other than the identity).
 */
#ifndef NETAB_STATS_SAMPLE_H
#define NETAB_STATS_SAMPLE_H

#include <stddef.h>

#include "util/err.h"

struct stats_sample {
    /*
     * Values in run order, in the sample's frame: x[i] = (v[i] - offset) * 2^exp
     * for the caller's values v. With the identity frame (offset 0, exp 0)
     * they are the caller's array, borrowed; otherwise an owned copy.
     */
    const double *x;
    double *framed; /* the owned copy behind x, or NULL */
    double offset;  /* subtracted from every value before anything is accumulated */
    int exp;        /* then scaled by 2^exp (exact), so that sums of squares neither
                       overflow nor underflow */
    double *sorted; /* ascending copy; owned by the sample */
    size_t n;
    double sum;    /* sum of x, accumulated with Kahan compensation */
    double mean;   /* arithmetic mean */
    double var;    /* unbiased sample variance (n - 1 denominator) */
    size_t n_ties; /* values that share their value with another value */
};

/*
 * Prepares s from x[0..n-1]. x must stay alive and unchanged while s is used;
 * every value must be finite (the input layer guarantees it). Returns 0,
 * -EINVAL if n < 1 or a value is not finite, or -ENOMEM. On failure s holds
 * nothing that needs freeing. Release with stats_sample_free().
 */
NB_MUST_CHECK int stats_sample_init(struct stats_sample *s, const double *x, size_t n);

/*
 * A frame in which values of very different magnitude can be summarised and
 * compared without losing digits: every value v becomes (v - offset) * 2^exp.
 * Subtracting a shared offset first keeps 1e15 + 1 and 1e15 + 2 apart
 * through every sum; scaling by a power of two (exact) moves values around
 * 1e154 or 1e-310 into a range where squares neither overflow nor vanish.
 */
struct stats_frame {
    double offset;
    int exp;
};

/*
 * Chooses the frame for the sets sets[0..nsets-1] (ns[i] values each, in the
 * order they will be compared, baseline first): offset is the baseline's
 * first value, exp the power of two that brings the largest |v - offset| into
 * [0.5, 1). Returns 0, or -ERANGE with a sentence in err when two values lie
 * so far apart (more than about 1e307) that their differences cannot be held
 * in a double.
 */
NB_MUST_CHECK int stats_frame_choose(const double *const *sets, const size_t *ns, size_t nsets,
                                     struct stats_frame *out, char *err, size_t errlen);

/*
 * Like stats_sample_init() in frame f: every statistic computed on s is in
 * that frame until stats_unframe_loc()/stats_unframe_spread() turn it back
 * into the caller's units. Returns 0, -EINVAL (n < 1, a value not finite or
 * not finite in the frame) or -ENOMEM.
 */
NB_MUST_CHECK int stats_sample_init_frame(struct stats_sample *s, const double *x, size_t n,
                                          const struct stats_frame *f);

/* A location (mean, median, quantile, interval end) of s back in the caller's units. */
double stats_unframe_loc(const struct stats_sample *s, double v);

/* A spread or difference (stddev, diff of means) of s back in the caller's units. */
double stats_unframe_spread(const struct stats_sample *s, double v);

/* The frame's offset in frame units: the true mean of s is s->mean + stats_frame_origin(s). */
double stats_frame_origin(const struct stats_sample *s);

/* Frees what stats_sample_init() allocated; safe on a zeroed struct. */
void stats_sample_free(struct stats_sample *s);

/*
 * The p-quantile (0 <= p <= 1) of a sorted array by linear interpolation
 * between order statistics (Hyndman-Fan type 7, the default of R and numpy).
 */
double stats_quantile_sorted(const double *sorted, size_t n, double p);

#endif
