#include "engine/probe_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/histogram.h"

int probe_log_init(struct probe_log *log, double rate, double seconds, bool tcp, int loads)
{
    memset(log, 0, sizeof(*log));
    log->rate = rate;
    log->loads = loads;
    /* A second of margin: the run's window opens a little after the schedule's start. */
    log->cap = rate > 0 ? (uint64_t)(rate * (seconds + 1.0)) + 1 : 0;
    if (log->cap && !(log->rec = calloc(log->cap, sizeof(*log->rec))))
        return -ENOMEM;
    for (int i = 0; tcp && i < PROBE_PHASES; i++) {
        if (!(log->hist[i] = calloc(1, sizeof(struct histogram)))) {
            probe_log_free(log);
            return -ENOMEM;
        }
        hist_init(log->hist[i]);
    }
    return 0;
}

void probe_log_free(struct probe_log *log)
{
    free(log->rec);
    for (int i = 0; i < PROBE_PHASES; i++)
        free(log->hist[i]);
    memset(log, 0, sizeof(*log));
}

enum probe_phase probe_log_phase(struct probe_log *log, uint64_t now_ns)
{
    uint64_t open = atomic_load_explicit(&log->load_open_ns, memory_order_acquire);
    if (!open || now_ns < open)
        return PROBE_IDLE;
    if (atomic_load_explicit(&log->closed, memory_order_acquire) < log->loads)
        return PROBE_LOADED;
    uint64_t close = atomic_load_explicit(&log->load_close_ns, memory_order_relaxed);
    return now_ns <= close ? PROBE_LOADED : PROBE_RECOVERY;
}

void probe_log_mark_open(struct probe_log *log, uint64_t now_ns)
{
    uint64_t cur = atomic_load(&log->load_open_ns);
    while ((!cur || now_ns < cur) &&
           !atomic_compare_exchange_weak(&log->load_open_ns, &cur, now_ns))
        ;
}

void probe_log_mark_close(struct probe_log *log, uint64_t now_ns)
{
    uint64_t cur = atomic_load(&log->load_close_ns);
    while (now_ns > cur && !atomic_compare_exchange_weak(&log->load_close_ns, &cur, now_ns))
        ;
    atomic_fetch_add_explicit(&log->closed, 1, memory_order_release);
}
