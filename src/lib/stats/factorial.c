/* The 2x2 design's main effects and interaction as Welch-style contrasts (factorial.h). */
#include "stats/factorial.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>

/*
 * The contrast sum(w[i][j] * mean[i][j]): its standard error
 * sqrt(sum(w^2 var / n)) and the Welch-Satterthwaite degrees of freedom
 * se^4 / sum((w^2 var / n)^2 / (n - 1)), then the t interval and p.
 */
static void contrast(const struct stats_cell cell[2][2], const double w[2][2], double conf,
                     struct stats_effect *e)
{
    double est = 0, var = 0, den = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const struct stats_cell *c = &cell[i][j];
            double part = w[i][j] * w[i][j] * c->var / (double)c->n;
            est += w[i][j] * c->mean;
            var += part;
            den += part * part / (double)(c->n - 1);
        }
    e->estimate = est;
    e->se = sqrt(var);
    if (var > 0 && den > 0) {
        e->df = var * var / den;
        double tq = gsl_cdf_tdist_Pinv(1 - (1 - conf) / 2, e->df);
        e->ci_low = est - tq * e->se;
        e->ci_high = est + tq * e->se;
        e->p = 2 * gsl_cdf_tdist_Q(fabs(est) / e->se, e->df);
    } else {
        /* No spread anywhere: the estimate is exact, as in stats_welch(). */
        e->df = INFINITY;
        e->ci_low = e->ci_high = est;
        e->p = est == 0 ? 1 : 0;
    }
    double ref = cell[0][0].mean;
    bool scaled = ref > 0;
    e->pct = scaled ? 100 * e->estimate / ref : NAN;
    e->pct_low = scaled ? 100 * e->ci_low / ref : NAN;
    e->pct_high = scaled ? 100 * e->ci_high / ref : NAN;
}

int stats_factorial_2x2(const struct stats_cell cell[2][2], double conf, struct stats_2x2 *out)
{
    if (!(conf > 0 && conf < 1))
        return -EINVAL;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (cell[i][j].n < 2 || !isfinite(cell[i][j].mean) || !isfinite(cell[i][j].var) ||
                cell[i][j].var < 0)
                return -EINVAL;
    static const double main_a[2][2] = {{-0.5, -0.5}, {0.5, 0.5}};
    static const double main_b[2][2] = {{-0.5, 0.5}, {-0.5, 0.5}};
    static const double inter[2][2] = {{1, -1}, {-1, 1}};
    contrast(cell, main_a, conf, &out->a);
    contrast(cell, main_b, conf, &out->b);
    contrast(cell, inter, conf, &out->interaction);
    return 0;
}
