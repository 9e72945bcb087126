/*
 * Mann-Whitney U test (Wilcoxon rank-sum), two-sided: does one set tend to
 * give larger values than the other? It needs no normality, so it guards the
 * Welch test against skewed or heavy-tailed benchmark data.
 */
#ifndef NETAB_STATS_MANNWHITNEY_H
#define NETAB_STATS_MANNWHITNEY_H

#include <stdbool.h>

#include "stats/sample.h"

/*
 * The exact null distribution is used when the smaller set has at most
 * STATS_MW_EXACT_MAX values and no value occurs twice, as scipy's
 * mannwhitneyu(method="auto") (1.10) does, and n_a * n_b is at most
 * STATS_MW_EXACT_CELLS, which bounds its cost (about n_a * n_b / 2 doubles);
 * scipy cannot compute those larger cases at all (docs/stats.md).
 */
#define STATS_MW_EXACT_MAX 8
#define STATS_MW_EXACT_CELLS 10000000

struct stats_mw {
    double u;   /* U statistic of the baseline a (as scipy.stats.mannwhitneyu(a, b)) */
    double z;   /* normal score (NaN when exact) */
    double p;   /* two-sided p-value */
    bool exact; /* true: exact distribution; false: normal, tie and continuity corrected */
};

/*
 * Ranks a and b jointly by merging their sorted copies (O(n_a + n_b)). Exact
 * when the smaller set has at most STATS_MW_EXACT_MAX values, there are no
 * ties across or within the sets and n_a * n_b <= STATS_MW_EXACT_CELLS;
 * otherwise the normal approximation with tie correction of the variance
 * and a continuity correction of 0.5. The p-value is that of
 * scipy.stats.mannwhitneyu(a, b, alternative="two-sided") (scipy 1.10).
 */
void stats_mannwhitney(const struct stats_sample *a, const struct stats_sample *b,
                       struct stats_mw *out);

#endif
