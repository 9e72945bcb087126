/*
 * The matrix report of an experiment (`netab report ID`, docs/report.md):
 * for every variant and matrix cell the median of each metric over the
 * measured runs, and every variant compared with the baseline (the first
 * variant) in each cell by the statistics module.
 *
 * Building a report reads the results store only (runs with status ok,
 * warm-ups excluded through the plan); the statistics calls are pure. The
 * printers write text (72 columns, for mailing lists), Markdown, CSV or JSON.
 */
#ifndef NETAB_REPORT_REPORT_H
#define NETAB_REPORT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "layout/layout_hot.h"
#include "stats/compare.h"
#include "stats/opts.h"
#include "metric/metric.h"
#include "profdiff/profdiff.h"
#include "stats/summary.h"
#include "store/store.h"
#include "util/err.h"

/* The widest line the text format writes. */
#define CREPORT_TEXT_WIDTH 72

/* The test kinds of metric/metric.h, under the names the report has always used. */
enum creport_test {
    CREPORT_TCP_STREAM = METRIC_TCP_STREAM,
    CREPORT_UDP_STREAM = METRIC_UDP_STREAM,
    CREPORT_RR = METRIC_RR,   /* tcp_rr, udp_rr */
    CREPORT_CRR = METRIC_CRR, /* tcp_crr */
    CREPORT_UNKNOWN = METRIC_UNKNOWN,
    CREPORT_RRUL = METRIC_RRUL, /* rrul */
};

/*
 * A metric of one report: a figure of metric/metric.h (METRIC_REPORT), or a
 * dotted path the user named (metric.h), scaled for display.
 */
struct creport_metric {
    const char *name;  /* --metric NAME; as in `netab compare --metric` where both have it */
    const char *label; /* short label, e.g. "recv Mbit/s" */
    const char *title; /* heading, e.g. "Receive throughput" */
    const char *unit;  /* display unit: "Mbit/s", "%", "us/KiB", "us", "1/s" */
    bool lower_is_better;
    unsigned tests;     /* enum creport_test bits it is shown for */
    double scale;       /* stored value * scale = displayed value */
    const char *column; /* the store column holding it, or NULL: read path */
    const char *path;   /* dotted path into the run's document */
    bool owned;         /* name, label, title and path are the report's (a user's path) */
};

/*
 * Sections of the text report, for --sections NAME,... (creport_section_parse());
 * the default is the short report: the headline, the changes found, the
 * code layout (when the experiment names layout files), the counter
 * differences where a change was found, the warnings aggregated and the
 * verdict. --full is every section in full.
 */
enum creport_section {
    CREPORT_SEC_HEADLINE = 1 << 0,    /* the headline table */
    CREPORT_SEC_CHANGES = 1 << 1,     /* deciding-metric changes that are not within noise */
    CREPORT_SEC_TABLES = 1 << 2,      /* one table per metric */
    CREPORT_SEC_DETAILS = 1 << 3,     /* every comparison with its interval and p */
    CREPORT_SEC_PAIRS = 1 << 4,       /* --pairs all */
    CREPORT_SEC_EFFECTS = 1 << 5,     /* 2x2 main effects and interactions */
    CREPORT_SEC_VALUES = 1 << 6,      /* sorted values of the deciding metrics */
    CREPORT_SEC_RUNS = 1 << 7,        /* run counts and the rules of the verdicts */
    CREPORT_SEC_LAYOUT = 1 << 8,      /* code layout against the baseline */
    CREPORT_SEC_ENVIRONMENT = 1 << 9, /* environment differences */
    CREPORT_SEC_COUNTERS = 1 << 10,   /* counter differences */
    CREPORT_SEC_WARNINGS = 1 << 11,   /* environment and statistics warnings */
    CREPORT_SEC_VERDICT = 1 << 12,    /* verdict counts and the regression line */
    CREPORT_SEC_CPU = 1 << 13,        /* CPU cost per cell, on the figure that is not polluted */
    CREPORT_SEC_PROFILE = 1 << 14,    /* differential profiles of profiled runs */
};
#define CREPORT_SEC_ALL ((1u << 15) - 1)
#define CREPORT_SEC_DEFAULT                                                                        \
    (CREPORT_SEC_HEADLINE | CREPORT_SEC_CHANGES | CREPORT_SEC_CPU | CREPORT_SEC_PROFILE |          \
     CREPORT_SEC_LAYOUT | CREPORT_SEC_COUNTERS | CREPORT_SEC_WARNINGS | CREPORT_SEC_VERDICT)

/*
 * "headline,changes" into *mask (enum creport_section bits). -EINVAL with a
 * message listing the names for an unknown one.
 */
NB_MUST_CHECK int creport_section_parse(const char *list, unsigned *mask, char *err, size_t errlen);

/* The name of the first section in mask ("headline"), "" for none. */
const char *creport_section_name(unsigned mask);

/* What to report. */
struct creport_opts {
    double confidence; /* e.g. 0.95 */
    double noise;      /* fraction, e.g. 0.01 */
    /* Metrics to show, by name, in this order; NULL/0 = all that apply to each cell's test. */
    const char *const *metrics;
    size_t nmetrics;
    /* --baseline: the variant the others are compared with; NULL = the first one. */
    const char *baseline;
    bool transpose; /* --transpose: cells as rows, variants as columns (text, Markdown, HTML) */
    bool pairs_all; /* --pairs all: also every pair of variants, Bonferroni-corrected */
    /*
     * Text sections to print (enum creport_section); 0: the short default,
     * where counters are only those where a change was found and warnings
     * are aggregated. Any other mask prints its sections in full.
     */
    unsigned sections;
    /*
     * --hot (repeatable): the code layout section's hot set, in place of the
     * experiment's `layout: {hot: [...]}` and of the built-in one; zeroed
     * when not given. The caller owns it (layout_hot_free()); the report
     * keeps pointers into it.
     */
    struct layout_hot hot;
    /*
     * --cell TEMPLATE and --columns AXIS: the cell table (celltable.h),
     * in place of the experiment's report: {cell, columns}; NULL when not given.
     */
    const char *cell, *columns;
};

/* Defaults: 95 % confidence, 1 % noise floor, all metrics. */
void creport_opts_default(struct creport_opts *o);

/*
 * How a change against the baseline is shown, decided once by the model
 * (model.c) so that every format shows the same figure in
 * the same unit: metrics measured in % (CPU utilisation, loss) change in
 * percentage points throughout, others in percent of the baseline's mean,
 * or as a difference in the metric's unit where that ratio is undefined
 * (the baseline's interval reaches 0).
 */
enum creport_change_kind {
    CREPORT_CHANGE_NONE, /* not compared; the entry's why says why */
    CREPORT_CHANGE_PCT,  /* relative change of the mean, % */
    CREPORT_CHANGE_PP,   /* difference of the means, percentage points */
    CREPORT_CHANGE_DIFF, /* difference of the means, the metric's unit */
};

struct creport_change {
    enum creport_change_kind kind;
    double value, lo, hi; /* the change and its interval; a bound may be infinite (unbounded) */
};

/* One (variant, cell, metric) entry. */
struct creport_entry {
    bool shown;     /* the metric applies to the cell's test and some run has a value */
    size_t n;       /* measured ok runs with a finite value */
    double *values; /* those values (display units) in run order; owned */
    double *sorted; /* the same in ascending order (model.c); owned */
    double median;  /* NaN when n == 0 */
    double mean;    /* NaN when n == 0; what the change and the verdict are computed on */
    /* The statistics report's summary of the values (quartiles, the mean's interval). */
    bool has_sum;
    struct stats_summary sum;
    /* Against the baseline in the same cell; not for the baseline itself. */
    bool has_cmp;
    struct stats_comparison cmp;
    char why[96];              /* why there is no comparison, e.g. "baseline has 1 value" */
    struct creport_change chg; /* the change as every format shows it */
    /*
     * Computed once by the model (model.c) for every format:
     * the verdict in words with its p (creport_verdict_words(), "not
     * compared" without a comparison), and stats_verdict_explain()'s
     * sentence (NULL without a comparison).
     */
    char *words, *detail;
    /* Some of its runs were imported with their order unknown: drift is not judged. */
    bool order_unknown;
};

/*
 * The failed runs of one variant in one cell (measured slots; warm-ups not
 * counted): failures are data, shown in the cell as "(fails: SHORT)" and
 * listed with their count and reason, never compared as numbers.
 */
struct creport_fail {
    size_t failed;         /* measured runs that failed */
    size_t ok;             /* measured runs that succeeded */
    char reason[200];      /* the latest failure's error, without netab's framing */
    char short_reason[32]; /* its kind in a few words: "connection refused", "setup exit 3" */
};

struct creport_cell {
    char *name;         /* the plan's cell label ("" when the plan has none) */
    char *test;         /* the test of its runs, e.g. "tcp_stream"; "" if unknown */
    unsigned test_kind; /* enum creport_test */
    int decide;         /* index in the report's metrics of the deciding one; -1 none */
    int cost;           /* the headline's CPU cost metric (model.c); -1 none */
    /*
     * The first cell of its text headline table, which holds every cell
     * with the same deciding and cost metrics (model.c); -1
     * without a deciding metric.
     */
    long table;
    char **values; /* [naxes of the report]: its value on each matrix axis; NULL if unknown */
};

/* Where a function lies in one variant's build (its `layout:` file). */
struct creport_spot {
    bool found;
    char *name; /* the function found: the profile's name, or a clone of it; owned */
    uint64_t addr, size;
    unsigned offset; /* within its line */
    uint64_t lines;  /* lines spanned; 0 when the file gives no size */
    size_t count;    /* functions the name matched (static functions repeat); the first shown */
};

/* A hot function's place in the baseline's build and in the variant's. */
struct creport_placement {
    struct creport_spot base, other;
    bool offset_changed, lines_changed; /* found in both, and different */
    bool unrelated; /* its module is not these builds' (a kernel function, another program's) */
};

/* One ok run of the plan, warm-ups included, in run order: the run order figure's points. */
struct creport_run {
    int seq;        /* its place in the plan */
    size_t v, c;    /* variant and cell */
    bool warmup;    /* planned as a warm-up: not in the statistics */
    double *values; /* [nmetrics]: every metric in display units, NaN when the run has none */
};

struct creport_run_counts {
    long measured, warmup, failed, interrupted, running, planned;
};

/*
 * One statistics warning of a deciding metric's set (stats/warnings.h), as
 * the JSON's stats_warnings lists it; v and c index the variant and cell.
 */
struct creport_stats_warning {
    size_t v, c;
    char *variant, *cell, *metric, *kind, *message;
};

struct creport_dutcols;
struct creport_celltab;
struct creport_pair;
struct creport_design;
struct creport_codelayout;
struct creport_cpu_cost;

/* Verdict counts of a set of comparisons shown, computed once by the model. */
struct creport_tally {
    size_t n;           /* comparisons shown */
    size_t kind[5];     /* by enum stats_verdict_kind; [4]: not compared */
    size_t significant; /* "no difference proven" with p < 1 - confidence */
};
struct creport_counter_diff; /* counters.h */

struct creport {
    int64_t id;
    char *name, *status;
    uint64_t seed;
    struct creport_opts opts; /* metric names are not kept */
    char **variants;          /* variants[0] is the baseline */
    size_t nvariants;
    struct creport_cell *cells; /* the matrix's order (first axis slowest), then any others */
    size_t ncells;
    /* [nmetrics]: METRIC_REPORT figures in table order, then --metric paths (metric.h). */
    struct creport_metric *metrics;
    size_t nmetrics;
    char **duts; /* the named DUTs of the experiment (duts:), in file order; NULL/0 without */
    size_t nduts;
    bool duts_concurrent;            /* parallel: duts: their runs ran at the same time */
    struct creport_dutcols *dutcols; /* the DUTs as headline columns (duts.h); NULL without */
    char **axes;                     /* the matrix axes' keys in file order (matrix.c) */
    size_t naxes;
    bool *metric_selected; /* [nmetrics] */
    size_t *order;         /* metric indices in the order to show them */
    size_t norder;
    /*
     * Computed once by the model (model.c, cpu.c) so that
     * the printers only walk them: each cell's CPU cost decision, the cells
     * with a CPU cost figure (and of those, polluted), the cell the short
     * report's CPU line speaks of (-1: none) among cpu_worst_of cells
     * whose headline cost column is that figure; the comparisons of the
     * headline's figures (deciding and cost) and of the others by verdict,
     * and per metric those that are neither a cell's deciding nor its cost;
     * the (variant, cell) pairs with failed measured runs.
     */
    struct creport_cpu_cost *cpu; /* [ncells] (cpu.h) */
    size_t cpu_costed, cpu_polluted;
    long cpu_worst;
    size_t cpu_worst_of;
    struct creport_tally tally_headline, tally_others;
    struct creport_tally *tally_metric; /* [nmetrics] */
    size_t fail_sets;
    /*
     * The exit status of `netab report` and why, as compare decides it: 2
     * when failed runs left a variant of some cell with fewer than 2
     * successful runs (no verdict there; before any regression elsewhere), 1
     * when a deciding-metric comparison regressed, else 0. exit_reason is
     * the sentence every format prints ("failed runs left refused @
     * test=tcp_stream without a verdict: 0 of 3 runs ok (connection
     * refused)").
     */
    int exit_status;
    char exit_reason[320];
    struct creport_entry *entries;  /* [(v * ncells + c) * nmetrics + m] */
    struct creport_run_counts runs; /* totals over the experiment */
    long *n_measured;               /* [v * ncells + c]: measured ok runs */
    struct creport_fail *fails;     /* [v * ncells + c]: failed measured runs */
    /* Each variant's first ok run's environment against the baseline's (env.h). */
    struct creport_env_diff *env_diffs;
    size_t nenv_diffs;
    char **env_warnings; /* deduplicated, over every run's env_json (env.h) */
    size_t nenv_warnings;
    struct creport_stats_warning *stats_warnings;
    size_t nstats_warnings;
    struct creport_counter_diff *counter_diffs; /* counters.h */
    size_t ncounter_diffs;
    /* Differential profiles of profiled runs (profile.h). */
    struct creport_profdiff {
        size_t v, c; /* variant against the baseline, in cell c */
        struct profdiff d;
        /*
         * The cache-line placement of each row's function in the baseline's
         * and the variant's `layout:` files (hotplace.h):
         * [d.n], or NULL when neither names a file or placement was not
         * asked for; place_error says why not when some file could not be used.
         */
        struct creport_placement *place;
        char *place_error;
        /*
         * Counted over place once placed: rows that moved within a line or
         * span other lines, rows in neither build (or not these builds'
         * functions), and whether a name matched several functions.
         */
        size_t place_changed, place_neither;
        bool place_several;
        /*
         * The profiles' scope ("test", "system", or "mixed" when the runs
         * differ); "" when no run records one (runs before scopes), so
         * that their report reads as it did.
         */
        char scope[8];
    } * profdiffs;
    size_t nprofdiffs;
    unsigned place_line; /* the placement's line size in bytes; 0 when nothing was placed */
    char **layouts;      /* [nvariants]: the variant's `layout:` file from the spec, or NULL */
    char **layout_hot;   /* the spec's `layout: {hot: [...]}` patterns; NULL/0 without */
    size_t nlayout_hot;
    /*
     * Code layout against the baseline, one row per variant with a layout
     * file (codelayout.h). The report reads no files itself:
     * NULL/0 (no section) until the caller, which may read them, sets it
     * (creport_code_layout()); creport_free() releases it.
     */
    struct creport_codelayout *layout;
    size_t nlayout;
    struct creport_run *runlist; /* every ok run of the plan in run order, warm-ups included */
    size_t nrunlist;
    char **commands; /* [nvariants]: the argv of the variant's first measured run, or NULL */
    /*
     * --pairs all (pairs.h): every pair of variants in each
     * cell on its deciding metric, npair_rows of them (NULL without --pairs
     * all, non-NULL with it even for none), and the Bonferroni correction:
     * with npairs > 1 pairs per cell, opts.confidence is the per-comparison
     * level 1 - (1 - family_confidence) / npairs, which the tables'
     * comparisons with the baseline use too. NULL/0 without.
     */
    struct creport_pair *pairs;
    size_t npair_rows;
    size_t npairs;
    double family_confidence;
    /* 2x2 designs' main effects and interactions (effects.h); NULL/0 if none. */
    struct creport_design *effects;
    size_t neffects;
    /* Verdict counts over every comparison shown, and over the deciding metrics. */
    size_t n_improved, n_regressed, n_within, n_unproven, n_nocmp;
    size_t n_regressed_deciding;
    /*
     * Computed once from the above for the short report
     * (model.c): the warnings aggregated, one sentence per
     * kind ("only 3 runs per variant in 12 of 12 cells"), and the counter
     * differences of the (variant, cell) pairs whose deciding metric
     * improved or regressed (indices into counter_diffs).
     */
    char **warning_summary;
    size_t nwarning_summary;
    size_t *counters_notable;
    size_t ncounters_notable;
    /*
     * env_warnings' first sentences as env_warnings_summary_by_name() words
     * them (competing processes by program name), for warning_summary.
     */
    char **env_by_name;
    size_t nenv_by_name;
    /* The cells the user asked for (celltable.h); NULL without a template. */
    struct creport_celltab *celltab;
};

/* The report's metric called name (a built-in or a --metric path), or NULL. */
const struct creport_metric *creport_metric_named(const struct creport *r, const char *name);

/* The entry of variant v, cell c, metric m. */
static inline struct creport_entry *creport_at(const struct creport *r, size_t v, size_t c,
                                               size_t m)
{
    return &r->entries[(v * r->ncells + c) * r->nmetrics + m];
}

/* The failed runs of variant v in cell c. */
static inline const struct creport_fail *creport_fail_at(const struct creport *r, size_t v,
                                                         size_t c)
{
    return &r->fails[v * r->ncells + c];
}

/*
 * A run's stored error as the report shows it: reason without netab's
 * framing ("netab run reported: ", a trailing " (exit status N)"), and its
 * kind in a few words for a table cell (short_reason).
 */
void creport_fail_reason(const char *error, char *reason, size_t rlen, char *short_reason,
                         size_t slen);

/* "(fails: connection refused)" for a cell with failures and no value; "" otherwise. */
void creport_fail_cell(const struct creport *r, size_t v, size_t c, char *buf, size_t len);

/* "4 of 4 failed: cannot connect to ...: Connection refused"; "" without failures. */
void creport_fail_text(const struct creport *r, size_t v, size_t c, char *buf, size_t len);

/* The report's metrics (built-in, then --metric paths): what its m indices refer to. */
static inline const struct creport_metric *creport_report_metrics(const struct creport *r,
                                                                  size_t *n)
{
    *n = r->nmetrics;
    return r->metrics;
}

/*
 * Builds the report of an experiment from what the store returned: the
 * experiment row, its spec_json (may be NULL), its plan and all its runs
 * (store_run_list(.., with_raw = true, ..), for the test type and env_json).
 * Nothing is read from anywhere else. -EINVAL with a message for an unknown
 * --metric name, -ENOMEM. On success *out is the caller's (creport_free()).
 */
NB_MUST_CHECK int creport_build(const struct store_experiment *x, const char *spec_json,
                                const struct store_plan_row *plan, size_t nplan,
                                const struct store_run *runs, size_t nruns,
                                const struct creport_opts *o, struct creport **out, char *err,
                                size_t errlen);

/* Reads experiment id from db and builds its report; -ENOENT if there is none. */
NB_MUST_CHECK int creport_load(struct store *db, int64_t id, const struct creport_opts *o,
                               struct creport **out, char *err, size_t errlen);

void creport_free(struct creport *r);

/* The exit status of `netab report` (struct creport's exit_status, decided by the model). */
int creport_exit_status(const struct creport *r);

/* "tcp_stream" -> CREPORT_TCP_STREAM, ...; CREPORT_UNKNOWN otherwise. */
unsigned creport_test_kind(const char *test);

/* Printers; each returns 0 or -EIO when writing f failed. */
NB_MUST_CHECK int creport_print_text(const struct creport *r, FILE *f);
NB_MUST_CHECK int creport_print_markdown(const struct creport *r, FILE *f);
NB_MUST_CHECK int creport_print_csv(const struct creport *r, FILE *f);
/* KTAP version 1 for kernel CI (ktap.c, docs/ci.md): a test per comparison on a deciding metric. */
NB_MUST_CHECK int creport_print_ktap(const struct creport *r, FILE *f);

/*
 * Sorted values (values.c): each cell's deciding metric,
 * every measured run (the entries' sorted), one column per variant; 0 or
 * -EIO.
 */
NB_MUST_CHECK int creport_print_values_text(const struct creport *r, FILE *f);
NB_MUST_CHECK int creport_print_values_markdown(const struct creport *r, FILE *f);

/*
 * The HTML report: one self-contained page (inline CSS and SVG figures, no
 * script, no external reference) with the summary, figures, tables, sorted
 * values, environment differences, warnings and the commands to reproduce;
 * cmd is the report's own command as creport_render() takes it. Returns 0,
 * -ENOMEM or -EIO (html.c).
 */
NB_MUST_CHECK int creport_print_html(const struct creport *r, const char *const *cmd, FILE *f);

/* Prints text word-wrapped at CREPORT_TEXT_WIDTH: the first line after first, the rest after rest.
 */
void creport_wrap(FILE *f, const char *first, const char *rest, const char *text);

/* The JSON document of docs/report.md (new reference), NULL when out of memory. */
json_t *creport_to_json(const struct creport *r);

/* The formats of `netab report --format`. */
enum creport_format {
    CREPORT_TEXT,
    CREPORT_MARKDOWN,
    CREPORT_CSV,
    CREPORT_JSON,
    CREPORT_HTML,
    CREPORT_KTAP,
};

/*
 * "text", "markdown" (or "md"), "csv", "json", "html", "ktap" into *fmt; -EINVAL
 * with a message naming them for anything else (select.c).
 */
NB_MUST_CHECK int creport_format_parse(const char *name, enum creport_format *fmt, char *err,
                                       size_t errlen);

/*
 * Whether fmt can show the sections of mask: 0, or -EINVAL with a message
 * naming the first section it has not and where it is instead. Text,
 * Markdown and JSON have all; the HTML page and the CSV table some.
 */
NB_MUST_CHECK int creport_sections_check(enum creport_format fmt, unsigned mask, char *err,
                                         size_t errlen);

/*
 * Report r in format fmt to f. cmd, NULL-terminated, is the command that
 * asked for the report, its words after "netab" ("report", "--experiments",
 * "1,2", ...), which the HTML page shows as its command to reproduce (with
 * passwords removed and words shell-quoted, redact_command()); NULL shows
 * `netab report ID`. Text and Markdown are written with control bytes from
 * outside text as \xNN (util/printable). 0, -ENOMEM or -EIO.
 */
NB_MUST_CHECK int creport_render(const struct creport *r, enum creport_format fmt,
                                 const char *const *cmd, FILE *f);

/*
 * The JSON document cut to the sections of mask (0 or CREPORT_SEC_ALL:
 * unchanged): the identifying members (experiment, variants, cells,
 * metrics, options) stay, each other member goes unless one of its
 * sections is in mask. 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_json_select(json_t *root, unsigned mask);

#endif
