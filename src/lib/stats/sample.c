#include "stats/sample.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sample_free(struct stats_sample *s)
{
    free(s->framed);
    free(s->sorted);
    memset(s, 0, sizeof(*s));
}

int stats_frame_choose(const double *const *sets, const size_t *ns, size_t nsets,
                       struct stats_frame *out, char *err, size_t errlen)
{
    out->offset = 0;
    out->exp = 0;
    if (!nsets || !ns[0])
        return 0;
    double c = sets[0][0], m = 0;
    for (size_t k = 0; k < nsets; k++)
        for (size_t i = 0; i < ns[k]; i++) {
            double d = fabs(sets[k][i] - c);
            /* Differences up to 2^1020 keep diff +- t * se and its square roots finite. */
            if (!(d <= 0x1p1020))
                return err_set(err, errlen, ERANGE,
                               "values %.6g and %.6g are too far apart to compare in double "
                               "precision (their difference exceeds 1e307)",
                               c, sets[k][i]);
            m = d > m ? d : m;
        }
    out->offset = c;
    if (m > 0) {
        int e;
        (void)frexp(m, &e);
        out->exp = -e;
    }
    return 0;
}

double stats_unframe_loc(const struct stats_sample *s, double v)
{
    return ldexp(v, -s->exp) + s->offset;
}

double stats_unframe_spread(const struct stats_sample *s, double v)
{
    return ldexp(v, -s->exp);
}

double stats_frame_origin(const struct stats_sample *s)
{
    return ldexp(s->offset, s->exp);
}

int stats_sample_init_frame(struct stats_sample *s, const double *x, size_t n,
                            const struct stats_frame *f)
{
    if (f->offset == 0 && f->exp == 0)
        return stats_sample_init(s, x, n);
    memset(s, 0, sizeof(*s));
    if (n < 1 || n > SIZE_MAX / sizeof(double))
        return -EINVAL;
    double *y = malloc(n * sizeof(*y));
    if (!y)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        y[i] = ldexp(x[i] - f->offset, f->exp);
        if (!isfinite(y[i])) {
            free(y);
            return -EINVAL;
        }
    }
    int rc = stats_sample_init(s, y, n);
    if (rc) {
        free(y);
        return rc;
    }
    s->framed = y;
    s->offset = f->offset;
    s->exp = f->exp;
    return 0;
}

int stats_sample_init(struct stats_sample *s, const double *x, size_t n)
{
    memset(s, 0, sizeof(*s));
    if (n < 1 || n > SIZE_MAX / sizeof(double))
        return -EINVAL;
    s->sorted = malloc(n * sizeof(double));
    if (!s->sorted)
        return -ENOMEM;
    /* Kahan summation keeps the mean of a million similar values exact to ~1 ulp. */
    double sum = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            stats_sample_free(s);
            return -EINVAL;
        }
        s->sorted[i] = x[i];
        double y = x[i] - c, t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    s->x = x;
    s->n = n;
    s->sum = sum;
    s->mean = sum / (double)n;
    /* Two-pass variance: subtracting the mean first avoids cancellation. */
    double ss = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - s->mean;
        ss += d * d;
        comp += d;
    }
    s->var = n > 1 ? (ss - comp * comp / (double)n) / (double)(n - 1) : 0.0;
    if (s->var < 0)
        s->var = 0;

    /*
     * Only the values are sorted, 8 bytes each: ranks are found in the
     * sorted copy when needed (the drift check), instead of an array of
     * (value, index) pairs and one of ranks, 24 bytes more per value.
     */
    qsort(s->sorted, n, sizeof(double), double_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s->sorted[j] == s->sorted[i])
            j++;
        if (j - i > 1)
            s->n_ties += j - i;
        i = j;
    }
    return 0;
}

double stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    if (p <= 0)
        return sorted[0];
    if (p >= 1)
        return sorted[n - 1];
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}
