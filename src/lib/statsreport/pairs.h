/*
 * Every pair of variants on one metric under a Bonferroni correction, the
 * piece that `netab report --pairs all` and `netab compare --pairs all`
 * share: with k = n(n-1)/2 pairs, each comparison's interval is at
 * 1 - (1 - C) / k and its Welch p is multiplied by k (capped at 1) before it
 * is held against 1 - C, so that the family of the k comparisons holds at the
 * confidence C asked for. A pair is a struct report_pair, written as the
 * JSON object of docs/report.md and docs/compare.md; the printers take
 * either and word both alike, so that text and JSON cannot disagree.
 */
#ifndef NETAB_STATSREPORT_PAIRS_H
#define NETAB_STATSREPORT_PAIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "stats/compare.h"
#include "stats/opts.h"
#include "util/err.h"

/* One variant's values of the metric, in run order; borrowed. */
struct report_pair_set {
    const char *name;
    const double *values;
    size_t n;
    double mean; /* shown as mean_a / mean_b */
};

/* One pair: set b compared with set a (indices into the sets, a < b). */
struct report_pair {
    size_t a, b;
    size_t n_a, n_b;
    double mean_a, mean_b;
    bool compared; /* false: a set has fewer than 2 values, and c is not filled */
    struct stats_comparison c;
    double p_bonferroni; /* c.welch.p corrected (report_pairs_adjust()) */
};

/* n(n-1)/2: the pairs among nvariants variants (0 for none). */
size_t report_pairs_count(size_t nvariants);

/* The per-comparison level: 1 - (1 - family) / npairs when npairs > 1, else family. */
double report_pairs_level(double family, size_t npairs);

/* The corrected p: p x npairs, capped at 1 (p itself with one pair or none). */
double report_pairs_adjust(double p, size_t npairs);

/*
 * Compares every pair (a before b in set order) of the nsets sets, b against
 * a, under so (so->confidence is already the corrected level; its seed drives
 * the bootstrap) and appends one object per pair to out: a copy of head's
 * members (e.g. "cell", "metric"), then "a", "b", "n_a", "n_b", "mean_a",
 * "mean_b", "decided_on", "diff", "diff_ci_low", "diff_ci_high",
 * "rel_change_pct", its interval, "welch_p", "p_bonferroni" (npairs is the
 * correction's k) and "verdict"; or "not_compared" with the reason when a
 * set has fewer than 2 values. Returns 0, -ENOMEM, or another negative errno
 * from stats_report_analyse() with a sentence in err.
 */
NB_MUST_CHECK int report_pairs_add(json_t *out, const json_t *head,
                                   const struct report_pair_set *sets, size_t nsets,
                                   const struct stats_opts *so, size_t npairs, char *err,
                                   size_t errlen);

/*
 * Compares every pair as report_pairs_add() does into out
 * ([report_pairs_count(nsets)], a before b in set order). Returns 0,
 * -ENOMEM, or another negative errno from stats_report_analyse() with a
 * sentence in err.
 */
NB_MUST_CHECK int report_pairs_compute(const struct report_pair_set *sets, size_t nsets,
                                       const struct stats_opts *so, size_t npairs,
                                       struct report_pair *out, char *err, size_t errlen);

/* Pair p as report_pairs_add() writes it after head's members; a and b are the sets' names. */
json_t *report_pair_json(const struct report_pair *p, const char *a, const char *b);

/*
 * The JSON "correction" member: {"method": "bonferroni", "pairs",
 * "family_confidence", "comparison_confidence"}. NULL when out of memory.
 */
json_t *report_pairs_correction_json(size_t npairs, double confidence, double family);

/*
 * The sentence that states the correction (confidence: the per-comparison
 * level; family: the one asked for), as every output of the pairs says it.
 */
void report_pairs_correction(char *b, size_t n, size_t npairs, double confidence, double family);

/* A pair's change with its interval: "+2.53% [+1.20, +3.84]", or "diff +5.1 [...]". */
void report_pair_change(const json_t *p, char *b, size_t n);

/* "a -> b: <change> p=0.0021 (x3: 0.0063) regressed", or "a -> b: not compared: <why>". */
void report_pair_line(const json_t *p, size_t npairs, char *b, size_t n);

/*
 * The same of a struct report_pair whose sets are called a and bname; a
 * figure that is not finite (null in the JSON) is worded as the JSON ones are.
 */
void report_pair_change_of(const struct report_pair *p, char *b, size_t n);
void report_pair_line_of(const struct report_pair *p, const char *a, const char *bname,
                         size_t npairs, char *b, size_t n);

/* The section's first lines in text: what a line shows and the correction, wrapped. */
void report_pairs_print_intro(FILE *f, size_t npairs, double confidence, double family);

/* report_pair_line() of p, indented under its heading and wrapped at 72 columns. */
void report_pairs_print_line(FILE *f, const json_t *p, size_t npairs);
void report_pairs_print_pair(FILE *f, const struct report_pair *p, const char *a, const char *b,
                             size_t npairs);

#endif
