/*
 * The counters one end of a test collects over its measurement window,
 * besides bytes and system-wide CPU: CPU use of each CPU (/proc/stat's
 * cpuN lines), kernel counter deltas (measure/kcounters.h) and perf
 * counters (measure/perfctr.h, taskstat.h). The window (window.h) drives
 * it: begin before the stream threads start (perf counters follow the
 * threads this thread starts), open when the warm-up ends, close after
 * the streams end.
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
#include "measure/profile.h"
#include "measure/taskstat.h"

struct side_report;

/*
 * What a window collects besides bytes. COUNTERS_ON is the default: per-CPU
 * and kernel counters, and each thread's CPU time, context switches,
 * migrations and page faults from /proc (measure/taskstat.h), which cost
 * the test threads nothing. COUNTERS_PERF (--perf) adds perf events:
 * unpinned, on the end's threads (inherit: every context switch of a test
 * thread switches them too, which costs request/response tests several
 * percent); pinned (-A), system-wide on the pinned CPU instead.
 */
enum counters_mode { COUNTERS_OFF, COUNTERS_ON, COUNTERS_PERF };

/* The mode of a test: off when collection is switched off (NETAB_NO_COUNTERS), else by --perf. */
static inline enum counters_mode counters_mode_of(bool off, bool perf)
{
    return off ? COUNTERS_OFF : perf ? COUNTERS_PERF : COUNTERS_ON;
}

/*
 * How an end collects: the mode, and for a profile (the test's --profile)
 * a second CPU to sample besides the end's pinned one: the in-process
 * server's (-A x,N on loopback, where the client's profile covers both
 * ends and the server takes none), or -1.
 */
struct counters_opts {
    enum counters_mode mode;
    int profile_extra_cpu;
};

struct counters {
    bool begun; /* counters_begin() ran: a zeroed struct owns no descriptor */
    enum counters_mode mode;
    int pinned_cpu;             /* this end's streams' CPU (-A), -1 = not pinned */
    char ifname[KC_IFNAME_MAX]; /* the test's interface, "" when unknown */
    bool percpu_ok;
    struct percpu_sample percpu0;    /* at the opening */
    struct kc_snapshot kernel0;      /* at the opening */
    struct perfctr_set self, system; /* --perf: the threads (unpinned) or the pinned CPU */
    struct taskstat ctl0;            /* the collecting thread at the opening */
    struct taskstat *stream0;        /* each stream's thread at the opening (owned) */
    struct profile *profile;         /* --profile: sampling this end's CPUs (owned), or NULL */
    int nstreams;
    uint64_t open_ns;
    uint64_t spent_ns; /* this thread's CPU time spent collecting (CLOCK_THREAD_CPUTIME_ID) */
};

/*
 * Prepares collection for set in the given mode and, with --perf, opens
 * the perf events. Call on the thread that starts the streams, before it
 * starts them. Never fails: what cannot be collected is reported as such.
 */
void counters_begin(struct counters *c, const struct stream_set *set, const struct counters_opts *o,
                    uint64_t now_ns);

/* The window opens at now_ns: snapshots every counter and every stream thread's figures. */
void counters_open(struct counters *c, const struct stream_set *set, uint64_t now_ns);

/*
 * The window closed at now_ns, after the streams' threads ended: fills
 * out's per_cpu, kernel and perf members (out's streams must be collected
 * already: perf rates are per byte this end moved). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int counters_close(struct counters *c, const struct stream_set *set, uint64_t now_ns,
                                 struct side_report *out);

/* Closes the perf counters and frees the snapshots. */
void counters_free(struct counters *c);

/* The "kernel" member of a side report: groups of counter deltas. New reference. */
json_t *counters_kernel_json(const struct kc_snapshot *delta);

/*
 * The "perf" member: this end's threads' counters, derived rates, the
 * reasons for what is unavailable, and the pinned CPU's system-wide
 * counters (sys may be NULL). The hardware rates (ipc, cycles_per_byte,
 * ...) come from sys when rates_from_sys, else from self. bytes is what
 * this end moved, seconds the window's length. New reference.
 */
json_t *counters_perf_json(const struct perfctr_delta *self, const struct perfctr_delta *sys,
                           int sys_cpu, bool rates_from_sys, uint64_t bytes, double seconds);

/*
 * The software figures of self (task clock, context switches, migrations,
 * page faults) from the threads' summed task figures t; hardware counters
 * invalid with the reason why_hw. Pure.
 */
void counters_delta_from_tasks(const struct taskstat *t, bool have_migrations, const char *why_hw,
                               struct perfctr_delta *self);

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
