#include "report/perfwarn.h"

#include <stdio.h>
#include <string.h>

#include "metric/perf.h"
#include "report/env.h"
#include "report/metric.h"

/* Whether some variant and cell has a value of metric m. */
static bool has_values(const struct creport *r, size_t m)
{
    for (size_t v = 0; v < r->nvariants; v++)
        for (size_t c = 0; c < r->ncells; c++)
            if (creport_at(r, v, c, m)->n > 0)
                return true;
    return false;
}

/* Appends name to a list of n names: "a", "a and b", "a, b and c" (the last added last). */
static void list_add(char *buf, size_t len, size_t n, const char *name, bool last)
{
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s", n == 0 ? "" : last ? " and " : ", ", name);
}

/* What one end (side "local" or "remote") lacks: the figures' names, the reason, the runs. */
struct lack {
    char names[160];
    const char *why;
    size_t with_reason, with_result;
};

static void side_lack(const struct creport *r, const struct creport_rundoc *runs, size_t nruns,
                      const char *side, struct lack *l)
{
    size_t n;
    const struct metric *t = metric_all(&n);
    const struct metric *missing[8];
    size_t nmissing = 0;
    *l = (struct lack){.why = NULL};
    for (size_t i = 0; i < n && nmissing < 8; i++) {
        size_t m = creport_metric_index(r->metrics, r->nmetrics, t[i].name);
        if (!(t[i].flags & METRIC_PERF) || !strstr(t[i].path, side) || m >= r->nmetrics ||
            has_values(r, m))
            continue;
        const char *w = NULL;
        for (size_t k = 0; k < nruns && !w; k++)
            w = metric_perf_unavailable(runs[k].result, &t[i]);
        if (w) {
            l->why = l->why ? l->why : w;
            missing[nmissing++] = &t[i];
        }
    }
    for (size_t k = 0; nmissing && k < nruns; k++) {
        l->with_result += runs[k].result != NULL;
        l->with_reason += metric_perf_unavailable(runs[k].result, missing[0]) != NULL;
    }
    for (size_t i = 0; i < nmissing; i++)
        list_add(l->names, sizeof(l->names), i, missing[i]->display, i + 1 == nmissing);
}

/* "local end: no PMU in this virtual machine, so --perf's ... are not shown (4 of 4 runs)". */
static int warn(struct creport *r, const char *who, const struct lack *l)
{
    char b[400];
    snprintf(b, sizeof(b), "%s: %.120s, so --perf's %s %s not shown (%zu of %zu runs)", who, l->why,
             l->names, strstr(l->names, " and ") ? "are" : "is", l->with_reason, l->with_result);
    return creport_env_warn(r, b);
}

int creport_perf_warning(struct creport *r, const struct creport_rundoc *runs, size_t nruns)
{
    struct lack loc, rem;
    side_lack(r, runs, nruns, "local", &loc);
    side_lack(r, runs, nruns, "remote", &rem);
    /* One sentence where both ends lack the same for the same reason (a VM's loopback). */
    if (loc.why && rem.why && !strcmp(loc.why, rem.why) && !strcmp(loc.names, rem.names) &&
        loc.with_reason == rem.with_reason)
        return warn(r, "both ends", &loc);
    int e = loc.why ? warn(r, "local end", &loc) : 0;
    return e || !rem.why ? e : warn(r, "remote end", &rem);
}
