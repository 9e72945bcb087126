#include "stats/mannwhitney.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

/*
 * h[0..K]: how many of the C(m + n, m) arrangements of m a-values among n
 * b-values have U = k, for every k <= K. These are the coefficients of the
 * Gaussian binomial [m + n choose m]_q, built one a-value at a time:
 * [n + i choose i]_q = [n + i - 1 choose i - 1]_q (1 - q^(n+i)) / (1 - q^i).
 * Only the lower half of each step is computed from the product (there the
 * subtraction loses at most a factor of i in relative precision, since
 * the coefficients rise towards the middle); the upper half is its mirror
 * image. O(m K) additions, no table of all (m, n) pairs: a coefficient at
 * k depends only on those below it, so the series is cut at K.
 */
static void exact_counts(size_t m, size_t n, size_t K, double *h)
{
    for (size_t k = 0; k <= K; k++)
        h[k] = k == 0;
    for (size_t i = 1; i <= m; i++) {
        size_t deg = i * n, top = deg < K ? deg : K, half = deg / 2;
        size_t lim = top < half ? top : half;
        for (size_t k = i; k <= lim; k++) /* divide by (1 - q^i) */
            h[k] += h[k - i];
        for (size_t k = lim + 1; k-- > n + i;) /* times (1 - q^(n+i)), from the top */
            h[k] -= h[k - (n + i)];
        for (size_t k = lim + 1; k <= top; k++) /* the mirror of the lower half */
            h[k] = h[deg - k];
    }
}

/*
 * The exact two-sided p of U = u (an integer, no ties), as scipy's
 * 2 * sf(max(U1, U2)): twice the mass at or below min(U1, U2), capped at 1.
 * Returns NaN when out of memory, which the caller takes as "use the
 * normal approximation".
 */
static double exact_p(size_t na, size_t nb, double u)
{
    size_t m = na < nb ? na : nb, n = na < nb ? nb : na;
    double mn = (double)m * (double)n, lo = fmin(u, mn - u);
    size_t K = (size_t)lo;
    double *h = malloc((K + 1) * sizeof(*h));
    if (!h)
        return NAN;
    exact_counts(m, n, K, h);
    double le = 0, total = 1;
    for (size_t k = 0; k <= K; k++)
        le += h[k];
    for (size_t i = 1; i <= m; i++) /* C(m + n, m), exact while it fits in 53 bits */
        total = total * (double)(n + i) / (double)i;
    free(h);
    return fmin(1.0, 2 * le / total);
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

    size_t small = na < nb ? na : nb;
    if (small <= STATS_MW_EXACT_MAX && !ties &&
        (double)na * (double)nb <= (double)STATS_MW_EXACT_CELLS) {
        double p = exact_p(na, nb, u);
        if (!isnan(p)) {
            out->exact = true;
            out->z = NAN;
            out->p = p;
            return;
        }
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
    /* |U - mu| is a multiple of 0.5, so this is scipy's (max(U1, U2) - mu - 0.5) / s clipped. */
    double dev = fabs(u - mu) - 0.5;
    if (dev < 0)
        dev = 0;
    out->z = dev / sqrt(var);
    out->p = fmin(1.0, 2 * gsl_cdf_ugaussian_Q(out->z));
}
