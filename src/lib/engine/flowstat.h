/*
 * Results across flows (issue 30): the spread of one figure over the flows
 * of a test (transactions per flow, each flow's p99) and Jain's fairness
 * index. Pure computation, so tests check it against values worked by hand.
 */
#ifndef NETAB_ENGINE_FLOWSTAT_H
#define NETAB_ENGINE_FLOWSTAT_H

#include <stdint.h>

struct flow_spread {
    int n;
    int zero; /* flows whose figure is 0 (that got nothing) */
    double min, p1, p10, median, p90, max, mean;
    /*
     * Jain's fairness index, (sum x)^2 / (n * sum x^2): 1 when every flow
     * got the same, 1/n when one flow got everything; -1 when undefined
     * (no flows, or all got nothing).
     */
    double jain;
    double sum;
};

/* Jain's index of v[0..n), as above. */
double flowstat_jain(const double *v, int n);

/*
 * The pct-th percentile of v[0..n) sorted ascending, by nearest rank as
 * measure/histogram.h defines it: the value of rank ceil(pct/100 * n), rank
 * 1 for pct 0. 0 when n is 0.
 */
double flowstat_rank(const double *sorted, int n, double pct);

/* Fills out from v[0..n) (not modified). Returns 0 or -ENOMEM. */
int flowstat_spread(const double *v, int n, struct flow_spread *out);

#endif
