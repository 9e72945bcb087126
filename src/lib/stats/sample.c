#include "stats/sample.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pair {
    double v;
    size_t i;
};

static int pair_cmp(const void *a, const void *b)
{
    const struct pair *pa = a, *pb = b;
    if (pa->v < pb->v)
        return -1;
    if (pa->v > pb->v)
        return 1;
    /* Ties keep run order so that the ranking is deterministic. */
    return (pa->i > pb->i) - (pa->i < pb->i);
}

void stats_sample_free(struct stats_sample *s)
{
    free(s->framed);
    free(s->sorted);
    free(s->rank);
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
    if (n < 1 || n > SIZE_MAX / sizeof(struct pair))
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
    if (n < 1 || n > SIZE_MAX / sizeof(struct pair))
        return -EINVAL;
    struct pair *p = malloc(n * sizeof(*p));
    s->sorted = malloc(n * sizeof(double));
    s->rank = malloc(n * sizeof(double));
    if (!p || !s->sorted || !s->rank) {
        free(p);
        stats_sample_free(s);
        return -ENOMEM;
    }
    /* Kahan summation keeps the mean of a million similar values exact to ~1 ulp. */
    double sum = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            free(p);
            stats_sample_free(s);
            return -EINVAL;
        }
        p[i].v = x[i];
        p[i].i = i;
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

    qsort(p, n, sizeof(*p), pair_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && p[j].v == p[i].v)
            j++;
        /* Tied values share the average of the ranks they occupy. */
        double r = ((double)(i + 1) + (double)j) / 2.0;
        if (j - i > 1)
            s->n_ties += j - i;
        for (size_t k = i; k < j; k++) {
            s->sorted[k] = p[k].v;
            s->rank[p[k].i] = r;
        }
        i = j;
    }
    free(p);
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
