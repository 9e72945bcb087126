/*
 * Hypervisor steal over a set of runs: one rule and one sentence for
 * `netab report` and `netab compare`. On a virtual machine the host may run
 * other guests on the CPUs this one was given; /proc/stat counts the time a
 * vCPU was ready but not running as "steal". During it neither end sends or
 * answers, so a link-bound run falls below the link's rate and a latency run
 * grows a tail, by chance and unevenly across runs: noise a verdict's reader
 * must be told of, as of other work competing for the CPUs.
 */
#ifndef NETAB_METRIC_STEAL_H
#define NETAB_METRIC_STEAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Steal time (% of all online CPUs, either end) above which a run is counted. */
#define METRIC_STEAL_WARN_PCT 1.0

/* The larger of a run document's end.cpu.local.steal_pct and end.cpu.remote.steal_pct; NaN when
 * neither is there. */
double metric_steal_pct(const json_t *result);

struct metric_steal {
    size_t runs; /* runs with a steal figure */
    size_t over; /* of them, above METRIC_STEAL_WARN_PCT */
    double most; /* the largest figure of those over; 0 when none */
};

/* Counts one run's figure (metric_steal_pct()); NaN is a run without one. */
void metric_steal_add(struct metric_steal *s, double pct);

/*
 * Writes the warning into buf ("the hypervisor took CPU time (steal) above 1%
 * in 2 of 10 runs (up to 12.3%): ...") and returns true, or returns false
 * (buf untouched) when no run was above the threshold.
 */
bool metric_steal_sentence(const struct metric_steal *s, char *buf, size_t len);

#endif
