/* The counter lines of `netab run`'s text summary: pinned CPUs, kernel drops, buffers, perf. */
#ifndef NETAB_RUNOUT_RUN_TEXT_COUNTERS_H
#define NETAB_RUNOUT_RUN_TEXT_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

#include "engine/run_result.h"

/*
 * With -A: one line per end for the CPU its streams ran on, leading the CPU
 * section ("CPU local 0: 97.1% (softirq 41.2%); 2.10 us/KiB on that CPU").
 * bytes is what the service demand is per. Prints nothing when not pinned.
 */
void run_text_pinned(FILE *f, const struct run_result *r, uint64_t bytes);

/*
 * The UDP receiver's kernel drops beside netab's loss, the socket buffers
 * the kernel granted, and one perf line per end.
 */
void run_text_counters(FILE *f, const struct run_result *r);

/* A sampled profile's top functions of each end (netab run --profile), in 72 columns. */
void run_text_profile(FILE *f, const struct run_result *r);

#endif
