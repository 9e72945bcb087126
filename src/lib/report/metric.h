/*
 * The metrics of one report (docs/report.md "Metrics"): the built-in store
 * figures of metric/metric.h (METRIC_REPORT), and any figure of the stored run documents
 * named by a dotted path (`--metric perf.local.task_clock`,
 * `--metric kernel.remote.Udp.RcvbufErrors`), read with the one JSON path
 * reader that `netab compare --metric` uses (input/json_path.h).
 */
#ifndef NETAB_REPORT_METRIC_H
#define NETAB_REPORT_METRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

/*
 * True when name is a built-in metric or a path metric: a dotted path
 * ("perf.local.task_clock" stands for "end.perf.local.task_clock"; a path
 * may start with "end."), optionally followed by ":lower" or ":higher" to
 * say which way is better. Otherwise false with a sentence in err that
 * lists the built-in names.
 */
bool creport_metric_valid(const char *name, char *err, size_t errlen);

/*
 * The metrics of a report: every METRIC_REPORT figure of metric/metric.h, in
 * its order, then one path metric for each of names[0..n-1] that is not built-in
 * (repeats once). -EINVAL with a message for a name creport_metric_valid()
 * refuses, -ENOMEM. *out is the caller's (creport_metrics_free()).
 */
NB_MUST_CHECK int creport_metrics_build(const char *const *names, size_t n,
                                        struct creport_metric **out, size_t *nout, char *err,
                                        size_t errlen);

void creport_metrics_free(struct creport_metric *m, size_t n);

/* The index in m[0..n-1] of the metric called name (as given to --metric); n if none. */
size_t creport_metric_index(const struct creport_metric *m, size_t n, const char *name);

/*
 * The value of metric m for run in display units, NAN when the run has none.
 * A path metric reads doc, run->result_json as parsed once for the report
 * (rundoc.h; NULL when the run has none): an absent or
 * non-numeric figure is NAN (the run is left out of that metric, never
 * given a made-up value), except a kernel counter (end.kernel.local.* or
 * end.kernel.remote.*) of a run whose end.kernel.local/remote is an object:
 * those record only the counters that changed, so an absent one is 0.
 */
double creport_metric_value(const struct creport_metric *m, const struct store_run *run,
                            json_t *doc);

#endif
