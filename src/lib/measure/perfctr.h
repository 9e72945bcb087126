/*
 * perf counters through the kernel's perf_event_open(2) ABI (no perf
 * binary): for this end's netab threads (the calling thread and every
 * thread it starts afterwards) task-clock, context switches, CPU migrations
 * and page faults, which every kernel offers as software events, and, where
 * the CPU's PMU is reachable (not in most virtual machines), cycles,
 * instructions, branches, branch misses, L1 instruction-cache misses, iTLB
 * misses and cache misses. System-wide counters of one CPU (where softirq
 * and driver work is counted) need root or perf_event_paranoid <= 0.
 *
 * Nothing here fails a test: a counter the kernel refuses is recorded with
 * the reason, in words ("no PMU in this virtual machine",
 * "perf_event_paranoid=3").
 */
#ifndef NETAB_MEASURE_PERFCTR_H
#define NETAB_MEASURE_PERFCTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum perfctr_id {
    PERFCTR_TASK_CLOCK, /* nanoseconds of CPU time (cpu-clock for a system-wide CPU) */
    PERFCTR_CONTEXT_SWITCHES,
    PERFCTR_CPU_MIGRATIONS,
    PERFCTR_PAGE_FAULTS,
    PERFCTR_CYCLES, /* the first hardware counter */
    PERFCTR_INSTRUCTIONS,
    PERFCTR_BRANCHES,
    PERFCTR_BRANCH_MISSES,
    PERFCTR_L1I_MISSES,
    PERFCTR_ITLB_MISSES,
    PERFCTR_CACHE_MISSES,
    PERFCTR_COUNT
};

/* The JSON name of a counter ("task_clock", "l1i_misses"). */
const char *perfctr_name(enum perfctr_id id);

/* One counter's reading: value, and the times it was enabled and running (ns). */
struct perfctr_value {
    uint64_t value, enabled, running;
};

/* Open counters of one target: this end's threads, or one CPU system-wide. */
struct perfctr_set {
    int fd[PERFCTR_COUNT];       /* -1 where unavailable */
    char why[PERFCTR_COUNT][64]; /* the reason, where fd is -1 */
    struct perfctr_value at_open[PERFCTR_COUNT];
    int cpu; /* -1: this end's threads; else the CPU counted system-wide */
};

/*
 * Opens every counter for the calling thread and the threads it creates
 * from now on (cpu < 0), or for one CPU system-wide (cpu >= 0). Counters
 * start at once. Never fails: a refused counter gets fd -1 and a reason.
 */
void perfctr_open(struct perfctr_set *s, int cpu);

/* Records the counters' current values as the start of the window. */
void perfctr_mark(struct perfctr_set *s);

/* The counts since perfctr_mark(), scaled when multiplexed. */
struct perfctr_delta {
    bool valid[PERFCTR_COUNT];
    double value[PERFCTR_COUNT];
    /* Fraction of the window the counter really ran (1 when not multiplexed). */
    double running_frac[PERFCTR_COUNT];
    char why[PERFCTR_COUNT][64];
};

/*
 * Reads every counter and fills d with its change since perfctr_mark().
 * A counter multiplexed with others (running < enabled) is scaled by
 * enabled/running and its running_frac says so; one that never ran is
 * invalid with the reason "never scheduled (too many counters)".
 */
void perfctr_read(const struct perfctr_set *s, struct perfctr_delta *d);

/*
 * The words for an open failure: errno e from perf_event_open for a
 * hardware (true) or software counter. Pure but for reading
 * /proc/sys/kernel/perf_event_paranoid and /proc/cpuinfo's flags.
 */
void perfctr_reason(int e, bool hardware, int cpu, char *out, size_t len);

/* Scales a raw reading: value * enabled / running (0 when it never ran). Pure. */
double perfctr_scale(const struct perfctr_value *v);

void perfctr_close(struct perfctr_set *s);

#endif
