/*
 * The cell template of `netab report --cell` and of an experiment file's
 * `report: {cell: ...}` (docs/report.md, "The cells you ask for"): text with
 * placeholders, `{TEST:METRIC}` (that test's runs) or `{METRIC}` (every run
 * of the cell), parsed once here so that `netab experiment validate` and
 * `netab report` refuse the same templates with the same words. A metric is
 * a figure of the report (METRIC_REPORT in metric.c), a test a test kind's
 * name; the report resolves both against an experiment's cells.
 */
#ifndef NETAB_METRIC_CELLTPL_H
#define NETAB_METRIC_CELLTPL_H

#include <stddef.h>

#include "metric/metric.h"
#include "util/err.h"

/* The longest template, and the most placeholders, a template may hold. */
#define CELLTPL_MAX_LEN 1024
#define CELLTPL_MAX_PH 32

/* One piece of a template: literal text, or a placeholder (metric set). */
struct celltpl_part {
    char *text;                  /* the literal text, braces unescaped; NULL for a placeholder */
    char *test;                  /* a placeholder's TEST ("tcp_stream"); NULL for {METRIC} */
    const struct metric *metric; /* a placeholder's figure (static storage); NULL for text */
    char *source;                /* the placeholder as written, "{tcp_stream:throughput}" */
};

struct celltpl {
    struct celltpl_part *parts; /* in template order */
    size_t nparts;
    size_t nph; /* placeholders among the parts, >= 1 */
};

/*
 * Parses template s into *out: literal text ("{{" and "}}" stand for '{'
 * and '}') and placeholders {METRIC} or {TEST:METRIC}. -EINVAL with a
 * sentence naming the placeholder for an unclosed '{', a stray '}', an
 * empty placeholder, an unknown test or metric, a metric the test does not
 * measure, a control character, no placeholder at all, or more than
 * CELLTPL_MAX_LEN bytes or CELLTPL_MAX_PH placeholders; -ENOMEM. On success
 * the caller frees *out with celltpl_free(); on failure *out is empty.
 */
NB_MUST_CHECK int celltpl_parse(const char *s, struct celltpl *out, char *err, size_t errlen);

void celltpl_free(struct celltpl *t);

#endif
