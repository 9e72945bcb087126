/*
 * The parts of the campaign report's model that the short (headline)
 * report needs, computed once from the entries, comparisons and warnings
 * creport_build() has filled. See model.h.
 */
#include "report/model.h"
#include "report/counters.h"
#include "report/cpu.h"
#include "report/tables.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statsreport/stats_report.h"
#include "stats/warnings.h"

/* The headline's CPU cost: the first of these a cell shows (cost per KiB, else utilisation). */
static const char *const cost_metrics[] = {"local_demand", "cpu_local"};

bool creport_entry_changed(const struct creport_entry *en)
{
    return en->has_cmp &&
           (en->cmp.verdict.kind == STATS_IMPROVED || en->cmp.verdict.kind == STATS_REGRESSED);
}

/*
 * One unit per metric: percentage points for metrics in %, so that a table
 * of CPU utilisation never mixes "+0.9" (points) with "-0.7%" (percent);
 * for the others the relative change, of the baseline's mean base where the
 * verdict is decided on the difference (the baseline's interval reaches 0),
 * and the difference in the metric's unit only where that mean is 0.
 */
static void set_change(const struct creport_metric *md, double base, struct creport_entry *en)
{
    const struct stats_comparison *c = &en->cmp;
    double b = fabs(base);
    if (!en->has_cmp) {
        en->chg = (struct creport_change){CREPORT_CHANGE_NONE, 0, 0, 0};
        return;
    }
    if (!strcmp(md->unit, "%"))
        en->chg =
            (struct creport_change){CREPORT_CHANGE_PP, c->diff, c->diff_ci_low, c->diff_ci_high};
    else if ((c->verdict.on_difference || !isfinite(c->verdict.rel)) && isfinite(b) && b > 0)
        /* Decided on the difference (the baseline's interval reaches 0), shown in percent. */
        en->chg = (struct creport_change){CREPORT_CHANGE_PCT, 100 * c->diff / b,
                                          100 * c->diff_ci_low / b, 100 * c->diff_ci_high / b};
    else if (c->verdict.on_difference || !isfinite(c->verdict.rel))
        en->chg =
            (struct creport_change){CREPORT_CHANGE_DIFF, c->diff, c->diff_ci_low, c->diff_ci_high};
    else
        en->chg = (struct creport_change){CREPORT_CHANGE_PCT, 100 * c->verdict.rel,
                                          100 * c->verdict.rel_low, 100 * c->verdict.rel_high};
    /* A difference of two finite means is finite; should it not be, say so rather than print it. */
    if (!isfinite(en->chg.value)) {
        en->chg.kind = CREPORT_CHANGE_NONE;
        snprintf(en->why, sizeof(en->why), "the change is not a finite number");
    }
}

/*
 * The headline's CPU cost column of cell c: the figure the CPU cost is
 * decided on (cpu.h: the process figure where other
 * processes pollute the system-wide one), else the first of cost_metrics
 * the cell shows.
 */
static void choose_cost(struct creport *r, size_t c)
{
    struct creport_cell *cell = &r->cells[c];
    const struct creport_cpu_cost *dec = &r->cpu[c];
    cell->cost = dec->metric >= 0 && dec->metric != cell->decide &&
                         creport_at(r, 0, c, (size_t)dec->metric)->shown
                     ? dec->metric
                     : -1;
    for (size_t i = 0; i < sizeof(cost_metrics) / sizeof(*cost_metrics) && cell->cost < 0; i++) {
        const struct creport_metric *m = creport_metric_named(r, cost_metrics[i]);
        size_t k = m ? (size_t)(m - r->metrics) : r->nmetrics;
        if (k < r->nmetrics && (int)k != cell->decide && creport_at(r, 0, c, k)->shown)
            cell->cost = (int)k;
    }
}

/*
 * The text headline's table of cell c: one table holds every cell sharing
 * its deciding and cost metrics, in matrix order, so that a matrix that
 * alternates test kinds (streams x test) gives one table per kind rather
 * than one per cell. Needs the costs of cells 0..c chosen.
 */
static void headline_table(struct creport *r, size_t c)
{
    struct creport_cell *cell = &r->cells[c];
    cell->table = -1;
    for (size_t c0 = 0; cell->decide >= 0 && cell->table < 0; c0++)
        if (r->cells[c0].decide == cell->decide && r->cells[c0].cost == cell->cost)
            cell->table = (long)c0;
}

/*
 * The verdict of en in words with its p-value, for a line that shows
 * them: "regressed p=0.0021"; where p is below 1 - confidence but the
 * verdict is "no difference proven" (stats/verdict.h's rule: the interval
 * reaches inside the noise floor), the same line says so: "no difference
 * proven (p = 1e-08, but the interval -0.4% .. +0.9% reaches inside the 1%
 * noise floor)". "not compared" without a comparison.
 */
static void verdict_words(const struct creport *r, const struct creport_entry *en, char *b,
                          size_t n)
{
    if (!en->has_cmp) {
        snprintf(b, n, "not compared");
        return;
    }
    const struct stats_verdict *v = &en->cmp.verdict;
    const char *name = stats_verdict_name(v->kind);
    if (v->kind != STATS_NO_DIFFERENCE || !v->significant || en->chg.kind == CREPORT_CHANGE_NONE) {
        snprintf(b, n, "p=%.2g %s", en->cmp.welch.p, name);
        return;
    }
    /* Significant yet not proven: the interval, in the change's own unit, reaches the floor. */
    char lo[32], hi[32], fl[32];
    struct creport_change l = en->chg, h = en->chg;
    l.value = en->chg.lo;
    h.value = en->chg.hi;
    creport_fmt_change(lo, sizeof(lo), &l, 1);
    creport_fmt_change(hi, sizeof(hi), &h, 1);
    /* A difference's floor is in the metric's unit, which the percentages do not show. */
    if (v->on_difference)
        snprintf(fl, sizeof(fl), "%s", "");
    else
        snprintf(fl, sizeof(fl), "%g%% ", r->opts.noise * 100);
    snprintf(b, n, "%s (p = %.2g, but the interval %s .. %s reaches inside the %snoise floor)",
             name, en->cmp.welch.p, lo, hi, fl);
}

int creport_stats_warning_add(struct creport *r, size_t v, size_t c, size_t m, const char *kind,
                              const char *message)
{
    struct creport_stats_warning *p =
        realloc(r->stats_warnings, (r->nstats_warnings + 1) * sizeof(*p));
    if (!p)
        return -ENOMEM;
    r->stats_warnings = p;
    struct creport_stats_warning *w = &p[r->nstats_warnings++];
    *w = (struct creport_stats_warning){.v = v, .c = c, .kind = strdup(kind)};
    w->variant = strdup(r->variants[v]);
    w->cell = strdup(r->cells[c].name);
    w->metric = strdup(r->metrics[m].name);
    w->message = strdup(message);
    return w->variant && w->cell && w->metric && w->kind && w->message ? 0 : -ENOMEM;
}

/* The warnings of the model: the statistics warnings and the short report's summary. */
static void warnings_free(struct creport *r)
{
    for (size_t i = 0; r->stats_warnings && i < r->nstats_warnings; i++) {
        struct creport_stats_warning *w = &r->stats_warnings[i];
        free(w->variant);
        free(w->cell);
        free(w->metric);
        free(w->kind);
        free(w->message);
    }
    free(r->stats_warnings);
    for (size_t i = 0; r->warning_summary && i < r->nwarning_summary; i++)
        free(r->warning_summary[i]);
    free(r->warning_summary);
    free(r->counters_notable);
}

/* Appends the first n bytes of sentence s to r->warning_summary. Returns 0 or -ENOMEM. */
static int add_summary(struct creport *r, const char *s, size_t n)
{
    char **p = realloc(r->warning_summary, (r->nwarning_summary + 1) * sizeof(*p));
    if (!p)
        return -ENOMEM;
    r->warning_summary = p;
    if (!(p[r->nwarning_summary] = strndup(s, n)))
        return -ENOMEM;
    r->nwarning_summary++;
    return 0;
}

/* One kind of statistics warning over the deciding metrics' sets. */
struct kind_count {
    char kind[32];
    size_t sets;       /* warnings of this kind */
    size_t nmin, nmax; /* runs of the sets concerned */
    size_t needed;     /* underpowered: the most runs per variant needed */
    bool *cells;       /* [ncells]: cells concerned */
    char example[128]; /* the first "variant @ cell" */
};

static size_t count_true(const bool *b, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += b[i];
    return k;
}

/* The number of cells with a deciding metric, and of its sets (variant, cell). */
static size_t deciding_cells(const struct creport *r)
{
    size_t n = 0;
    for (size_t c = 0; c < r->ncells; c++)
        n += r->cells[c].decide >= 0;
    return n;
}

/* One sentence for kind k. Returns 0 or -ENOMEM. */
static int summarise_kind(struct creport *r, const struct kind_count *k)
{
    char b[512], runs[48];
    size_t cells = count_true(k->cells, r->ncells), all = deciding_cells(r);
    size_t sets = all * r->nvariants;
    if (k->nmin == k->nmax)
        snprintf(runs, sizeof(runs), "%zu", k->nmin);
    else
        snprintf(runs, sizeof(runs), "%zu to %zu", k->nmin, k->nmax);
    if (!strcmp(k->kind, "too_few_runs"))
        snprintf(b, sizeof(b),
                 "only %s runs per variant in %zu of %zu cell%s (intervals want %d or more)", runs,
                 cells, all, all == 1 ? "" : "s", STATS_MIN_RUNS);
    else if (!strcmp(k->kind, "underpowered") && k->needed >= STATS_REPORT_RUNS_COUNTABLE)
        snprintf(b, sizeof(b),
                 "%zu of %zu comparison%s need more than %zu runs per variant to resolve %g%%",
                 k->sets, all * (r->nvariants - 1), all * (r->nvariants - 1) == 1 ? "" : "s",
                 (size_t)STATS_REPORT_RUNS_COUNTABLE, r->opts.noise * 100);
    else if (!strcmp(k->kind, "underpowered"))
        snprintf(b, sizeof(b),
                 "%zu of %zu comparison%s need up to ~%zu runs per variant to resolve %g%%",
                 k->sets, all * (r->nvariants - 1), all * (r->nvariants - 1) == 1 ? "" : "s",
                 k->needed, r->opts.noise * 100);
    else if (!strcmp(k->kind, "order_unknown"))
        snprintf(b, sizeof(b),
                 "drift cannot be judged in %zu of %zu sets of runs: their run order is unknown "
                 "(imported with netab import --order unknown, the default for plain numbers)",
                 k->sets, sets);
    else
        snprintf(b, sizeof(b), "%s in %zu of %zu sets of runs, in %zu cells (first: %s)", k->kind,
                 k->sets, sets, cells, k->example);
    return add_summary(r, b, strlen(b));
}

/* Adds warning w (of its variant and cell) to its kind in ks[0..*nk-1]. Returns 0 or -ENOMEM. */
static int count_warning(const struct creport *r, struct kind_count *ks, size_t *nk,
                         const struct creport_stats_warning *w)
{
    const char *kind = w->kind;
    size_t v = w->v, c = w->c;
    size_t i = 0;
    while (i < *nk && strcmp(ks[i].kind, kind ? kind : ""))
        i++;
    struct kind_count *k = &ks[i];
    if (i == *nk) {
        *k = (struct kind_count){.nmin = SIZE_MAX, .cells = calloc(r->ncells, sizeof(bool))};
        if (!k->cells)
            return -ENOMEM;
        snprintf(k->kind, sizeof(k->kind), "%s", kind ? kind : "");
        snprintf(k->example, sizeof(k->example), "%s @ %s", r->variants[v], r->cells[c].name);
        (*nk)++;
    }
    const struct creport_entry *en = creport_at(r, v, c, (size_t)r->cells[c].decide);
    const struct creport_entry *base = creport_at(r, 0, c, (size_t)r->cells[c].decide);
    size_t n = en->n < base->n || strcmp(k->kind, "underpowered") ? en->n : base->n;
    k->sets++;
    k->cells[c] = true;
    k->nmin = n < k->nmin ? n : k->nmin;
    k->nmax = n > k->nmax ? n : k->nmax;
    if (en->has_cmp && en->cmp.runs_needed > k->needed)
        k->needed = en->cmp.runs_needed;
    return 0;
}

/* Where a short warning ends: a sentence that does not fit a line loses its ": why". */
#define SHORT_WARNING 68

/*
 * Environment warning i as the short report words it: competing processes
 * by program name (r->env_by_name), and a sentence longer than a line cut
 * before its explanation ("turbo/boost is on: the clock speed depends
 * ..."), which the JSON's env_warnings and --full keep. Returns 0 or -ENOMEM.
 */
static int short_env_warning(struct creport *r, size_t i)
{
    const char *s = i < r->nenv_by_name ? r->env_by_name[i] : r->env_warnings[i];
    const char *cut = strstr(s, ": ");
    if (strlen(s) > SHORT_WARNING && strncmp(s, "competing ", 10) && cut && cut - s >= 24)
        return add_summary(r, s, (size_t)(cut - s));
    return add_summary(r, s, strlen(s));
}

/*
 * The warnings, one sentence per kind: the environment's as they are (they
 * are aggregated already) but short (short_env_warning()), the statistics'
 * counted over the cells, so that 12 "only 3 runs" warnings read as one line.
 */
static int summarise_warnings(struct creport *r)
{
    size_t i, nk = 0;
    struct kind_count *ks = calloc(r->nstats_warnings + 1, sizeof(*ks));
    int e = ks ? 0 : -ENOMEM;
    for (i = 0; !e && i < r->nenv_warnings; i++)
        e = short_env_warning(r, i);
    for (i = 0; !e && i < r->nstats_warnings; i++)
        if (r->cells[r->stats_warnings[i].c].decide >= 0)
            e = count_warning(r, ks, &nk, &r->stats_warnings[i]);
    for (size_t k = 0; k < nk; k++) {
        if (!e)
            e = summarise_kind(r, &ks[k]);
        free(ks[k].cells);
    }
    free(ks);
    return e;
}

/* The counter differences of the pairs whose deciding metric changed. */
static int notable_counters(struct creport *r)
{
    if (!(r->counters_notable = calloc(r->ncounter_diffs + 1, sizeof(size_t))))
        return -ENOMEM;
    for (size_t i = 0; i < r->ncounter_diffs; i++) {
        const struct creport_counter_diff *d = &r->counter_diffs[i];
        int decide = r->cells[d->c].decide;
        if (decide >= 0 && creport_entry_changed(creport_at(r, d->v, d->c, (size_t)decide)))
            r->counters_notable[r->ncounters_notable++] = i;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* en's values in ascending order, for every format's sorted values. Returns 0 or -ENOMEM. */
static int sort_values(struct creport_entry *en)
{
    if (!(en->sorted = malloc((en->n ? en->n : 1) * sizeof(double))))
        return -ENOMEM;
    memcpy(en->sorted, en->values, en->n * sizeof(double));
    qsort(en->sorted, en->n, sizeof(double), cmp_double);
    return 0;
}

/* en's sentences (struct creport_entry's words, detail). Returns 0 or -ENOMEM. */
static int set_words(const struct creport *r, struct creport_entry *en)
{
    char b[512];
    verdict_words(r, en, b, sizeof(b));
    if (!(en->words = strdup(b)))
        return -ENOMEM;
    if (!en->has_cmp)
        return 0;
    stats_verdict_explain(&en->cmp.verdict, en->cmp.welch.p, r->opts.noise, b, sizeof(b));
    return (en->detail = strdup(b)) ? 0 : -ENOMEM;
}

/* Whether metric m is one of the headline's figures of cell c (deciding or CPU cost). */
static bool in_headline(const struct creport *r, size_t c, size_t m)
{
    return r->cells[c].decide >= 0 && ((int)m == r->cells[c].decide || (int)m == r->cells[c].cost);
}

static void tally_add(struct creport_tally *t, const struct creport_entry *en)
{
    t->n++;
    t->kind[en->has_cmp ? (size_t)en->cmp.verdict.kind : 4]++;
    t->significant +=
        en->has_cmp && en->cmp.verdict.kind == STATS_NO_DIFFERENCE && en->cmp.verdict.significant;
}

/*
 * Every comparison shown counted by verdict: into the headline's figures
 * or the others, and per metric those that are neither a cell's deciding
 * nor its cost figure. Returns 0 or -ENOMEM.
 */
static int tally_all(struct creport *r)
{
    if (!(r->tally_metric = calloc(r->nmetrics ? r->nmetrics : 1, sizeof(*r->tally_metric))))
        return -ENOMEM;
    for (size_t v = 1; v < r->nvariants; v++)
        for (size_t c = 0; c < r->ncells; c++)
            for (size_t m = 0; m < r->nmetrics; m++) {
                const struct creport_entry *en = creport_at(r, v, c, m);
                if (!en->shown)
                    continue;
                tally_add(in_headline(r, c, m) ? &r->tally_headline : &r->tally_others, en);
                if ((int)m != r->cells[c].decide && (int)m != r->cells[c].cost)
                    tally_add(&r->tally_metric[m], en);
            }
    return 0;
}

void creport_model_free(struct creport *r)
{
    for (size_t i = 0; r->entries && i < r->nvariants * r->ncells * r->nmetrics; i++) {
        free(r->entries[i].words);
        free(r->entries[i].detail);
    }
    free(r->cpu);
    free(r->tally_metric);
    warnings_free(r);
}

/*
 * struct creport's exit_status and exit_reason: failed runs that leave a
 * variant of a cell with fewer than 2 successful runs mean that cell got
 * no verdict, "not done" (2) as in compare, before any regression (1).
 */
static void decide_exit(struct creport *r)
{
    size_t nov = 0, first = 0;
    for (size_t i = 0; r->fails && i < r->nvariants * r->ncells; i++)
        if (r->fails[i].failed && r->fails[i].ok < 2 && !nov++)
            first = i;
    if (nov) {
        const struct creport_fail *f = &r->fails[first];
        const char *cell = r->cells[first % r->ncells].name;
        r->exit_status = 2;
        snprintf(r->exit_reason, sizeof(r->exit_reason),
                 "failed runs left %s @ %s without a verdict: %zu of %zu runs ok (%s)%s",
                 r->variants[first / r->ncells], cell[0] ? cell : "(all)", f->ok, f->ok + f->failed,
                 f->short_reason, nov > 1 ? ", and other cells too" : "");
    } else if (r->n_regressed_deciding) {
        r->exit_status = 1;
        snprintf(r->exit_reason, sizeof(r->exit_reason),
                 "%zu deciding-metric comparison%s regressed", r->n_regressed_deciding,
                 r->n_regressed_deciding == 1 ? "" : "s");
    } else {
        r->exit_status = 0;
        snprintf(r->exit_reason, sizeof(r->exit_reason), "no deciding-metric comparison regressed");
    }
}

int creport_model_finish(struct creport *r)
{
    for (size_t v = 0; v < r->nvariants; v++)
        for (size_t c = 0; c < r->ncells; c++)
            for (size_t m = 0; m < r->nmetrics; m++) {
                set_change(&r->metrics[m], creport_at(r, 0, c, m)->mean, creport_at(r, v, c, m));
                if (sort_values(creport_at(r, v, c, m)) || set_words(r, creport_at(r, v, c, m)))
                    return -ENOMEM;
            }
    for (size_t i = 0; r->fails && i < r->nvariants * r->ncells; i++)
        r->fail_sets += r->fails[i].failed > 0;
    decide_exit(r);
    int e = creport_cpu_finish(r);
    for (size_t c = 0; !e && c < r->ncells; c++)
        choose_cost(r, c);
    for (size_t c = 0; !e && c < r->ncells; c++)
        headline_table(r, c);
    if (!e)
        creport_cpu_worst(r);
    e = e ? e : tally_all(r);
    e = e ? e : summarise_warnings(r);
    return e ? e : notable_counters(r);
}
