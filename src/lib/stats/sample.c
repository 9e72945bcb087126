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
    free(s->sorted);
    free(s->rank);
    memset(s, 0, sizeof(*s));
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
