/*
 * Which figure decides CPU cost in `netab compare` (result.h, struct
 * compare_cpu_cost): on a shared host other processes' CPU time lands in the
 * system-wide figure (/proc/stat), so when it is a sizeable share the
 * process's own figure decides instead, and the output says which.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/result.h"
#include "metric/metric.h"

/* The index in c->metrics of the table figure t, or -1. */
static int index_of(const struct compare_campaign *c, const struct metric *t)
{
    for (size_t i = 0; t && i < c->nmetrics; i++)
        if (c->metrics[i].path && !strcmp(c->metrics[i].path, t->path))
            return (int)i;
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
        if (!n)
            continue;
        qsort(x, n, sizeof(double), cmp_double);
        double med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
        if (!(worst >= med))
            worst = med;
    }
    free(x);
    return worst;
}

void compare_cpu_cost(const struct compare_result *res, struct compare_cpu_cost *out)
{
    /* rr and crr documents carry a cost per KiB too, which means little there: per tran first. */
    static const unsigned kinds[] = {METRIC_RR, METRIC_TCP_STREAM};
    const struct compare_campaign *c = res->c;
    *out = (struct compare_cpu_cost){.metric = -1, .system = -1, .others_pct = NAN};
    /* Streams cost per KiB, rr and crr per transaction: the first pair with a figure. */
    int sys = -1, proc = -1;
    for (size_t k = 0; k < 2 && sys < 0 && proc < 0; k++) {
        int s = index_of(c, metric_with_flag(METRIC_COST_SYSTEM, kinds[k]));
        int p = index_of(c, metric_with_flag(METRIC_COST_PROCESS, kinds[k]));
        sys = s >= 0 && res->metrics[s].ok ? s : -1;
        proc = p >= 0 && res->metrics[p].ok ? p : -1;
    }
    out->system = sys;
    out->others_pct = worst_median(res);
    out->polluted = out->others_pct >= METRIC_POLLUTED_PCT;
    out->metric = (out->polluted || sys < 0) && proc >= 0 ? proc : sys;
}
