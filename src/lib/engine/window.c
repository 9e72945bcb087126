#include "engine/window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

int window_begin(struct window *w, const struct stream_set *set, double omit_s)
{
    memset(w, 0, sizeof(*w));
    w->omit_bytes = calloc((size_t)(set->n > 0 ? set->n : 1), sizeof(uint64_t));
    if (!w->omit_bytes)
        return -ENOMEM;
    w->start_ns = clock_now_ns();
    w->measure_ns = w->start_ns + (uint64_t)(omit_s * 1e9);
    /* Without warm-up the window opens before any byte moves: counters start at zero. */
    if (omit_s <= 0) {
        w->cpu_ok = cpu_sample_take(&w->cpu_start, NULL, 0) == 0;
        w->open = true;
    }
    return 0;
}

void window_tick(struct window *w, struct stream_set *set)
{
    if (w->open || clock_now_ns() < w->measure_ns)
        return;
    for (int i = 0; i < set->n; i++)
        w->omit_bytes[i] = atomic_load(&set->streams[i].bytes);
    w->cpu_ok = cpu_sample_take(&w->cpu_start, NULL, 0) == 0;
    w->measure_ns = clock_now_ns();
    w->open = true;
}

int window_close(struct window *w, struct stream_set *set, struct side_report *out)
{
    /* A test that ended inside its warm-up still gets a window, an empty one. */
    window_tick(w, set);
    if (!w->open) {
        w->measure_ns = clock_now_ns();
        w->open = true;
    }
    if (w->cpu_ok)
        w->cpu_ok = cpu_sample_take(&w->cpu_end, NULL, 0) == 0;
    int rc = side_report_collect(out, set, w->measure_ns, w->omit_bytes);
    if (rc)
        return rc;
    if (w->cpu_ok) {
        cpu_usage_between(&w->cpu_start, &w->cpu_end, &out->cpu);
        out->cpu_valid = true;
    }
    hostinfo_collect(&out->host);
    return 0;
}

void window_free(struct window *w)
{
    free(w->omit_bytes);
    w->omit_bytes = NULL;
}
