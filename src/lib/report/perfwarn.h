/* --perf's hardware-counter figures that no run has, and why, in `netab report`'s warnings. */
#ifndef NETAB_REPORT_PERFWARN_H
#define NETAB_REPORT_PERFWARN_H

#include "report/report.h"
#include "report/rundoc.h"

/*
 * For each end, the METRIC_PERF figures (metric/perf.h) no run has a value
 * of while some run's document says why its counter was unavailable: one
 * sentence in r->env_warnings ("both ends: no PMU in this virtual machine,
 * so --perf's cycles/KiB, IPC and L1i misses/KiB are not shown (4 of 4
 * runs)"; one per end where they differ), so that a missing figure reads
 * as a reason, never as 0 or nan. Runs without --perf say nothing.
 * Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_perf_warning(struct creport *r, const struct creport_rundoc *runs,
                                       size_t nruns);

#endif
