#include "stats/welch.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

void stats_welch(const struct stats_sample *a, const struct stats_sample *b, double conf,
                 struct stats_welch *out)
{
    double va = a->var / (double)a->n, vb = b->var / (double)b->n;
    out->diff = b->mean - a->mean;
    out->se = sqrt(va + vb);
    if (out->se == 0) {
        out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
        out->df = (double)(a->n + b->n - 2);
        out->p = out->diff == 0 ? 1.0 : 0.0;
        out->tq = gsl_cdf_tdist_Pinv(1 - (1 - conf) / 2, out->df);
        out->ci_low = out->ci_high = out->diff;
        return;
    }
    out->t = out->diff / out->se;
    double den = 0;
    if (va > 0)
        den += va * va / (double)(a->n - 1);
    if (vb > 0)
        den += vb * vb / (double)(b->n - 1);
    out->df = (va + vb) * (va + vb) / den;
    out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
    if (out->p > 1)
        out->p = 1;
    out->tq = gsl_cdf_tdist_Pinv(1 - (1 - conf) / 2, out->df);
    out->ci_low = out->diff - out->tq * out->se;
    out->ci_high = out->diff + out->tq * out->se;
}
