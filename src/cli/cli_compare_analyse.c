/*
 * From the runs of a campaign to statistics and an exit status: one
 * `netab stats`-style report per metric, variant 0 as the baseline.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_compare.h"

static const char symbols[] = "x+*%#@O";

void cli_compare_metric_free(struct cli_compare_metric_report *m)
{
    if (m->r.sets)
        for (size_t i = 0; i < m->r.nsets; i++) {
            stats_sample_free(&m->r.sets[i].sample);
            input_values_free(&m->r.sets[i].in);
        }
    free(m->r.sets);
    free(m->r.cmps);
    m->r.sets = NULL;
    m->r.cmps = NULL;
    m->ok = false;
}

int cli_compare_analyse_metric(const struct cli_compare_result *res, size_t mi,
                               struct cli_compare_metric_report *out)
{
    const struct compare_campaign *c = res->c;
    const struct compare_config *cfg = c->cfg;
    size_t nvar = cfg->nvariants;
    memset(out, 0, sizeof(*out));
    out->m = &c->metrics[mi];
    out->r.opts = res->opts;
    out->r.opts.lower_is_better = out->m->lower_is_better;
    out->r.nsets = nvar;
    out->r.plot = cfg->plot && mi == c->decide;
    out->r.sets = calloc(nvar, sizeof(*out->r.sets));
    out->r.cmps = calloc(nvar, sizeof(*out->r.cmps));
    if (!out->r.sets || !out->r.cmps)
        goto nomem;
    for (size_t v = 0; v < nvar; v++) {
        struct cli_stats_set *s = &out->r.sets[v];
        s->name = cfg->variants[v].name;
        s->symbol = symbols[v % (sizeof(symbols) - 1)];
        s->in.format = out->m->path ? INPUT_NETAB : INPUT_PLAIN;
        snprintf(s->in.metric, sizeof(s->in.metric), "%s", out->m->path ? out->m->path : "regex");
        s->in.v = malloc((res->nruns ? res->nruns : 1) * sizeof(double));
        if (!s->in.v)
            goto nomem;
        /* Values in run order, so that the drift check sees the real sequence. */
        for (size_t k = 0; k < res->nruns; k++) {
            const struct compare_run *r = &res->runs[k];
            if (r->slot.variant == v && !r->slot.warmup && r->status == COMPARE_RUN_OK &&
                isfinite(r->values[mi]))
                s->in.v[s->in.n++] = r->values[mi];
        }
    }
    for (size_t v = 0; v < nvar; v++)
        if (out->r.sets[v].in.n < 2) {
            snprintf(out->why, sizeof(out->why), "variant '%s' has %zu value%s (2 are needed)",
                     cfg->variants[v].name, out->r.sets[v].in.n,
                     out->r.sets[v].in.n == 1 ? "" : "s");
            return 0;
        }
    for (size_t v = 0; v < nvar; v++)
        if (cli_stats_describe(&out->r.sets[v], out->r.sets[v].name, &out->r.opts))
            goto nomem;
    for (size_t v = 1; v < nvar; v++) {
        struct cli_stats_cmp *m = &out->r.cmps[v - 1];
        m->other = v;
        int rc = stats_compare(&out->r.sets[0].sample, &out->r.sets[v].sample, &out->r.opts, &m->c);
        if (rc == -ENOMEM)
            goto nomem;
        if (rc) {
            snprintf(out->why, sizeof(out->why), "comparison failed: %s", strerror(-rc));
            return 0;
        }
        cli_stats_compare_warnings(m, &out->r.sets[0], &out->r.sets[v], &out->r.opts);
    }
    out->ok = true;
    return 0;
nomem:
    cli_compare_metric_free(out);
    return -ENOMEM;
}

int cli_compare_analyse(struct cli_compare_result *res)
{
    const struct compare_campaign *c = res->c;
    const struct compare_config *cfg = c->cfg;
    res->metrics = calloc(c->nmetrics, sizeof(*res->metrics));
    if (!res->metrics)
        return -ENOMEM;
    for (size_t i = 0; i < c->nmetrics; i++)
        if (cli_compare_analyse_metric(res, i, &res->metrics[i]))
            return -ENOMEM;
    const struct cli_compare_metric_report *d = &res->metrics[c->decide];
    if (res->interrupted) {
        res->exit_code = EXIT_USAGE;
        snprintf(res->exit_reason, sizeof(res->exit_reason), "interrupted after %u round%s",
                 res->rounds, res->rounds == 1 ? "" : "s");
        return 0;
    }
    /* Too few successful runs anywhere means the campaign did not do its job. */
    for (size_t v = 0; v < cfg->nvariants; v++) {
        size_t ok = 0;
        for (size_t k = 0; k < res->nruns; k++)
            ok += res->runs[k].slot.variant == v && !res->runs[k].slot.warmup &&
                  res->runs[k].status == COMPARE_RUN_OK;
        if (ok < 2) {
            res->exit_code = EXIT_USAGE;
            snprintf(res->exit_reason, sizeof(res->exit_reason),
                     "variant '%s' has %zu successful run%s; at least 2 are needed for a verdict",
                     cfg->variants[v].name, ok, ok == 1 ? "" : "s");
            return 0;
        }
    }
    if (!d->ok) {
        res->exit_code = EXIT_USAGE;
        snprintf(res->exit_reason, sizeof(res->exit_reason), "no verdict on %s: %s", d->m->name,
                 d->why);
        return 0;
    }
    res->exit_code = EXIT_OK;
    snprintf(res->exit_reason, sizeof(res->exit_reason),
             "no regression in %s beyond the %g%% noise floor", d->m->name, res->opts.noise * 100);
    for (size_t v = 1; v < cfg->nvariants; v++) {
        const struct stats_verdict *vd = &d->r.cmps[v - 1].c.verdict;
        if (vd->kind == STATS_REGRESSED) {
            res->exit_code = EXIT_FAIL;
            snprintf(res->exit_reason, sizeof(res->exit_reason),
                     "'%s' regressed in %s by %+.2f%% [%+.2f%%, %+.2f%%] against '%s'",
                     cfg->variants[v].name, d->m->name, vd->rel * 100, vd->rel_low * 100,
                     vd->rel_high * 100, cfg->variants[0].name);
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
