/*
 * Which figure decides CPU cost in `netab compare` (result.h, struct
 * compare_cpu_cost): the rule is judge_cost_choose()'s, the one every
 * command uses; this file finds the figures among compare's metrics.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/result.h"
#include "judge/judge.h"
#include "metric/metric.h"

/* The index in c->metrics of the table figure t, or -1. */
static int index_of(const struct compare_campaign *c, const struct metric *t)
{
    for (size_t i = 0; t && i < c->nmetrics; i++)
        if (c->metrics[i].path && !strcmp(c->metrics[i].path, t->path))
            return (int)i;
    return -1;
}

/* The largest over variants of the median others_pct of its measured ok runs; NaN if none. */
static double worst_median(const struct compare_result *res)
{
    double worst = NAN;
    double *x = malloc((res->nruns ? res->nruns : 1) * sizeof(double));
    if (!x)
        return NAN;
    for (size_t v = 0; v < res->c->cfg->nvariants; v++) {
        size_t n = 0;
        for (size_t k = 0; k < res->nruns; k++) {
            const struct compare_run *r = &res->runs[k];
            if (r->slot.variant == v && !r->slot.warmup && r->status == COMPARE_RUN_OK &&
                isfinite(r->others_pct))
                x[n++] = r->others_pct;
        }
        double med = judge_median(x, n);
        if (isfinite(med) && !(worst >= med))
            worst = med;
    }
    free(x);
    return worst;
}

void compare_cpu_cost(const struct compare_result *res, struct compare_cpu_cost *out)
{
    const struct compare_campaign *c = res->c;
    const unsigned kind = c->kind;
    int sys = index_of(c, metric_with_flag(METRIC_COST_SYSTEM, kind));
    int proc = index_of(c, metric_with_flag(METRIC_COST_PROCESS, kind));
    sys = sys >= 0 && res->metrics[sys].ok ? sys : -1;
    proc = proc >= 0 && res->metrics[proc].ok ? proc : -1;
    judge_cost_choose(kind, worst_median(res), sys >= 0, proc >= 0, &out->rule);
    out->system = sys;
    out->others_pct = out->rule.others_pct;
    out->polluted = out->rule.polluted;
    out->metric = !out->rule.decides ? -1 : out->rule.decides == out->rule.system ? sys : proc;
}
