/*
 * --pairs all: every pair of variants compared in each cell on its deciding
 * metric, under a Bonferroni correction that keeps the family of the
 * k = n(n-1)/2 comparisons of a cell at the confidence asked for: each
 * comparison's interval is at 1 - (1 - confidence) / k and its p-value is
 * multiplied by k (capped at 1) before it is held against 1 - confidence.
 */
#ifndef NETAB_REPORT_PAIRS_H
#define NETAB_REPORT_PAIRS_H

#include <stdio.h>

#include "report/report.h"
#include "statsreport/pairs.h"

/*
 * One pair of r->pairs: in cell c on metric m (the cell's deciding one),
 * variant p.b against variant p.a (report_pair's set indices are the
 * report's variant indices).
 */
struct creport_pair {
    size_t c, m;
    struct report_pair p;
};

/*
 * Before the comparisons: with r->opts.pairs_all and three variants or
 * more, sets r->npairs and r->family_confidence and lowers r->opts.confidence
 * to the per-comparison level, so that the tables' comparisons with the
 * baseline are corrected too.
 */
void creport_pairs_correct(struct creport *r);

/*
 * With r->opts.pairs_all, fills r->pairs (r->npair_rows of them) with every
 * pair (a before b in report order) of every cell on its deciding metric,
 * the cells in report order; seed is the
 * experiment's, for the bootstrap. Returns 0, -ENOMEM, or another negative
 * errno from the statistics with a sentence in err.
 */
NB_MUST_CHECK int creport_pairs(struct creport *r, uint64_t seed, char *err, size_t errlen);

/* The JSON "pairs" member: every pair of r->pairs; NULL when out of memory. */
json_t *creport_pairs_json(const struct creport *r);

#endif
