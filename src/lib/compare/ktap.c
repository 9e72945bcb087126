/* The KTAP form of `netab compare`: printing only, every verdict is compare_analyse()'s. */
#include <stdio.h>

#include "compare/ktap.h"
#include "util/ktap.h"

/* The failed runs, as the text's header lists them: a reason for a SKIP or a surprise. */
static void failed_runs(FILE *out, const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    for (size_t i = 0; i < res->nruns; i++) {
        const struct compare_run *r = &res->runs[i];
        if (r->status != COMPARE_RUN_OK)
            ktap_diag(out, "failed: run %u (round %u%s, %s): %s", r->slot.seq, r->slot.round,
                      r->slot.warmup ? ", warm-up" : "", cfg->variants[r->slot.variant].name,
                      r->error);
    }
}

/* Variant v's figures and verdict on the deciding metric d, before its test line. */
static void figures(FILE *out, const struct compare_result *res,
                    const struct compare_metric_report *d, size_t v)
{
    const struct compare_config *cfg = res->c->cfg;
    const struct stats_report_set *b = &d->r.sets[0], *o = &d->r.sets[v];
    const struct stats_comparison *c = &d->r.cmps[v - 1].c;
    char chg[128], why[512];
    stats_verdict_change(&c->verdict, chg, sizeof(chg));
    stats_verdict_explain(&c->verdict, c->welch.p, res->opts.noise, why, sizeof(why));
    const char *sp = *d->m->unit ? " " : "";
    ktap_diag(out, "%s: median %.6g%s%s over %zu runs; %s: median %.6g%s%s over %zu runs",
              cfg->variants[0].name, b->sum.median, sp, d->m->unit, b->n, cfg->variants[v].name,
              o->sum.median, sp, d->m->unit, o->n);
    ktap_diag(out, "change %s at %g%% confidence; %s", chg, res->opts.confidence * 100, why);
}

void compare_ktap_print(FILE *out, const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    const struct compare_metric_report *d = &res->metrics[res->c->decide];
    size_t pass = 0, fail = 0, skip = 0;
    ktap_header(out, cfg->nvariants - 1);
    ktap_diag(out,
              "netab compare: baseline '%s', deciding metric %s (%s is better), noise floor "
              "%g%%, seed %llu",
              cfg->variants[0].name, d->m->name, d->m->lower_is_better ? "lower" : "higher",
              res->opts.noise * 100, (unsigned long long)cfg->seed);
    failed_runs(out, res);
    for (size_t v = 1; v < cfg->nvariants; v++) {
        char name[256];
        snprintf(name, sizeof(name), "%s vs %s: %s", cfg->variants[v].name, cfg->variants[0].name,
                 d->m->name);
        if (!d->ok) {
            ktap_result(out, v, true, name, d->why);
            skip++;
            continue;
        }
        figures(out, res, d, v);
        bool regressed = d->r.cmps[v - 1].c.verdict.kind == STATS_REGRESSED;
        ktap_result(out, v, !regressed, name, NULL);
        regressed ? fail++ : pass++;
    }
    ktap_diag(out, "exit status %d: %s", res->exit_code, res->exit_reason);
    ktap_totals(out, pass, fail, skip);
}
