/*
 * The statistics report of `netab stats` and `netab compare`: sets of
 * numbers, each described (summary, checks, warnings), and every set
 * compared with the first, the baseline, with the comparison's warnings.
 *
 * Building (stats_report.c) is pure computation on values the caller
 * supplies; where they came from (files, runs of a campaign) is the
 * caller's business. The printers write the text report with its
 * ministat-style plot (stats_report_text.c), the JSON document of
 * docs/stats.md and the CSV tables (stats_report_data.c).
 */
#ifndef NETAB_STATSREPORT_STATS_REPORT_H
#define NETAB_STATSREPORT_STATS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "input/input.h"
#include "stats/compare.h"
#include "stats/opts.h"
#include "stats/sample.h"
#include "stats/summary.h"
#include "stats/warnings.h"
#include "util/err.h"

/* Comparison warnings: both sets' own warnings plus up to three about the comparison. */
#define STATS_REPORT_CMP_WARNINGS (2 * STATS_WARNING_MAX + 4)

/* Run counts from this on are reported as "more than", not as a number. */
#define STATS_REPORT_RUNS_COUNTABLE 1000000000u
/* Distinct text plot marks: one for each of compare's 64 variants at most. */
#define STATS_REPORT_MARKS 64
/*
 * The most sets `netab stats` takes: each has its own text mark and its own
 * colour and shape in the figure (plot/: 7 colours x 5 shapes, 35 pairs).
 */
#define STATS_REPORT_MAX_SETS 35

struct stats_report_set {
    char *name;         /* as shown, e.g. "base.txt", "<stdin>", a variant; owned */
    char symbol;        /* the plot mark: x, +, *, ... (distinct for the first 64) */
    const char *format; /* where the values came from, e.g. "plain", "netab" (static) */
    char metric[128];   /* which value of the input, e.g. "end.receiver.bits_per_second" */
    double *values;     /* in run (file) order, as the drift check needs; owned */
    size_t n;
    struct stats_sample sample;
    struct stats_summary sum;
    struct stats_checks checks;
    struct stats_warning warnings[STATS_WARNING_MAX];
    size_t nwarnings;
    bool described; /* sample, sum, checks and warnings are filled (n >= 1) */
    /* Failed runs (`-EINTR`, `FAILED`): counted by word, never among values (input/input.h). */
    struct input_failures fails;
    /*
     * The values' order is not run order, whatever the report's options say
     * (runs imported with their order unknown): no drift or sortedness judged.
     */
    bool order_unknown;
};

struct stats_report_cmp {
    size_t other;  /* index into the set array; the baseline is set 0 */
    bool compared; /* c and the warnings are filled: both sets have n >= 2 */
    struct stats_comparison c;
    struct stats_warning warnings[STATS_REPORT_CMP_WARNINGS];
    size_t nwarnings;
};

struct stats_report {
    struct stats_opts opts;
    struct stats_report_set *sets;
    size_t nsets;
    struct stats_report_cmp *cmps; /* nsets - 1 comparisons, after stats_report_analyse() */
    bool plot;                     /* the text report starts with the distribution plot */
    /*
     * The unit the text report shows values in, and the factor from the
     * values' own unit ("Mbit/s", 1e-6 for bits per second): set by
     * stats_report_read_sets() when every set's input names the same one
     * (input_display_unit()); NULL (and any scale) shows the values as read.
     */
    const char *unit;
    double scale;
};

/*
 * Prepares r for nsets (>= 1) sets with options o and the plot on; the sets
 * get their plot marks here and are filled with stats_report_set_values().
 * Returns 0 or -ENOMEM. Release with stats_report_free(), also on failure.
 */
NB_MUST_CHECK int stats_report_init(struct stats_report *r, size_t nsets,
                                    const struct stats_opts *o);

/*
 * Gives set i its name, origin and values v[0..n-1] in run order; all of them
 * are copied. format is a static string; metric may be NULL. Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int stats_report_set_values(struct stats_report *r, size_t i, const char *name,
                                          const char *format, const char *metric, const double *v,
                                          size_t n);

/*
 * Describes every set that has values and compares each with set 0 where
 * both have two values or more (cmps[i].compared), collecting the
 * comparisons' warnings. `netab stats` and `netab compare` refuse sets with
 * fewer values before this; the campaign report shows what it can. Returns
 * 0 or a negative errno with a sentence in err naming the set:
 * "base.txt: Cannot allocate memory" or "comparing other.txt: ...", or
 * -ERANGE when values lie too far apart to be compared in double precision.
 * Every set is described and compared in one frame (stats/sample.h: the
 * baseline's first value subtracted, scaled by a power of two), so that
 * values near 1e15, 1e154 or 1e-310 keep their digits.
 */
NB_MUST_CHECK int stats_report_analyse(struct stats_report *r, char *err, size_t errlen);

/* true if some comparison made has the verdict "regressed". */
bool stats_report_regressed(const struct stats_report *r);

/* Frees what r holds and zeroes it; safe on a zeroed report. */
void stats_report_free(struct stats_report *r);

/*
 * The printers expect every set described and every comparison made, as
 * after stats_report_analyse() on sets of two values or more.
 *
 * The text report: the plot (if r->plot), the table of sets with intervals
 * and percentiles, then each comparison with its verdict and warnings.
 * Returns 0 or -EIO when writing f failed.
 */
NB_MUST_CHECK int stats_report_print_text(const struct stats_report *r, FILE *f);

/*
 * The `netab stats --json` document of r (docs/stats.md), also each metric's
 * "stats" in `netab compare --json`. Caller has ownership; NULL when out of
 * memory.
 */
json_t *stats_report_json(const struct stats_report *r);

/*
 * The failed runs of f as text, at most n bytes to b: each word with its
 * count, "-EINTR x2", joined by sep ("" when there are none).
 */
void stats_report_failures_text(const struct input_failures *f, const char *sep, char *b, size_t n);

/*
 * CSV (util/csv.h): a table of sets (with each set's failed runs: their
 * number, and their words as stats_report_failures_text() with ';'), an empty line, a table of
 * comparisons with their warnings as ';'-separated kinds. Returns 0 or -EIO.
 */
NB_MUST_CHECK int stats_report_print_csv(const struct stats_report *r, FILE *f);

#endif
