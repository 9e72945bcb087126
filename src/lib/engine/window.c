#include "engine/window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/flowhist.h"
#include "measure/histogram.h"
#include "util/clock.h"

/* All clients' latency histograms merged into out (emptied first). */
static void merge_latency(const struct stream_set *set, struct histogram *out)
{
    hist_init(out);
    for (int i = 0; i < set->n; i++)
        if (set->streams[i].latency)
            hist_merge(out, set->streams[i].latency);
        else if (set->streams[i].flat) /* --flows: bucket for bucket, exact */
            flowhist_merge(out, set->streams[i].flat);
}

static bool has_latency(const struct stream_set *set)
{
    for (int i = 0; i < set->n; i++)
        if (set->streams[i].latency)
            return true;
    return false;
}

int window_begin(struct window *w, const struct stream_set *set, double omit_s, uint64_t now_ns,
                 const struct counters_opts *counters)
{
    memset(w, 0, sizeof(*w));
    bool on = counters && counters->mode != COUNTERS_OFF;
    uint64_t t0 = on ? clock_now_ns() : 0;
    counters_begin(&w->counters, set, counters, now_ns);
    w->omit = calloc((size_t)(set->n > 0 ? set->n : 1), sizeof(*w->omit));
    if (!w->omit)
        return -ENOMEM;
    if (omit_s > 0 && has_latency(set)) {
        w->omit_latency = malloc(sizeof(*w->omit_latency));
        if (!w->omit_latency) {
            window_free(w);
            return -ENOMEM;
        }
        hist_init(w->omit_latency);
    }
    if (omit_s <= 0)
        counters_open(&w->counters, set, now_ns);
    /*
     * Opening the perf counters and reading /proc take a millisecond or more
     * (much more on a loaded host) before any stream starts: set-up, not test
     * time, so the window starts once they are done.
     */
    if (on)
        now_ns += clock_now_ns() - t0;
    w->start_ns = now_ns;
    w->measure_ns = w->start_ns + (uint64_t)(omit_s * 1e9);
    /* Without warm-up the window opens before any byte moves: counters start at zero. */
    if (omit_s <= 0) {
        w->cpu_ok = cpu_sample_take(&w->cpu_start, NULL, 0) == 0;
        w->open = true;
    }
    return 0;
}

/* Takes the opening snapshot at now_ns: from here on everything counts. */
static void open_now(struct window *w, const struct stream_set *set, uint64_t now_ns)
{
    for (int i = 0; i < set->n; i++)
        stream_counts_take(&set->streams[i], &w->omit[i]);
    if (w->omit_latency)
        merge_latency(set, w->omit_latency);
    w->measure_ns = now_ns;
    w->open = true;
    counters_open(&w->counters, set, now_ns);
}

void window_tick(struct window *w, const struct stream_set *set, uint64_t now_ns)
{
    if (w->open || now_ns < w->measure_ns)
        return;
    open_now(w, set, now_ns);
    w->cpu_ok = cpu_sample_take(&w->cpu_start, NULL, 0) == 0;
}

int window_close(struct window *w, const struct stream_set *set, struct side_report *out,
                 uint64_t now_ns)
{
    window_tick(w, set, now_ns);
    /*
     * A test that ended inside its warm-up still gets a window, an empty one:
     * everything it did was warm-up. (No CPU figure for a window of no time.)
     */
    if (!w->open)
        open_now(w, set, now_ns);
    if (w->cpu_ok)
        w->cpu_ok = cpu_sample_take(&w->cpu_end, NULL, 0) == 0;
    int rc = side_report_collect(out, set, w->measure_ns, w->omit);
    if (rc)
        return rc;
    if (w->cpu_ok) {
        cpu_usage_between(&w->cpu_start, &w->cpu_end, &out->cpu);
        out->cpu_valid = true;
    }
    hostinfo_collect(&out->host);
    return counters_close(&w->counters, set, now_ns, out);
}

int window_latency(const struct window *w, const struct stream_set *set, struct histogram *out)
{
    if (!w->omit_latency) {
        merge_latency(set, out);
        return 0;
    }
    struct histogram *all = malloc(sizeof(*all));
    if (!all)
        return -ENOMEM;
    merge_latency(set, all);
    hist_subtract(out, all, w->omit_latency);
    free(all);
    return 0;
}

void window_free(struct window *w)
{
    counters_free(&w->counters);
    free(w->omit);
    w->omit = NULL;
    free(w->omit_latency);
    w->omit_latency = NULL;
}
