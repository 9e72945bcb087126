/*
 * The counters section of `netab report`: the per-run diagnostic figures
 * (perf counters, kernel counter deltas, pinned-CPU service demand) whose
 * median differs between a variant and the baseline in the same cell. They
 * explain a change (more context switches, receive-buffer drops, fewer
 * instructions per KiB) rather than decide it, so they are listed, not
 * judged.
 */
#ifndef NETAB_REPORT_COUNTERS_H
#define NETAB_REPORT_COUNTERS_H

#include <stdio.h>

#include "report/report.h"
#include "report/rundoc.h"

/* A median must differ by more than this share of the larger one to be listed. */
#define CREPORT_COUNTER_DIFF 0.10

/* One figure whose median differs between variant v and the baseline in cell c. */
struct creport_counter_diff {
    size_t v, c;
    char *variant, *cell;
    const char *figure;         /* dotted path, "end.perf.local.ipc"; static */
    double baseline, value;     /* medians */
    bool has_change_pct;        /* none from a baseline of 0 */
    double change_pct;          /* the change in percent of the baseline's median */
    size_t runs, baseline_runs; /* runs with the figure */
};

/*
 * Fills r->counter_diffs from the measured ok runs (plan warm-ups left
 * out). Runs without the figure (older netab, NETAB_NO_COUNTERS) do not
 * count. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_counter_diffs(struct creport *r, const struct store_plan_row *plan,
                                        size_t nplan, const struct creport_rundoc *runs,
                                        size_t nruns);

/* Releases r->counter_diffs. */
void creport_counter_diffs_free(struct creport *r);

/*
 * r->counter_diffs as the JSON's counter_differences: [{"variant", "cell",
 * "figure", "baseline", "value", "change_pct" (or null), "runs",
 * "baseline_runs"}]; NULL when out of memory.
 */
json_t *creport_counters_json(const struct creport *r);

#endif
