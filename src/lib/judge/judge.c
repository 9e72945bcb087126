/* The one judgement (judge.h). */
#include "judge/judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const struct metric *judge_decider(unsigned kind)
{
    const char *name = kind & METRIC_RR     ? "transactions"
                       : kind & METRIC_CRR  ? "connections"
                       : kind & METRIC_RRUL ? "rpm"
                                            : "throughput";
    return metric_find(name);
}

const struct metric *judge_decider_of_test(const char *test)
{
    return judge_decider(metric_kind_of(test));
}

const char *judge_direction(bool lower_is_better)
{
    return lower_is_better ? "lower_is_better" : "higher_is_better";
}

const char *judge_direction_word(bool lower_is_better)
{
    return lower_is_better ? "lower" : "higher";
}

void judge_cost_choose(unsigned kind, double others_pct, bool has_system, bool has_process,
                       struct judge_cost *out)
{
    const struct metric *sys = metric_with_flag(METRIC_COST_SYSTEM, kind);
    const struct metric *proc = metric_with_flag(METRIC_COST_PROCESS, kind);
    *out = (struct judge_cost){.others_pct = others_pct};
    out->system = has_system ? sys : NULL;
    out->polluted = others_pct >= JUDGE_POLLUTED_PCT;
    if ((out->polluted || !out->system) && has_process && proc)
        out->decides = proc;
    else
        out->decides = out->system;
}

void judge_cost_sentence(const struct judge_cost *k, const char *decides_label,
                         const char *system_label, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (!k->decides)
        return;
    if (k->polluted && k->system)
        snprintf(buf, len,
                 "decided on %s; the system-wide %s is polluted (other processes %.0f%% of "
                 "busy CPU; threshold %g%%)",
                 decides_label, system_label, k->others_pct, JUDGE_POLLUTED_PCT);
    else if (isfinite(k->others_pct))
        snprintf(buf, len, "decided on %s (other processes %.0f%% of busy CPU, below %g%%)",
                 decides_label, k->others_pct, JUDGE_POLLUTED_PCT);
    else
        snprintf(buf, len, "decided on %s", decides_label);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double judge_median(double *x, size_t n)
{
    if (!n)
        return NAN;
    qsort(x, n, sizeof(*x), cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}
