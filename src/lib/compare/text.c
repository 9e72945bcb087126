/* The text report of `netab compare`. Printing only: every number is computed already. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/text.h"
#include "metric/metric.h"
#include "statsreport/pairs.h"

static void print_header(FILE *out, const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    size_t ok = 0, failed = 0, warm = 0;
    for (size_t i = 0; i < res->nruns; i++) {
        if (res->runs[i].slot.warmup)
            warm++;
        else if (res->runs[i].status == COMPARE_RUN_OK)
            ok++;
        else
            failed++;
    }
    fprintf(out, "netab compare: %zu variants, baseline '%s'; seed %llu\n", cfg->nvariants,
            cfg->variants[0].name, (unsigned long long)cfg->seed);
    for (size_t v = 0; v < cfg->nvariants; v++) {
        const struct compare_variant *x = &cfg->variants[v];
        fprintf(out, "  %-12s %s%s%s\n", x->name, x->cmd ? x->cmd : "netab run", x->opts ? " " : "",
                x->opts ? x->opts : "");
    }
    fprintf(out,
            "schedule: %u measured round%s + %u warm-up, shuffled and interleaved; %zu runs ok, "
            "%zu failed, %zu warm-up discarded\n",
            res->rounds, res->rounds == 1 ? "" : "s", cfg->warmup, ok, failed, warm);
    if (res->adaptive)
        fprintf(out,
                "adaptive: target +-%g%%, %u of %u planned looks, %s; intervals at %g%% "
                "(Bonferroni over the looks%s)\n",
                cfg->until_ci * 100, res->looks_done, res->looks_planned,
                res->target_reached ? "target reached" : "TARGET NOT REACHED",
                res->opts.confidence * 100, res->pairs && res->npairs > 1 ? " and the pairs" : "");
    for (size_t i = 0; i < res->nruns; i++) {
        const struct compare_run *r = &res->runs[i];
        if (r->status != COMPARE_RUN_OK)
            fprintf(out, "failed: run %u (round %u%s, %s): %s\n", r->slot.seq, r->slot.round,
                    r->slot.warmup ? ", warm-up" : "", cfg->variants[r->slot.variant].name,
                    r->error);
    }
}

/* --pairs all: the section `netab report --pairs all` prints, for the one cell of a compare. */
static void print_pairs(FILE *out, const struct compare_result *res)
{
    const struct compare_metric_report *d = &res->metrics[res->c->decide];
    size_t i;
    json_t *p;
    if (!res->pairs)
        return;
    report_pairs_print_intro(out, res->npairs, res->opts.confidence, res->family_confidence);
    fprintf(out, "%s:%s%s\n", d->m->name, d->ok ? "" : " not compared: ", d->ok ? "" : d->why);
    json_array_foreach(res->pairs, i, p)
    {
        report_pairs_print_line(out, p, res->npairs);
    }
}

/* Why CPU cost is decided on the figure it is (docs/compare.md, "CPU cost"): the judgement's
 * sentence. */
static void print_cpu_basis(FILE *out, const struct compare_result *res)
{
    const struct compare_cpu_cost *k = &res->cpu;
    char why[512];
    judge_cost_sentence(&k->rule, res->c->metrics[k->metric].name,
                        k->system >= 0 ? res->c->metrics[k->system].name : "", why, sizeof(why));
    fprintf(out, "CPU cost is %s\n", why);
}

/* One line per variant: the deciding metric's verdict and the CPU cost's, side by side. */
static void print_cpu_cost(FILE *out, const struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    const struct compare_metric_report *d = &res->metrics[c->decide];
    if (res->cpu.metric < 0 || (int)c->decide == res->cpu.metric || !d->ok)
        return;
    const struct compare_metric_report *k = &res->metrics[res->cpu.metric];
    for (size_t v = 1; v < c->cfg->nvariants; v++) {
        const struct stats_verdict *vd = &k->r.cmps[v - 1].c.verdict;
        char chg[128];
        stats_verdict_change(vd, chg, sizeof(chg));
        fprintf(out, "CPU cost: %s vs %s: %s %s, %s\n", c->cfg->variants[v].name,
                c->cfg->variants[0].name, k->m->name, stats_verdict_name(vd->kind), chg);
    }
    print_cpu_basis(out, res);
    for (size_t v = 1; v < c->cfg->nvariants; v++)
        fprintf(out, "summary: %s vs %s: %s %s, CPU cost %s\n", c->cfg->variants[v].name,
                c->cfg->variants[0].name, d->m->name,
                stats_verdict_name(d->r.cmps[v - 1].c.verdict.kind),
                stats_verdict_name(k->r.cmps[v - 1].c.verdict.kind));
}

/* The differential profile of each variant against the baseline, where the runs were profiled. */
static void print_profiles(FILE *out, const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    for (size_t v = 1; v < cfg->nvariants; v++) {
        struct profdiff d;
        char err[NB_ERRLEN], title[160];
        if (compare_profdiff(res, v, 10, &d, err, sizeof(err)))
            continue;
        snprintf(title, sizeof(title),
                 "\nprofile: %.40s vs %.40s (share of samples):", cfg->variants[v].name,
                 cfg->variants[0].name);
        profdiff_text(out, title, &d);
        profdiff_free(&d);
    }
}

void compare_text_print(FILE *out, const struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    print_header(out, res);
    for (size_t i = 0; i < c->nmetrics; i++) {
        const struct compare_metric_report *m = &res->metrics[i];
        /* Metrics the test does not have (latency of a stream test) are not worth a line. */
        if (!m->ok && !m->m->always && i != c->decide)
            continue;
        fprintf(out, "\n== %s: %s%s%s%s, %s is better%s ==\n", m->m->name,
                m->m->path ? m->m->path : "regex match", *m->m->unit ? " (" : "", m->m->unit,
                *m->m->unit ? ")" : "", m->m->lower_is_better ? "lower" : "higher",
                i == c->decide ? "; decides the exit status" : "");
        if (!m->ok) {
            fprintf(out, "not reported: %s\n", m->why);
            continue;
        }
        /* A write error sticks to out, which the caller checks at the end. */
        if (stats_report_print_text(&m->r, out))
            continue;
    }
    print_pairs(out, res);
    fprintf(out, "\n");
    const struct compare_metric_report *d = &res->metrics[c->decide];
    if (d->ok)
        for (size_t v = 1; v < c->cfg->nvariants; v++) {
            const struct stats_verdict *vd = &d->r.cmps[v - 1].c.verdict;
            char chg[128];
            stats_verdict_change(vd, chg, sizeof(chg));
            fprintf(out, "result: %s vs %s: %s %s, %s\n", c->cfg->variants[v].name,
                    c->cfg->variants[0].name, d->m->name, stats_verdict_name(vd->kind), chg);
        }
    print_cpu_cost(out, res);
    print_profiles(out, res);
    char steal[320];
    if (metric_steal_sentence(&res->steal, steal, sizeof(steal)))
        fprintf(out, "warning: %s\n", steal);
    fprintf(out, "exit status %d: %s\n", res->exit_code, res->exit_reason);
}
