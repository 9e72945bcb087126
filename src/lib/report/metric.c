/*
 * A report's metrics: the built-in columns and path metrics into the stored
 * run documents (metric.h).
 */
#include "report/metric.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/json_path.h"
#include "metric/perf.h"
#include "metric/metric.h"

#define ALL_TESTS                                                                                  \
    (CREPORT_TCP_STREAM | CREPORT_UDP_STREAM | CREPORT_RR | CREPORT_CRR | CREPORT_UNKNOWN |        \
     CREPORT_RRUL)

/* The length of name without a ":lower" or ":higher" suffix; *dir: -1 lower, 1 higher, 0 none. */
static size_t base_len(const char *name, int *dir)
{
    size_t n = strlen(name);
    *dir = 0;
    if (n > 6 && !strcmp(name + n - 6, ":lower")) {
        *dir = -1;
        return n - 6;
    }
    if (n > 7 && !strcmp(name + n - 7, ":higher")) {
        *dir = 1;
        return n - 7;
    }
    return n;
}

/* True for "a.b.c": components of letters, digits, '_' and '-', at least two. */
static bool is_path(const char *s, size_t n)
{
    size_t comps = 1, len = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (!len)
                return false;
            comps++;
            len = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-') {
            len++;
        } else {
            return false;
        }
    }
    return len && comps >= 2;
}

bool creport_metric_valid(const char *name, char *err, size_t errlen)
{
    int dir;
    size_t n = base_len(name, &dir);
    if ((!dir && metric_find(name)) || is_path(name, n))
        return true;
    /* The names (18 and more) would not fit an error buffer: --help lists them. */
    err_set(err, errlen, EINVAL,
            "unknown metric '%s': neither a metric name ('netab report --help' lists them) nor "
            "a dotted path such as perf.local.task_clock",
            name);
    return false;
}

/*
 * Which way is better for a path nobody said: figures of cost and trouble
 * (perf counters, kernel counters, CPU use and demand) are better lower,
 * except rates and instructions per cycle; everything else higher, as
 * `netab compare --metric` assumes for a path.
 */
static bool default_lower(const char *path)
{
    static const char *const costs[] = {"end.perf.", "end.kernel.", "end.cpu.",
                                        "end.service_demand.", "end.latency_us."};
    size_t n = strlen(path);
    if ((n >= 4 && !strcmp(path + n - 4, ".ipc")) ||
        (n >= 11 && !strcmp(path + n - 11, "_per_second")))
        return false;
    for (size_t i = 0; i < sizeof(costs) / sizeof(*costs); i++)
        if (!strncmp(path, costs[i], strlen(costs[i])))
            return true;
    return false;
}

/*
 * The unit a path's figure is in, from its name (docs/json.md): clocks in
 * ns, shares in %, demand in us/KiB, rates in bit/s; counts otherwise.
 */
static const char *path_unit(const char *path)
{
    static const struct {
        const char *suffix, *unit;
    } units[] = {{"task_clock", "ns"},
                 {"cpu_clock", "ns"},
                 {"_pct", "%"},
                 {"_percent", "%"},
                 {"us_per_kib", "us/KiB"},
                 {"us_per_kib_pinned", "us/KiB"},
                 {"bits_per_second", "bit/s"},
                 {"_us", "us"},
                 {"busy_us", "us"},
                 {"_ms", "ms"}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
        size_t k = strlen(units[i].suffix);
        if (n >= k && !strcmp(path + n - k, units[i].suffix))
            return units[i].unit;
    }
    return "count";
}

/* A path metric for name (valid, not built-in) into *m; -ENOMEM. */
static int path_metric(const char *name, struct creport_metric *m)
{
    int dir;
    size_t n = base_len(name, &dir);
    bool has_end = n > 4 && !strncmp(name, "end.", 4);
    char *base = strndup(name, n);
    char *path = malloc(n + 5);
    if (!base || !path) {
        free(base);
        free(path);
        return -ENOMEM;
    }
    snprintf(path, n + 5, "%s%s", has_end ? "" : "end.", base);
    *m = (struct creport_metric){
        .name = base,
        .label = base,
        .title = base,
        .unit = path_unit(path),
        .lower_is_better = dir ? dir < 0 : default_lower(path),
        .tests = ALL_TESTS,
        .scale = 1,
        .path = path,
        .owned = true,
    };
    return 0;
}

/* The report's view of a figure of the metric table. */
static struct creport_metric builtin(const struct metric *t)
{
    return (struct creport_metric){
        .name = t->name,
        .label = t->label,
        .title = t->title,
        .unit = t->display,
        .lower_is_better = t->lower_is_better,
        .tests = t->kinds,
        .scale = t->scale,
        .column = t->column,
        .path = t->path,
    };
}

/* The report's built-in metrics: METRIC_REPORT figures of the table, in its order. */
static size_t builtins(struct creport_metric *out, size_t cap)
{
    size_t n, k = 0;
    const struct metric *t = metric_all(&n);
    for (size_t i = 0; i < n; i++)
        if ((t[i].flags & METRIC_REPORT) && k < cap)
            out[k++] = builtin(&t[i]);
    return k;
}

size_t creport_metric_index(const struct creport_metric *m, size_t n, const char *name)
{
    int dir;
    size_t len = base_len(name, &dir);
    for (size_t i = 0; i < n; i++)
        if ((m[i].owned || !dir) && strlen(m[i].name) == len && !strncmp(m[i].name, name, len))
            return i;
    /* A figure of the table named by its path ("cpu.local.process_us_per_kib"). */
    const struct metric *t = dir ? NULL : metric_find(name);
    for (size_t i = 0; t && i < n; i++)
        if (!m[i].owned && !strcmp(m[i].name, t->name))
            return i;
    return n;
}

int creport_metrics_build(const char *const *names, size_t n, struct creport_metric **out,
                          size_t *nout, char *err, size_t errlen)
{
    size_t nt;
    metric_all(&nt);
    struct creport_metric *m = calloc(nt + n, sizeof(*m));
    *out = NULL;
    *nout = 0;
    if (!m)
        return err_set(err, errlen, ENOMEM, "out of memory");
    size_t k = builtins(m, nt);
    for (size_t i = 0; i < n; i++) {
        if (!creport_metric_valid(names[i], err, errlen)) {
            creport_metrics_free(m, k);
            return -EINVAL;
        }
        if (creport_metric_index(m, k, names[i]) < k)
            continue;
        if (path_metric(names[i], &m[k])) {
            creport_metrics_free(m, k);
            return err_set(err, errlen, ENOMEM, "out of memory");
        }
        k++;
    }
    *out = m;
    *nout = k;
    return 0;
}

void creport_metrics_free(struct creport_metric *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++)
        if (m[i].owned) {
            free((char *)m[i].name);
            free((char *)m[i].path);
        }
    free(m);
}

/* For end.kernel.local.X / end.kernel.remote.X: the side's object ("end.kernel.local"), else NULL.
 */
static json_t *kernel_side(json_t *doc, const char *path)
{
    const char *sides[] = {"end.kernel.local.", "end.kernel.remote."};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(sides[i]);
        if (!strncmp(path, sides[i], n)) {
            char side[32];
            snprintf(side, sizeof(side), "%.*s", (int)(n - 1), sides[i]);
            return input_json_path(doc, side);
        }
    }
    return NULL;
}

double creport_metric_value(const struct creport_metric *m, const struct store_run *run,
                            json_t *doc)
{
    if (m->column) {
        double x = store_run_figure(run, m->column);
        return isfinite(x) ? x * m->scale : NAN;
    }
    json_t *v = input_json_path(doc, m->path);
    double x = NAN;
    if (json_is_number(v))
        x = json_number_value(v);
    else if (!v && json_is_object(kernel_side(doc, m->path)))
        x = 0;
    else if (!v && !metric_perf_derived(doc, m->path, &x)) /* icache misses per KiB */
        x = NAN;
    return isfinite(x) ? x * m->scale : NAN;
}
