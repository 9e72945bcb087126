/*
 * A `netab compare` campaign from its runs to its verdict: the adaptive
 * schedule of looks executed on the campaign engine (compare_execute()), the
 * statistics of every metric (compare_analyse()) and the outcome, which is
 * also the command's exit status.
 */
#ifndef NETAB_COMPARE_RESULT_H
#define NETAB_COMPARE_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"
#include "judge/judge.h"
#include "metric/steal.h"
#include "profdiff/profdiff.h"
#include "statsreport/stats_report.h"
#include "stats/opts.h"
#include "stats/verdict.h"

/* With --until-ci, the first look comes after at least this many measured rounds. */
#define COMPARE_MIN_FIRST_LOOK 5

/* The outcome; the numbers are netab compare's exit statuses. */
enum compare_outcome {
    COMPARE_NO_REGRESSION = 0, /* no regression beyond the noise floor in the deciding metric */
    COMPARE_REGRESSED = 1,
    COMPARE_UNDECIDED = 2, /* too few runs, no verdict possible, interrupted, or an error */
};

struct compare_metric_report {
    const struct compare_metric *m;
    bool ok;       /* every variant had >= 2 values, so r holds the statistics */
    char why[200]; /* when not ok: which variant lacked values */
    struct stats_report r;
};

/*
 * Which figure decides CPU cost (compare_cpu_cost()): the local end's
 * system-wide cost, or its process cost when other processes took at least
 * JUDGE_POLLUTED_PCT of the busy CPU time in some variant's runs (median).
 */
struct compare_cpu_cost {
    int metric;             /* index in c->metrics of the deciding cost figure; -1: none */
    int system;             /* index of the system-wide figure; -1: none */
    bool polluted;          /* the system-wide figure is polluted, so metric is the process one */
    double others_pct;      /* the largest median share of other processes over variants; NaN */
    struct judge_cost rule; /* the judgement's choice (judge.h) */
};

struct compare_result {
    const struct compare_campaign *c;
    struct compare_run *runs;
    size_t nruns, cap;
    size_t planned_runs; /* runs planned so far, warm-ups included */
    unsigned rounds;     /* measured rounds completed */
    unsigned looks_planned, looks_done;
    bool adaptive, target_reached, interrupted;
    /*
     * Why the runs stopped before the plan's end (compare_early_stop()): a
     * variant's setup hook failed, or its first two runs failed with the same
     * error; "" when they did not.
     */
    char stopped_early[400];
    double worst_halfwidth; /* at the last look: widest half-width of the relative change */
    struct stats_opts opts; /* as used for every comparison (confidence adjusted for looks) */
    struct compare_metric_report *metrics; /* c->nmetrics of them, after the analysis */
    /*
     * --pairs all (compare_pairs_correct(), compare_pairs()): opts.confidence
     * is then the per-comparison level of the Bonferroni correction over
     * npairs, family_confidence the level before it; pairs is the JSON array
     * of report/pairs.h on the deciding metric (NULL without --pairs all).
     */
    size_t npairs;
    double family_confidence;
    json_t *pairs;
    struct compare_cpu_cost cpu; /* after the analysis */
    struct metric_steal steal;   /* over every run with a CPU block, after the analysis */
    int exit_code;               /* an enum compare_outcome */
    char exit_reason[320];
    /*
     * Adaptive stopping by another rule than --until-ci's half-width (netab
     * bisect: the interval on one side of a threshold): called at each look
     * with the deciding metric's statistics (m->ok), true to stop. NULL:
     * --until-ci's rule.
     */
    bool (*stop)(const struct compare_result *res, const struct compare_metric_report *m,
                 void *arg);
    void *stop_arg;
};

/* What compare_execute() reports as it goes; every member may be NULL. */
struct compare_progress {
    /* A run finished and was recorded as res->runs[res->nruns - 1]. */
    void (*run)(const struct compare_result *res, const struct compare_run *r, void *arg);
    /* Look `look` (1-based) of `looks` after `rounds` measured rounds. */
    void (*look)(const struct compare_result *res, size_t look, size_t looks, unsigned rounds,
                 bool reached, void *arg);
    /* A message from the campaign engine (a sentence). */
    void (*say)(const char *msg, void *arg);
    void *arg;
};

/*
 * Runs the whole comparison on the campaign engine (compare/session.h):
 * cfg's runs, or with --until-ci the pre-planned looks (the first after
 * max(runs, COMPARE_MIN_FIRST_LOOK) rounds, then compare_looks()), with the
 * confidence of every interval Bonferroni-corrected over the planned looks
 * (docs/compare.md). res->c, res->adaptive and res->opts must be set; the
 * runs are appended to res. Stops early after campaign_cancel() (then
 * res->interrupted). Returns 0, -ENOMEM, or another negative errno with a
 * sentence in err (the store could not be used).
 */
NB_MUST_CHECK int compare_execute(struct compare_result *res, const struct compare_progress *p,
                                  char *err, size_t errlen);

/*
 * Computes the statistics of metric i over the successful measured runs:
 * one set per variant, each compared with variant 0. Returns 0 or -ENOMEM;
 * out->ok says whether there was enough data. Free with
 * compare_metric_report_free().
 */
NB_MUST_CHECK int compare_analyse_metric(const struct compare_result *res, size_t i,
                                         struct compare_metric_report *out);
void compare_metric_report_free(struct compare_metric_report *m);

/* Analyses every metric and decides exit_code and exit_reason. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int compare_analyse(struct compare_result *res);

/*
 * After each run: sets res->stopped_early when the newest run shows that
 * the plan cannot be completed usefully (its variant's setup hook failed,
 * or that variant's first two runs failed with the same error), so that
 * compare_execute() stops there. Never clears it.
 */
void compare_early_stop(struct compare_result *res);

/*
 * Chooses the figure that decides CPU cost for res's analysed metrics
 * (struct compare_cpu_cost). Never fails; metric is -1 when neither cost
 * figure could be compared.
 */
void compare_cpu_cost(const struct compare_result *res, struct compare_cpu_cost *out);

/*
 * Before the first run (compare_execute() calls it once the looks are
 * planned): sets res->npairs and res->family_confidence to res->opts'
 * confidence and, with --pairs all and three variants or more, lowers
 * res->opts.confidence to the Bonferroni level of each of the n(n-1)/2
 * comparisons, so that the comparisons with the baseline, which decide the
 * exit status, are made at the corrected level too.
 */
void compare_pairs_correct(struct compare_result *res);

/*
 * With --pairs all, after compare_analyse_metric() of the deciding metric:
 * fills res->pairs with every pair of variants (a before b, baseline first)
 * on it, an empty array when the metric has no statistics. Returns 0,
 * -ENOMEM, or another negative errno with a sentence in err.
 */
NB_MUST_CHECK int compare_pairs(struct compare_result *res, char *err, size_t errlen);

/* Appends to out every pair of d's variants as compare_pairs() makes them. */
NB_MUST_CHECK int compare_pairs_of(const struct compare_result *res,
                                   const struct compare_metric_report *d, json_t *out, char *err,
                                   size_t errlen);

/* Frees the runs and the metric reports of res (not res->c). */
void compare_result_free(struct compare_result *res);

/*
 * The differential profile of variant v against the baseline (variant 0)
 * from their measured runs' profiles (--opts '--profile'), top functions
 * only (profdiff/profdiff.h). Returns 0, -EINVAL when a side has no
 * profile (err says which), or -ENOMEM.
 */
NB_MUST_CHECK int compare_profdiff(const struct compare_result *res, size_t v, size_t top,
                                   struct profdiff *out, char *err, size_t errlen);

#endif
