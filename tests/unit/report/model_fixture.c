/* The hand-built report model of model_fixture.h. */
#include "model_fixture.h"

#include "report/cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A test has nothing to do without memory: stop at once rather than test half a model. */
static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        abort();
    return p;
}

static double *doubles(size_t n, const double *x)
{
    double *p = xcalloc(n, sizeof(double));
    if (n)
        memcpy(p, x, n * sizeof(double));
    return p;
}

/* Entry (v, c, m) with n values in run order, a sorted copy that is not their sort, and figures. */
static struct creport_entry *entry(struct creport *r, size_t v, size_t c, size_t m, size_t n,
                                   const double *values, const double *sorted, double mean,
                                   double median)
{
    struct creport_entry *en = creport_at(r, v, c, m);
    en->shown = true;
    en->n = n;
    en->values = doubles(n, values);
    en->sorted = doubles(n, sorted);
    en->mean = mean;
    en->median = median;
    en->chg.kind = CREPORT_CHANGE_NONE;
    en->words = xstrdup("not compared, says the fixture");
    return en;
}

/* A comparison with the baseline whose verdict and change are given, not decided. */
static void compared(struct creport_entry *en, enum stats_verdict_kind kind, double p, double pct,
                     double lo, double hi)
{
    en->has_cmp = true;
    en->cmp.welch.p = p;
    en->cmp.mw.p = p;
    en->cmp.diff = 8.75;
    en->cmp.diff_ci_low = 1.5;
    en->cmp.diff_ci_high = 16.25;
    en->cmp.diff_pct = pct;
    en->cmp.ratio = 1 + pct / 100;
    en->cmp.ratio_ci_low = 1 + lo / 100;
    en->cmp.ratio_ci_high = 1 + hi / 100;
    en->cmp.median_ratio = 1.5;
    en->cmp.runs_needed = 9;
    en->cmp.verdict.kind = kind;
    en->cmp.verdict.rel = pct / 100;
    en->cmp.verdict.rel_low = lo / 100;
    en->cmp.verdict.rel_high = hi / 100;
    en->cmp.verdict.significant = true;
    en->chg = (struct creport_change){CREPORT_CHANGE_PCT, pct, lo, hi};
    free(en->words);
    en->words = xstrdup(kind == STATS_REGRESSED ? "wombat-regressed (p 0.0123)"
                                                : "wombat-within (p 0.0456)");
    en->detail = xstrdup("the fixture's own verdict sentence");
}

/* An entry of a variant whose every run failed: shown, no value, not compared. */
static void failed_entry(struct creport *r, size_t v, size_t c, size_t m)
{
    struct creport_entry *en = entry(r, v, c, m, 0, NULL, NULL, NAN, NAN);
    snprintf(en->why, sizeof(en->why), "quokka ran off");
}

static void metrics(struct creport *r)
{
    r->nmetrics = 2;
    r->metrics = xcalloc(2, sizeof(*r->metrics));
    r->metrics[0] = (struct creport_metric){.name = "gnu_rate",
                                            .label = "gnu Mb/s",
                                            .title = "Gnu gallop rate",
                                            .unit = "Mbit/s",
                                            .tests = 1u << CREPORT_TCP_STREAM,
                                            .scale = 1,
                                            .path = "gnu.rate"};
    r->metrics[1] = (struct creport_metric){.name = "yak_cost",
                                            .label = "yak us/KiB",
                                            .title = "Yak grooming cost",
                                            .unit = "us/KiB",
                                            .lower_is_better = true,
                                            .tests = 1u << CREPORT_TCP_STREAM,
                                            .scale = 1,
                                            .path = "yak.cost"};
    r->metric_selected = xcalloc(2, sizeof(bool));
    r->order = xcalloc(2, sizeof(size_t));
    r->norder = 2;
    for (size_t m = 0; m < 2; m++) {
        r->metric_selected[m] = true;
        r->order[m] = m;
    }
}

static void cells(struct creport *r)
{
    static const char *const names[] = {"okapi=7", "okapi=9"};
    r->ncells = 2;
    r->cells = xcalloc(2, sizeof(*r->cells));
    for (size_t c = 0; c < 2; c++)
        r->cells[c] = (struct creport_cell){.name = xstrdup(names[c]),
                                            .test = xstrdup("tcp_stream"),
                                            .test_kind = CREPORT_TCP_STREAM,
                                            .decide = 0,
                                            .cost = 1,
                                            .table = 0};
}

static void entries(struct creport *r)
{
    r->entries = xcalloc(r->nvariants * r->ncells * r->nmetrics, sizeof(*r->entries));
    entry(r, 0, 0, 0, 3, (double[]){3, 1, 2}, (double[]){11.5, 12.5, 13.5}, 42.5, 17.25);
    compared(entry(r, 1, 0, 0, 3, (double[]){6, 4, 5}, (double[]){14.5, 15.5, 16.5}, 77.75, 33.125),
             STATS_REGRESSED, 0.0123, 12.5, 4.25, 21.5);
    entry(r, 0, 0, 1, 3, (double[]){7, 8, 9}, (double[]){27, 28, 29}, 0.625, 0.5);
    compared(entry(r, 1, 0, 1, 3, (double[]){10, 11, 12}, (double[]){30, 31, 32}, 0.875, 0.75),
             STATS_WITHIN_NOISE, 0.0456, -7.5, -9.25, -5.5);
    entry(r, 0, 1, 0, 2, (double[]){20, 10}, (double[]){61.5, 62.5}, 555.5, 444.25);
    entry(r, 0, 1, 1, 2, (double[]){1, 1}, (double[]){71, 72}, 0.25, 0.125);
    failed_entry(r, 1, 1, 0);
    failed_entry(r, 1, 1, 1);
}

static void fails(struct creport *r)
{
    r->fails = xcalloc(r->nvariants * r->ncells, sizeof(*r->fails));
    struct creport_fail *f = &r->fails[0 * r->ncells + 0];
    *f = (struct creport_fail){.failed = 1, .ok = 3};
    snprintf(f->reason, sizeof(f->reason), "hiccup: gremlin in the wire");
    snprintf(f->short_reason, sizeof(f->short_reason), "gremlin");
    f = &r->fails[1 * r->ncells + 1];
    *f = (struct creport_fail){.failed = 4, .ok = 0};
    snprintf(f->reason, sizeof(f->reason), "peer vanished: yak herd stampede");
    snprintf(f->short_reason, sizeof(f->short_reason), "yak stampede");
}

/* Four ok runs in run order, the first a warm-up: what the run order figure draws. */
static void runlist(struct creport *r)
{
    static const struct {
        int seq;
        size_t v, c;
        bool warmup;
        double gnu, yak;
    } runs[] = {{1, 0, 0, true, 1, 7},
                {2, 0, 0, false, 3, 8},
                {3, 1, 0, false, 6, 10},
                {4, 0, 1, false, 20, 1}};
    r->nrunlist = sizeof(runs) / sizeof(*runs);
    r->runlist = xcalloc(r->nrunlist, sizeof(*r->runlist));
    for (size_t i = 0; i < r->nrunlist; i++)
        r->runlist[i] = (struct creport_run){runs[i].seq, runs[i].v, runs[i].c, runs[i].warmup,
                                             doubles(2, (double[]){runs[i].gnu, runs[i].yak})};
}

/*
 * What the model computes once for every format, given here: the CPU cost
 * decision of each cell, the verdict tallies (figures no entry gives) and
 * the failed (variant, cell) pairs.
 */
static void model_judged(struct creport *r)
{
    r->cpu = xcalloc(r->ncells, sizeof(*r->cpu));
    for (size_t c = 0; c < r->ncells; c++) {
        r->cpu[c] = (struct creport_cpu_cost){.metric = 1, .system = 1, .others_pct = 3.5};
        snprintf(r->cpu[c].why, sizeof(r->cpu[c].why), "yak grooming decides, says the fixture");
    }
    r->cpu_costed = 2;
    r->cpu_worst = 0;
    r->cpu_worst_of = 2;
    r->tally_headline = (struct creport_tally){.n = 21, .kind = {2, 3, 4, 5, 7}};
    r->tally_others = (struct creport_tally){.n = 17, .kind = {6, 8, 1, 1, 1}, .significant = 1};
    r->tally_metric = xcalloc(r->nmetrics, sizeof(*r->tally_metric));
    r->tally_metric[1] = (struct creport_tally){.n = 9, .kind = {4, 5, 0, 0, 0}};
    r->fail_sets = 2;
    r->exit_status = 1;
    snprintf(r->exit_reason, sizeof(r->exit_reason), "the fixture's own exit reason");
}

struct creport *model_fixture(unsigned sections)
{
    struct creport *r = xcalloc(1, sizeof(*r));
    r->id = 4242;
    r->name = xstrdup("menagerie");
    r->status = xstrdup("done");
    r->seed = 777;
    r->opts = (struct creport_opts){.confidence = 0.9, .noise = 0.03, .sections = sections};
    r->nvariants = 2;
    r->variants = xcalloc(2, sizeof(char *));
    r->variants[0] = xstrdup("zebra-base");
    r->variants[1] = xstrdup("quokka-v2");
    r->commands = xcalloc(2, sizeof(char *));
    r->commands[0] = xstrdup("netab run --stripes");
    r->commands[1] = xstrdup("netab run --no-stripes");
    metrics(r);
    cells(r);
    entries(r);
    fails(r);
    runlist(r);
    r->runs = (struct creport_run_counts){
        .measured = 502, .warmup = 203, .failed = 104, .interrupted = 5, .planned = 1001};
    r->n_measured = xcalloc(r->nvariants * r->ncells, sizeof(long));
    r->n_measured[0] = 31; /* zebra-base @ okapi=7 */
    r->n_measured[1] = 32; /* zebra-base @ okapi=9 */
    r->n_measured[2] = 33; /* quokka-v2 @ okapi=7 */
    r->n_improved = 11;
    r->n_regressed = 12;
    r->n_within = 13;
    r->n_unproven = 14;
    r->n_nocmp = 15;
    r->n_regressed_deciding = 3;
    model_judged(r);
    return r;
}

char *model_fixture_render(const struct creport *r, int (*print)(const struct creport *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    int e = print(r, f);
    if (fclose(f) || e) {
        free(buf);
        return NULL;
    }
    return buf;
}
