/*
 * --perf's hardware-counter figures as report metrics (METRIC_PERF rows of
 * metric.c): cycles per KiB, IPC, L1-icache misses per KiB of each end.
 * The run document holds the counters and some ratios (end.perf.SIDE,
 * docs/json.md); the icache misses per KiB are derived here from them, so
 * that stored runs of any netab with --perf have the figure. Where a run's
 * counters were unavailable (no PMU in a virtual machine) the document
 * says why in words (end.perf.SIDE.unavailable), and so must the report.
 */
#ifndef NETAB_METRIC_PERF_H
#define NETAB_METRIC_PERF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "metric/metric.h"

/*
 * A figure the document does not hold but its counters give, at path
 * ("end.perf.local.l1i_misses_per_kib": L1-icache misses / instructions x
 * instructions_per_kib, from the counters the ratios were made of: the
 * CPU's when pinned, else the threads'). True with *out, false without.
 */
bool metric_perf_derived(const json_t *doc, const char *path, double *out);

/*
 * Why a METRIC_PERF figure m is missing from a run: the document's reason
 * for the counter it needs ("no PMU in this virtual machine"), or NULL
 * (the run did not ask for --perf (test.perf), or the counter was there).
 * Points into doc.
 */
const char *metric_perf_unavailable(const json_t *doc, const struct metric *m);

#endif
