#include "report/counters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figures worth a look when a variant differs; absent kernel counters mean 0. */
static const char *const figures[] = {
    "end.perf.local.ipc",
    "end.perf.remote.ipc",
    "end.perf.local.instructions_per_kib",
    "end.perf.remote.instructions_per_kib",
    "end.perf.local.cycles_per_byte",
    "end.perf.remote.cycles_per_byte",
    "end.perf.local.l1i_misses",
    "end.perf.remote.l1i_misses",
    "end.perf.local.itlb_misses",
    "end.perf.remote.itlb_misses",
    "end.perf.local.context_switches",
    "end.perf.remote.context_switches",
    "end.perf.local.cpu_migrations",
    "end.perf.remote.cpu_migrations",
    "end.perf.local.cpus_used",
    "end.perf.remote.cpus_used",
    "end.service_demand.local_us_per_kib_pinned",
    "end.service_demand.remote_us_per_kib_pinned",
    "end.kernel.local.Tcp.RetransSegs",
    "end.kernel.remote.Tcp.RetransSegs",
    "end.kernel.local.TcpExt.TCPLossProbes",
    "end.kernel.remote.TcpExt.TCPLossProbes",
    "end.kernel.local.Udp.RcvbufErrors",
    "end.kernel.remote.Udp.RcvbufErrors",
    "end.kernel.local.Udp.InErrors",
    "end.kernel.remote.Udp.InErrors",
    "end.kernel.local.interface.rx_dropped",
    "end.kernel.remote.interface.rx_dropped",
};
#define NFIG (sizeof(figures) / sizeof(figures[0]))

/* Follows a dotted path through objects; a kernel counter that is absent counts as 0. */
static bool figure_of(json_t *doc, const char *path, double *out)
{
    char comp[64];
    const char *p = path;
    json_t *cur = doc, *parent = NULL;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof(comp))
            return false;
        memcpy(comp, p, n);
        comp[n] = '\0';
        parent = cur;
        cur = json_object_get(cur, comp);
        p = dot ? dot + 1 : p + n;
    }
    if (json_is_number(cur)) {
        *out = json_number_value(cur);
        return true;
    }
    /* end.kernel.X.Group.Counter: the kernel object exists, the counter did not change. */
    if (!cur && !strncmp(path, "end.kernel.", 11) && parent && json_is_object(parent) &&
        !strstr(path, ".interface.")) {
        *out = 0;
        return true;
    }
    return false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool is_warmup(const struct store_plan_row *plan, size_t nplan, int seq)
{
    for (size_t i = 0; i < nplan; i++)
        if (plan[i].seq == seq)
            return plan[i].warmup;
    return false;
}

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* Medians of every figure for one variant and cell: vals[f], counts[f]. */
static int medians_of(const struct store_plan_row *plan, size_t nplan,
                      const struct creport_rundoc *runs, size_t nruns, const char *variant,
                      const char *cell, double *med, size_t *count)
{
    double *vals = calloc((nruns ? nruns : 1) * NFIG, sizeof(double));
    if (!vals)
        return -ENOMEM;
    memset(count, 0, NFIG * sizeof(*count));
    for (size_t k = 0; k < nruns; k++) {
        const struct store_run *run = runs[k].run;
        if (run->status != STORE_RUN_OK || !same(run->variant, variant) || !same(run->cell, cell) ||
            is_warmup(plan, nplan, run->seq) || !run->result_json)
            continue;
        for (size_t f = 0; runs[k].result && f < NFIG; f++) {
            double x;
            if (figure_of(runs[k].result, figures[f], &x))
                vals[f * nruns + count[f]++] = x;
        }
    }
    for (size_t f = 0; f < NFIG; f++)
        med[f] = count[f] ? median(&vals[f * nruns], count[f]) : NAN;
    free(vals);
    return 0;
}

/* Appends the difference of figure f (variant v against the baseline, cell c). 0 or -ENOMEM. */
static int add_diff(struct creport *r, size_t v, size_t c, size_t f, const double *base,
                    const double *med, const size_t *nbase, const size_t *n)
{
    struct creport_counter_diff *p =
        realloc(r->counter_diffs, (r->ncounter_diffs + 1) * sizeof(*p));
    if (!p)
        return -ENOMEM;
    r->counter_diffs = p;
    struct creport_counter_diff *d = &p[r->ncounter_diffs];
    *d = (struct creport_counter_diff){
        .v = v,
        .c = c,
        .variant = strdup(r->variants[v]),
        .cell = strdup(r->cells[c].name),
        .figure = figures[f],
        .baseline = base[f],
        .value = med[f],
        .has_change_pct = base[f] != 0,
        .change_pct = base[f] != 0 ? 100 * (med[f] - base[f]) / fabs(base[f]) : 0,
        .runs = n[f],
        .baseline_runs = nbase[f],
    };
    r->ncounter_diffs++;
    return d->variant && d->cell ? 0 : -ENOMEM;
}

int creport_counter_diffs(struct creport *r, const struct store_plan_row *plan, size_t nplan,
                          const struct creport_rundoc *runs, size_t nruns)
{
    double base[NFIG], med[NFIG];
    size_t nbase[NFIG], n[NFIG];
    for (size_t c = 0; c < r->ncells && r->nvariants > 1; c++) {
        const char *cell = r->cells[c].name;
        int e = medians_of(plan, nplan, runs, nruns, r->variants[0], cell, base, nbase);
        for (size_t v = 1; !e && v < r->nvariants; v++) {
            e = medians_of(plan, nplan, runs, nruns, r->variants[v], cell, med, n);
            for (size_t f = 0; !e && f < NFIG; f++) {
                double big = fmax(fabs(base[f]), fabs(med[f]));
                if (!n[f] || !nbase[f] || fabs(med[f] - base[f]) <= CREPORT_COUNTER_DIFF * big)
                    continue;
                e = add_diff(r, v, c, f, base, med, nbase, n);
            }
        }
        if (e)
            return e;
    }
    return 0;
}

void creport_counter_diffs_free(struct creport *r)
{
    for (size_t i = 0; r->counter_diffs && i < r->ncounter_diffs; i++) {
        free(r->counter_diffs[i].variant);
        free(r->counter_diffs[i].cell);
    }
    free(r->counter_diffs);
    r->counter_diffs = NULL;
    r->ncounter_diffs = 0;
}

json_t *creport_counters_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->ncounter_diffs; i++) {
        const struct creport_counter_diff *d = &r->counter_diffs[i];
        json_t *pct = d->has_change_pct ? json_real(d->change_pct) : json_null();
        json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:o, s:I, s:I}", "variant", d->variant,
                              "cell", d->cell, "figure", d->figure, "baseline", d->baseline,
                              "value", d->value, "change_pct", pct, "runs", (json_int_t)d->runs,
                              "baseline_runs", (json_int_t)d->baseline_runs);
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}
