/* The hypervisor's steal time in `netab report`'s warnings (the rule: metric/steal.h). */
#ifndef NETAB_REPORT_STEAL_H
#define NETAB_REPORT_STEAL_H

#include "report/report.h"
#include "report/rundoc.h"

/*
 * Counts the steal figure of every run with a stored result among
 * runs[0..nruns) (their steal_pct) and, when some run's is above METRIC_STEAL_WARN_PCT, appends
 * metric_steal_sentence() to r->env_warnings. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_steal_warning(struct creport *r, const struct creport_rundoc *runs,
                                        size_t nruns);

#endif
