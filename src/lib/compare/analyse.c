/*
 * From the runs of a campaign to statistics and an exit status: one
 * `netab stats`-style report per metric, variant 0 as the baseline.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/result.h"
#include "input/input.h"

void compare_metric_report_free(struct compare_metric_report *m)
{
    stats_report_free(&m->r);
    m->ok = false;
}

/*
 * Gives set v of r variant v's values of metric mi, in run order so that the
 * drift check sees the real sequence. Returns 0 or -ENOMEM.
 */
static int variant_values(const struct compare_result *res, size_t mi, size_t v,
                          struct stats_report *r)
{
    const struct compare_metric *m = &res->c->metrics[mi];
    double *vals = malloc((res->nruns ? res->nruns : 1) * sizeof(double));
    size_t n = 0;
    if (!vals)
        return -ENOMEM;
    for (size_t k = 0; k < res->nruns; k++) {
        const struct compare_run *run = &res->runs[k];
        if (run->slot.variant == v && !run->slot.warmup && run->status == COMPARE_RUN_OK &&
            isfinite(run->values[mi]))
            vals[n++] = run->values[mi];
    }
    int rc = stats_report_set_values(r, v, res->c->cfg->variants[v].name,
                                     input_format_name(m->path ? INPUT_NETAB : INPUT_PLAIN),
                                     m->path ? m->path : "regex", vals, n);
    free(vals);
    return rc;
}

int compare_analyse_metric(const struct compare_result *res, size_t mi,
                           struct compare_metric_report *out)
{
    const struct compare_campaign *c = res->c;
    const struct compare_config *cfg = c->cfg;
    size_t nvar = cfg->nvariants;
    memset(out, 0, sizeof(*out));
    out->m = &c->metrics[mi];
    struct stats_opts o = res->opts;
    o.lower_is_better = out->m->lower_is_better;
    if (stats_report_init(&out->r, nvar, &o))
        goto nomem;
    out->r.plot = cfg->plot && mi == c->decide;
    for (size_t v = 0; v < nvar; v++)
        if (variant_values(res, mi, v, &out->r))
            goto nomem;
    for (size_t v = 0; v < nvar; v++)
        if (out->r.sets[v].n < 2) {
            snprintf(out->why, sizeof(out->why), "variant '%s' has %zu value%s (2 are needed)",
                     cfg->variants[v].name, out->r.sets[v].n, out->r.sets[v].n == 1 ? "" : "s");
            return 0;
        }
    char err[NB_ERRLEN];
    int rc = stats_report_analyse(&out->r, err, sizeof(err));
    if (rc == -ENOMEM)
        goto nomem;
    if (rc) {
        snprintf(out->why, sizeof(out->why), "comparison failed: %s", strerror(-rc));
        return 0;
    }
    out->ok = true;
    return 0;
nomem:
    compare_metric_report_free(out);
    return -ENOMEM;
}

int compare_analyse(struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    const struct compare_config *cfg = c->cfg;
    res->metrics = calloc(c->nmetrics, sizeof(*res->metrics));
    if (!res->metrics)
        return -ENOMEM;
    for (size_t i = 0; i < c->nmetrics; i++)
        if (compare_analyse_metric(res, i, &res->metrics[i]))
            return -ENOMEM;
    char perr[NB_ERRLEN];
    int prc = compare_pairs(res, perr, sizeof(perr));
    if (prc == -ENOMEM)
        return -ENOMEM;
    const struct compare_metric_report *d = &res->metrics[c->decide];
    compare_cpu_cost(res, &res->cpu);
    res->steal = (struct metric_steal){0};
    for (size_t k = 0; k < res->nruns; k++)
        metric_steal_add(&res->steal, res->runs[k].steal_pct);
    if (res->interrupted) {
        res->exit_code = COMPARE_UNDECIDED;
        snprintf(res->exit_reason, sizeof(res->exit_reason), "interrupted after %u round%s",
                 res->rounds, res->rounds == 1 ? "" : "s");
        return 0;
    }
    if (res->stopped_early[0]) {
        res->exit_code = COMPARE_UNDECIDED;
        snprintf(res->exit_reason, sizeof(res->exit_reason), "stopped early: %.300s",
                 res->stopped_early);
        return 0;
    }
    /* Too few successful runs anywhere means the campaign did not do its job. */
    for (size_t v = 0; v < cfg->nvariants; v++) {
        size_t ok = 0;
        for (size_t k = 0; k < res->nruns; k++)
            ok += res->runs[k].slot.variant == v && !res->runs[k].slot.warmup &&
                  res->runs[k].status == COMPARE_RUN_OK;
        if (ok < 2) {
            res->exit_code = COMPARE_UNDECIDED;
            snprintf(res->exit_reason, sizeof(res->exit_reason),
                     "variant '%s' has %zu successful run%s; at least 2 are needed for a verdict",
                     cfg->variants[v].name, ok, ok == 1 ? "" : "s");
            return 0;
        }
    }
    if (!d->ok) {
        res->exit_code = COMPARE_UNDECIDED;
        snprintf(res->exit_reason, sizeof(res->exit_reason), "no verdict on %s: %s", d->m->name,
                 d->why);
        return 0;
    }
    if (prc) {
        res->exit_code = COMPARE_UNDECIDED;
        snprintf(res->exit_reason, sizeof(res->exit_reason), "--pairs all: %s", perr);
        return 0;
    }
    res->exit_code = COMPARE_NO_REGRESSION;
    snprintf(res->exit_reason, sizeof(res->exit_reason),
             "no regression in %s beyond the %g%% noise floor", d->m->name, res->opts.noise * 100);
    for (size_t v = 1; v < cfg->nvariants; v++) {
        const struct stats_verdict *vd = &d->r.cmps[v - 1].c.verdict;
        if (vd->kind == STATS_REGRESSED) {
            char chg[128];
            stats_verdict_change(vd, chg, sizeof(chg));
            res->exit_code = COMPARE_REGRESSED;
            snprintf(res->exit_reason, sizeof(res->exit_reason),
                     "'%s' regressed in %s by %s against '%s'", cfg->variants[v].name, d->m->name,
                     chg, cfg->variants[0].name);
            break;
        }
    }
    if (res->adaptive && !res->target_reached) {
        size_t len = strlen(res->exit_reason);
        snprintf(res->exit_reason + len, sizeof(res->exit_reason) - len,
                 "; the --until-ci target of +-%g%% was not reached in %u rounds",
                 cfg->until_ci * 100, res->rounds);
    }
    return 0;
}

void compare_result_free(struct compare_result *res)
{
    for (size_t i = 0; i < res->nruns; i++)
        compare_run_free(&res->runs[i]);
    free(res->runs);
    res->runs = NULL;
    res->nruns = res->cap = 0;
    if (res->metrics)
        for (size_t i = 0; i < res->c->nmetrics; i++)
            compare_metric_report_free(&res->metrics[i]);
    free(res->metrics);
    res->metrics = NULL;
    json_decref(res->pairs);
    res->pairs = NULL;
}

int compare_profdiff(const struct compare_result *res, size_t v, size_t top, struct profdiff *out,
                     char *err, size_t errlen)
{
    const json_t **base = calloc(res->nruns + 1, sizeof(*base));
    const json_t **other = calloc(res->nruns + 1, sizeof(*other));
    size_t nb = 0, no = 0;
    int rc = base && other ? 0 : -ENOMEM;
    for (size_t i = 0; !rc && i < res->nruns; i++) {
        const struct compare_run *r = &res->runs[i];
        if (r->status != COMPARE_RUN_OK || r->slot.warmup || !r->profile)
            continue;
        if (r->slot.variant == 0)
            base[nb++] = r->profile;
        else if (r->slot.variant == v)
            other[no++] = r->profile;
    }
    if (!rc)
        rc = profdiff_compute(base, nb, other, no, res->opts.confidence, top, out, err, errlen);
    free(base);
    free(other);
    return rc;
}
