/*
 * The counters one end of a test collects over its measurement window,
 * besides bytes and system-wide CPU: CPU use of each CPU (/proc/stat's
 * cpuN lines), kernel counter deltas (measure/kcounters.h) and perf
 * counters (measure/perfctr.h). The window (window.h) drives it: begin
 * before the stream threads start (perf counters follow the threads this
 * thread starts), open when the warm-up ends, close after the streams end.
 *
 * Collection can be switched off (the cost benchmark compares both); then
 * the side report carries no per-CPU, kernel or perf figures.
 */
#ifndef NETAB_ENGINE_COUNTERS_H
#define NETAB_ENGINE_COUNTERS_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/stream_set.h"
#include "measure/kcounters.h"
#include "measure/percpu.h"
#include "measure/perfctr.h"

struct side_report;

struct counters {
    bool begun; /* counters_begin() ran: a zeroed struct owns no descriptor */
    bool on;
    int pinned_cpu;             /* this end's streams' CPU (-A), -1 = not pinned */
    char ifname[KC_IFNAME_MAX]; /* the test's interface, "" when unknown */
    bool percpu_ok;
    struct percpu_sample percpu0;    /* at the opening */
    struct kc_snapshot kernel0;      /* at the opening */
    struct perfctr_set self, system; /* system: the pinned CPU, when pinned */
    uint64_t open_ns;
    uint64_t spent_ns; /* this thread's CPU time spent collecting (CLOCK_THREAD_CPUTIME_ID) */
};

/*
 * Prepares collection for set (on = false: collect nothing) and opens the
 * perf counters of the calling thread. Call before the stream threads
 * start. Never fails: what cannot be collected is reported as such.
 */
void counters_begin(struct counters *c, const struct stream_set *set, bool on, uint64_t now_ns);

/* The window opens at now_ns: snapshots every counter. */
void counters_open(struct counters *c, uint64_t now_ns);

/*
 * The window closed at now_ns: fills out's per_cpu, kernel and perf members
 * (out's streams must be collected already: perf rates are per byte this
 * end moved). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int counters_close(struct counters *c, uint64_t now_ns, struct side_report *out);

/* Closes the perf counters and frees the snapshots. */
void counters_free(struct counters *c);

/* The "kernel" member of a side report: groups of counter deltas. New reference. */
json_t *counters_kernel_json(const struct kc_snapshot *delta);

/*
 * The "perf" member: this end's threads' counters, derived rates, the
 * reasons for what is unavailable, and the pinned CPU's system-wide
 * counters (sys may be NULL). bytes is what this end moved, seconds the
 * window's length. New reference.
 */
json_t *counters_perf_json(const struct perfctr_delta *self, const struct perfctr_delta *sys,
                           int sys_cpu, uint64_t bytes, double seconds);

/*
 * Checks a peer's "kernel" member (from the network): groups of counters
 * named [A-Za-z0-9_] (at most 63 characters) with integer values, at most
 * 8192 counters, "softirqs" null or {NET_RX, NET_TX} objects of CPU number
 * to count, "interface" null or a name and the eight statistics. Returns 0
 * or -EPROTO with a message.
 */
NB_MUST_CHECK int counters_kernel_check(const json_t *k, char *err, size_t errlen);

/*
 * Checks a peer's "perf" member: exactly the members counters_perf_json()
 * writes, each counter a finite non-negative number or null, reasons short
 * strings, multiplexed fractions in 0..1. Returns 0 or -EPROTO.
 */
NB_MUST_CHECK int counters_perf_check(const json_t *p, char *err, size_t errlen);
#endif
