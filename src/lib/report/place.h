/*
 * Which stored runs a campaign report counts and where (place.c):
 * each ok run of the plan placed in its variant and cell, the run list of
 * the run order figure, the command each variant ran and each cell's test.
 * creport_build() calls these in that order.
 */
#ifndef NETAB_REPORT_PLACE_H
#define NETAB_REPORT_PLACE_H

#include <stddef.h>

#include "report/report.h"
#include "report/rundoc.h"

/* One measured ok run per planned seq (the first), in its variant and cell. */
struct creport_placed {
    const struct creport_rundoc *doc; /* the run and its parsed documents */
    size_t v, c;
    size_t listed; /* its entry in r->runlist, which holds its metrics' values */
};

/* Index of name in list[0..n-1], or -1. */
long creport_find_name(char *const *list, size_t n, const char *name);

NB_MUST_CHECK int creport_place_runs(struct creport *r, const struct store_plan_row *plan,
                                     size_t nplan, const struct creport_rundoc *runs, size_t nruns,
                                     struct creport_placed **out, size_t *nout);

/* Fills each cell's test from its first measured run that names one. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int creport_find_tests(struct creport *r, const struct creport_placed *p, size_t n);

#endif
