#include "engine/flowstat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double flowstat_jain(const double *v, int n)
{
    double s = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        s += v[i];
        sq += v[i] * v[i];
    }
    if (n <= 0 || sq <= 0)
        return -1;
    return s * s / ((double)n * sq);
}

double flowstat_rank(const double *sorted, int n, double pct)
{
    if (n <= 0)
        return 0;
    pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
    double r = ceil(pct / 100.0 * (double)n);
    int rank = r < 1 ? 1 : (int)r;
    return sorted[(rank > n ? n : rank) - 1];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int flowstat_spread(const double *v, int n, struct flow_spread *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->jain = flowstat_jain(v, n);
    if (n <= 0)
        return 0;
    double *s = malloc((size_t)n * sizeof(double));
    if (!s)
        return -ENOMEM;
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    for (int i = 0; i < n; i++) {
        out->sum += s[i];
        out->zero += s[i] == 0;
    }
    out->mean = out->sum / n;
    out->min = s[0];
    out->max = s[n - 1];
    out->p1 = flowstat_rank(s, n, 1);
    out->p10 = flowstat_rank(s, n, 10);
    out->median = flowstat_rank(s, n, 50);
    out->p90 = flowstat_rank(s, n, 90);
    free(s);
    return 0;
}
