/*
 * What `netab compare` measures in each run: the named metrics of a
 * `netab run --json` document, a custom dotted path, or a number that an
 * external command prints (found by a regular expression).
 */
#ifndef NETAB_COMPARE_METRICS_H
#define NETAB_COMPARE_METRICS_H

#include <stdbool.h>
#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

struct compare_metric {
    const char *name;     /* "throughput", ... or the custom path itself */
    const char *path;     /* dotted path into the run's JSON; NULL for a regex metric */
    const char *unit;     /* for the report: "bit/s", "us/KiB", ... ("" if unknown) */
    bool lower_is_better; /* latency, loss and CPU cost */
    bool always;          /* present in every tcp_stream result (else: where the test has it) */
    bool flows;           /* listed only where a run has it (METRIC_WHERE_PRESENT) */
};

/*
 * The named metrics of netab run: the figures metric/metric.h marks
 * METRIC_COMPARE, in its order; *n receives their count. Static storage.
 */
const struct compare_metric *compare_builtin_metrics(size_t *n);

/* The named metric called name (or with that path, metric_find()), or NULL. */
const struct compare_metric *compare_metric_find(const char *name);

/*
 * Takes the number at path from the parsed document doc. Returns 0 and sets
 * *out, or -ENOENT (absent or null), -EINVAL (not a finite number) with a
 * sentence in err.
 */
NB_MUST_CHECK int compare_metric_from_doc(json_t *doc, const char *path, double *out, char *err,
                                          size_t errlen);

/* compare_metric_from_doc() of text parsed; -EINVAL with the parse error when it is not JSON. */
NB_MUST_CHECK int compare_metric_from_json(const char *text, const char *path, double *out,
                                           char *err, size_t errlen);

/*
 * Compiles re (util/pattern.h: PCRE2) and checks that it has exactly one capture
 * group. Returns 0 or -EINVAL with the reason in err.
 */
NB_MUST_CHECK int compare_regex_check(const char *re, char *err, size_t errlen);

/*
 * The number captured by re's group in the last match in text (benchmarks
 * print their summary last). Returns 0, -ENOENT (no match) or -EINVAL (the
 * capture is not a number) with a sentence in err.
 */
NB_MUST_CHECK int compare_metric_from_regex(const char *text, const char *re, double *out,
                                            char *err, size_t errlen);

#endif
