/*
 * The measurement window of one end of a test: it opens when the warm-up
 * (-O) is over, snapshotting every stream's byte counter and the CPU
 * counters, and closes when this end's streams have finished.
 */
#ifndef NETAB_ENGINE_WINDOW_H
#define NETAB_ENGINE_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/side_report.h"
#include "engine/stream_set.h"
#include "measure/cpu.h"

struct window {
    uint64_t start_ns;   /* streams started */
    uint64_t measure_ns; /* start + omit: counting starts */
    bool open;           /* measure_ns has passed and the snapshot is taken */
    uint64_t *omit_bytes;
    bool cpu_ok;
    struct cpu_sample cpu_start, cpu_end;
};

/* Starts the window now. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int window_begin(struct window *w, const struct stream_set *set, double omit_s);

/* Opens the window once the warm-up has passed; call it often. */
void window_tick(struct window *w, struct stream_set *set);

/*
 * Closes the window (after the streams finished) and fills a side report
 * with this end's figures and host facts. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int window_close(struct window *w, struct stream_set *set, struct side_report *out);

void window_free(struct window *w);

#endif
