#include "stats/mannwhitney.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

/*
 * Number of arrangements of m a-values and n b-values with U = u, for all u
 * at once, by the recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
 * With m, n <= 8 the counts stay below C(16, 8) = 12870, exact in doubles.
 */
static void exact_counts(int m, int n, double *cnt /* [m * n + 1] */)
{
    double f[STATS_MW_EXACT_MAX + 1][STATS_MW_EXACT_MAX + 1]
            [STATS_MW_EXACT_MAX * STATS_MW_EXACT_MAX + 1];
    memset(f, 0, sizeof(f));
    for (int i = 0; i <= m; i++)
        for (int j = 0; j <= n; j++)
            for (int u = 0; u <= i * j; u++) {
                if (i == 0 || j == 0) {
                    f[i][j][u] = u == 0;
                    continue;
                }
                double v = f[i][j - 1][u];
                if (u >= j)
                    v += f[i - 1][j][u - j];
                f[i][j][u] = v;
            }
    for (int u = 0; u <= m * n; u++)
        cnt[u] = f[m][n][u];
}

void stats_mannwhitney(const struct stats_sample *a, const struct stats_sample *b,
                       struct stats_mw *out)
{
    size_t na = a->n, nb = b->n, N = na + nb;
    /* Merge the sorted sets; each tie group gets the average of its ranks. */
    double ra = 0, tie_sum = 0;
    bool ties = false;
    size_t i = 0, j = 0, pos = 0;
    while (i < na || j < nb) {
        double v =
            (j >= nb || (i < na && a->sorted[i] <= b->sorted[j])) ? a->sorted[i] : b->sorted[j];
        size_t ca = 0, cb = 0;
        while (i < na && a->sorted[i] == v)
            i++, ca++;
        while (j < nb && b->sorted[j] == v)
            j++, cb++;
        double t = (double)(ca + cb);
        double avg = (double)pos + (t + 1) / 2;
        ra += avg * (double)ca;
        if (t > 1) {
            ties = true;
            tie_sum += t * t * t - t;
        }
        pos += ca + cb;
    }
    double u = ra - (double)na * (double)(na + 1) / 2;
    double mu = (double)na * (double)nb / 2;
    out->u = u;

    if (na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX && !ties) {
        double cnt[STATS_MW_EXACT_MAX * STATS_MW_EXACT_MAX + 1], total = 0, le = 0, ge = 0;
        int m = (int)na, n = (int)nb, uu = (int)lround(u);
        exact_counts(m, n, cnt);
        for (int k = 0; k <= m * n; k++) {
            total += cnt[k];
            if (k <= uu)
                le += cnt[k];
            if (k >= uu)
                ge += cnt[k];
        }
        out->exact = true;
        out->z = NAN;
        out->p = fmin(1.0, 2 * fmin(le, ge) / total);
        return;
    }
    out->exact = false;
    double Nd = (double)N;
    double var = (double)na * (double)nb / 12 * ((Nd + 1) - tie_sum / (Nd * (Nd - 1)));
    if (var <= 0) {
        /* Every value is equal: nothing distinguishes the sets. */
        out->z = 0;
        out->p = 1;
        return;
    }
    double dev = fabs(u - mu) - 0.5;
    if (dev < 0)
        dev = 0;
    out->z = dev / sqrt(var);
    out->p = fmin(1.0, 2 * gsl_cdf_ugaussian_Q(out->z));
}
