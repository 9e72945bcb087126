/*
 * The counters section of `netab report`: the per-run diagnostic figures
 * (perf counters, kernel counter deltas, pinned-CPU service demand) whose
 * median differs between a variant and the baseline in the same cell. They
 * explain a change (more context switches, receive-buffer drops, fewer
 * instructions per KiB) rather than decide it, so they are listed, not
 * judged.
 */
#ifndef NETAB_CREPORT_CAMPAIGN_REPORT_COUNTERS_H
#define NETAB_CREPORT_CAMPAIGN_REPORT_COUNTERS_H

#include <stdio.h>

#include "creport/campaign_report.h"
#include "creport/campaign_report_rundoc.h"

/* A median must differ by more than this share of the larger one to be listed. */
#define CREPORT_COUNTER_DIFF 0.10

/*
 * Fills r->counter_diffs from the measured ok runs (plan warm-ups left
 * out): [{"variant", "cell", "figure" (dotted path), "baseline", "value"
 * (medians), "runs", "baseline_runs"}]. Runs without the figure (older
 * netab, NETAB_NO_COUNTERS) do not count. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_counter_diffs(struct creport *r, const struct store_plan_row *plan,
                                        size_t nplan, const struct creport_rundoc *runs,
                                        size_t nruns);

#endif
