/*
 * The measurement window of one end of a test: it opens when the warm-up
 * (-O) is over, snapshotting every stream's counters (bytes, transactions,
 * lost requests, the rr/crr clients' latencies) and the CPU counters, and
 * closes when this end's streams have finished. What the streams did before
 * the opening is taken off the report, so -O really omits the warm-up.
 *
 * UDP datagram counts are the exception: they stay whole-test, because
 * loss is the sender's count minus the receiver's, and the two ends open
 * their windows at different moments with datagrams in flight between them.
 *
 * Every call takes the time (clock_now_ns()) from the caller, so the
 * window's logic is tested with any clock.
 */
#ifndef NETAB_ENGINE_WINDOW_H
#define NETAB_ENGINE_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/counters.h"
#include "engine/side_report.h"
#include "engine/stream_set.h"
#include "measure/cpu.h"

struct histogram;

struct window {
    uint64_t start_ns;              /* streams started */
    uint64_t measure_ns;            /* start + omit: counting starts */
    bool open;                      /* measure_ns has passed and the snapshot is taken */
    struct stream_counts *omit;     /* per stream: its counters at the opening (owned) */
    struct histogram *omit_latency; /* rr/crr clients' latencies at the opening (owned), or NULL */
    bool cpu_ok;
    struct cpu_sample cpu_start, cpu_end;
    struct counters counters; /* per-CPU, kernel and perf counters (counters.h) */
};

/*
 * Starts the window at now_ns; it opens omit_s seconds later (at once when
 * omit_s <= 0, before any byte moves). counters: what to collect besides
 * bytes (counters.h: off, the default set, or with perf events; NULL =
 * off) and a profile's CPUs; call it on
 * the thread that then starts the streams, before it starts them. With
 * counters the window starts
 * later than now_ns by the real time their set-up took. Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int window_begin(struct window *w, const struct stream_set *set, double omit_s,
                               uint64_t now_ns, const struct counters_opts *counters);

/* Opens the window once the warm-up has passed by now_ns; call it often. */
void window_tick(struct window *w, const struct stream_set *set, uint64_t now_ns);

/*
 * Closes the window at now_ns (after the streams finished) and fills a side
 * report with this end's figures counted since the opening, and host facts.
 * A test that ended inside its warm-up gets an empty window. Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int window_close(struct window *w, const struct stream_set *set,
                               struct side_report *out, uint64_t now_ns);

/*
 * The rr/crr clients' transaction latencies recorded since the window
 * opened, into out (which the caller owns). Call it after window_close().
 * Returns 0 or -ENOMEM (then out is not filled).
 */
NB_MUST_CHECK int window_latency(const struct window *w, const struct stream_set *set,
                                 struct histogram *out);

void window_free(struct window *w);

#endif
