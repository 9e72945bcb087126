/*
 * CPU utilisation over a measurement window.
 *
 * System-wide figures come from /proc/stat (they include softirq and irq
 * work, where most of the network stack runs, which process-only figures
 * miss). The process's own figures come from getrusage(RUSAGE_SELF).
 */
#ifndef NETAB_MEASURE_CPU_H
#define NETAB_MEASURE_CPU_H

#include <stdint.h>

#include "util/err.h"

/* A snapshot; take one at the start and one at the end of the window. */
struct cpu_sample {
    /* Aggregate "cpu" line of /proc/stat, in clock ticks. */
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
    /* getrusage(RUSAGE_SELF) user and system time, microseconds. */
    uint64_t proc_user_us, proc_system_us;
    /* CLOCK_MONOTONIC time of the snapshot, nanoseconds. */
    uint64_t mono_ns;
    int online_cpus;
};

/* Utilisation over a window, each as percent of all online CPUs (0..100). */
struct cpu_usage {
    double total_pct;   /* everything except idle and iowait */
    double user_pct;    /* user + nice */
    double system_pct;  /* system */
    double softirq_pct; /* softirq */
    double irq_pct;     /* irq */
    double steal_pct;
    /* The netab process alone, percent of one CPU (can exceed 100 with threads). */
    double proc_pct;
    /* CPU time, microseconds, over the window: system-wide busy and process. */
    double busy_us;
    double proc_us;
    double seconds; /* the window's length */
    int online_cpus;
};

/* Fills *s from /proc/stat and getrusage. Returns 0 or -errno with a message. */
NB_MUST_CHECK int cpu_sample_take(struct cpu_sample *s, char *err, size_t errlen);

/*
 * Fills the /proc/stat fields of *s (user .. steal) from the aggregate "cpu "
 * line found anywhere in text; other fields of *s are left alone. Fields a
 * kernel does not report (older kernels stop before steal) are set to 0 and
 * fields after steal (guest, guest_nice, already counted in user and nice)
 * are ignored. Returns 0, or -EINVAL when there is no such line or it has
 * fewer than the four fields every kernel reports. Pure: no I/O.
 */
NB_MUST_CHECK int cpu_parse_proc_stat(const char *text, struct cpu_sample *s);

/* Computes the usage between two samples (pure computation). */
void cpu_usage_between(const struct cpu_sample *a, const struct cpu_sample *b,
                       struct cpu_usage *out);

/*
 * Service demand, netperf's definition: CPU microseconds (system-wide busy
 * time, all CPUs) per KiB transferred. Returns 0 when bytes is 0.
 */
double cpu_service_demand_us_per_kib(const struct cpu_usage *u, uint64_t bytes);

/* CPU microseconds per transaction; 0 when transactions is 0. */
double cpu_service_demand_us_per_tran(const struct cpu_usage *u, uint64_t transactions);

#endif
