/*
 * CPU utilisation of each CPU over a measurement window, from the "cpuN"
 * lines of /proc/stat. The aggregate figure of cpu.h is diluted when a test
 * is pinned to one CPU of many (one saturated CPU of two reads as 50%); the
 * per-CPU figures show the CPU that did the work, softirq included.
 */
#ifndef NETAB_MEASURE_PERCPU_H
#define NETAB_MEASURE_PERCPU_H

#include <stdint.h>

#include "util/err.h"

#define PERCPU_MAX 4096 /* CPU numbers netab accepts, from the kernel or the network */

/* One CPU's tick counters at one moment, in /proc/stat order. */
struct percpu_ticks {
    int cpu;
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* A snapshot of every CPU line; cpus is owned (percpu_sample_free()). */
struct percpu_sample {
    struct percpu_ticks *cpus;
    int n;
};

/* One CPU's utilisation over a window, each as percent of that one CPU. */
struct percpu_usage {
    int cpu;
    double total_pct, user_pct, system_pct, softirq_pct, irq_pct;
    double busy_us; /* CPU time this CPU was busy over the window */
};

/*
 * Parses every "cpuN" line of text (the contents of /proc/stat) into *s,
 * which it allocates; the aggregate "cpu" line and other lines are skipped.
 * Offline CPUs have no line and so no entry. Returns 0, -EINVAL when a cpuN
 * line is malformed or there is none, or -ENOMEM. Pure: no I/O.
 */
NB_MUST_CHECK int percpu_parse(const char *text, struct percpu_sample *s);

/* Reads /proc/stat into *s. Returns 0 or -errno. */
NB_MUST_CHECK int percpu_take(struct percpu_sample *s);

void percpu_sample_free(struct percpu_sample *s);

/*
 * The usage of each CPU present in both samples over seconds of wall time
 * (the window's length, for busy_us). Allocates *out (caller has
 * ownership, free()) with *n entries, in b's order. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int percpu_between(const struct percpu_sample *a, const struct percpu_sample *b,
                                 double seconds, struct percpu_usage **out, int *n);

#endif
