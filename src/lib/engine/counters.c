#include "engine/counters.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/side_report.h"

/* The calling thread's CPU time, ns: what collecting costs, whatever else the host does. */
static uint64_t thread_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The CPUs a profile samples: the end's pinned CPU (and the extra one), else all (n = 0). */
static int profile_cpus(int pinned, int extra, int cpus[2])
{
    if (pinned < 0)
        return 0;
    cpus[0] = pinned;
    if (extra < 0 || extra == pinned)
        return 1;
    cpus[1] = extra;
    return 2;
}

void counters_begin(struct counters *c, const struct stream_set *set, const struct counters_opts *o,
                    uint64_t now_ns)
{
    enum counters_mode mode = o ? o->mode : COUNTERS_OFF;
    memset(c, 0, sizeof(*c));
    c->begun = true;
    c->mode = mode;
    c->pinned_cpu = set->n > 0 ? set->streams[0].cpu : -1;
    c->open_ns = now_ns;
    for (int i = 0; i < PERFCTR_COUNT; i++)
        c->self.fd[i] = c->system.fd[i] = -1;
    /* A profile is asked for on its own: it samples whatever the mode collects. */
    enum profile_event evs[PROFILE_MAX_EVENTS];
    int nev = set->params.profile[0] ? profile_events_from_list(set->params.profile, evs) : 0;
    if (nev > 0) {
        int cpus[2];
        int n = profile_cpus(c->pinned_cpu, o ? o->profile_extra_cpu : -1, cpus);
        c->profile = profile_open(
            evs, nev, 0, set->params.profile_system ? PROFILE_SCOPE_SYSTEM : PROFILE_SCOPE_TEST,
            cpus, n);
    }
    if (mode == COUNTERS_OFF)
        return;
    /* The first stream's socket names the interface (crr clients have none until they connect). */
    for (int i = 0; i < set->n; i++)
        if (set->streams[i].fd >= 0 &&
            kc_iface_of_fd(set->streams[i].fd, c->ifname, sizeof(c->ifname)) == 0)
            break;
    uint64_t t0 = thread_ns();
    c->stream0 = calloc((size_t)(set->n > 0 ? set->n : 1), sizeof(*c->stream0));
    c->nstreams = c->stream0 ? set->n : 0;
    if (mode == COUNTERS_PERF) {
        /* Pinned: count the CPU, which costs nothing at the threads' context switches. */
        if (c->pinned_cpu >= 0)
            perfctr_open(&c->system, c->pinned_cpu);
        else
            perfctr_open(&c->self, -1);
    }
    c->spent_ns += thread_ns() - t0;
}

/* A stream thread's figures now: its own at its end, else read from /proc, else zero. */
static bool stream_task_now(const struct stream *s, struct taskstat *t)
{
    if (atomic_load(&s->done))
        return s->task_end_ok ? (*t = s->task_end, true) : false;
    int tid = atomic_load(&s->tid);
    if (tid && taskstat_thread(tid, t) == 0) {
        /* The thread's CPU clock is exact where schedstat lags by up to a tick. */
        clockid_t cid;
        struct timespec ts;
        if (!pthread_getcpuclockid(s->thread, &cid) && !clock_gettime(cid, &ts))
            t->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        return true;
    }
    /* It ended between the two looks. */
    if (atomic_load(&s->done) && s->task_end_ok)
        return (*t = s->task_end, true);
    memset(t, 0, sizeof(*t));
    return tid == 0; /* not yet running: it has done nothing */
}

void counters_open(struct counters *c, const struct stream_set *set, uint64_t now_ns)
{
    if (c->begun)
        profile_enable(c->profile);
    if (!c->begun || c->mode == COUNTERS_OFF)
        return;
    c->open_ns = now_ns;
    uint64_t t0 = thread_ns();
    percpu_sample_free(&c->percpu0);
    kc_snapshot_free(&c->kernel0);
    c->percpu_ok = percpu_take(&c->percpu0) == 0;
    kc_snapshot_take(&c->kernel0, c->ifname);
    if (taskstat_self(&c->ctl0))
        memset(&c->ctl0, 0, sizeof(c->ctl0));
    for (int i = 0; i < c->nstreams && i < set->n; i++)
        (void)stream_task_now(&set->streams[i], &c->stream0[i]);
    if (c->mode == COUNTERS_PERF) {
        perfctr_mark(&c->self);
        perfctr_mark(&c->system);
    }
    c->spent_ns += thread_ns() - t0;
}

static uint64_t bytes_moved(const struct side_report *r)
{
    uint64_t b = 0;
    for (int i = 0; i < r->n; i++)
        b += r->streams[i].bytes;
    return b;
}

/* The end's threads (the streams' and this one) over the window, from /proc. */
static void tasks_delta(const struct counters *c, const struct stream_set *set,
                        struct perfctr_delta *d)
{
    struct taskstat sum = {0}, now;
    bool ok = taskstat_self(&now) == 0, migr = ok && now.have_migrations && c->ctl0.have_migrations;
    if (ok)
        taskstat_add_delta(&sum, &c->ctl0, &now);
    for (int i = 0; ok && i < c->nstreams && i < set->n; i++) {
        if (!stream_task_now(&set->streams[i], &now)) {
            ok = false;
            break;
        }
        /* A thread that had not started at the opening has all its figures in the window. */
        migr = migr && now.have_migrations;
        taskstat_add_delta(&sum, &c->stream0[i], &now);
    }
    if (!ok || c->nstreams != set->n) {
        memset(d, 0, sizeof(*d));
        for (int i = 0; i < PERFCTR_COUNT; i++)
            snprintf(d->why[i], sizeof(d->why[i]), "a thread's /proc figures were unreadable");
        return;
    }
    counters_delta_from_tasks(&sum, migr,
                              c->mode == COUNTERS_PERF
                                  ? "pinned: counted system-wide on the CPU (perf.system)"
                                  : "collected only with --perf",
                              d);
}

int counters_close(struct counters *c, const struct stream_set *set, uint64_t now_ns,
                   struct side_report *out)
{
    out->pinned_cpu = c->begun ? c->pinned_cpu : -1;
    if (c->begun && c->profile) {
        profile_disable(c->profile);
        if (!(out->profile = profile_json(c->profile, PROFILE_TOP)))
            return -ENOMEM;
    }
    if (!c->begun || c->mode == COUNTERS_OFF)
        return 0;
    double seconds = now_ns > c->open_ns ? (double)(now_ns - c->open_ns) / 1e9 : 0;
    uint64_t t0 = thread_ns();
    bool threads_perf = c->mode == COUNTERS_PERF && c->pinned_cpu < 0;
    bool system_perf = c->mode == COUNTERS_PERF && c->pinned_cpu >= 0;
    struct perfctr_delta self, sys;
    if (threads_perf)
        perfctr_read(&c->self, &self);
    else
        tasks_delta(c, set, &self);
    if (system_perf)
        perfctr_read(&c->system, &sys);
    struct percpu_sample pc1;
    if (c->percpu_ok && percpu_take(&pc1) == 0) {
        int rc = percpu_between(&c->percpu0, &pc1, seconds, &out->per_cpu, &out->nper_cpu);
        percpu_sample_free(&pc1);
        if (rc)
            return rc;
    }
    struct kc_snapshot k1, d;
    kc_snapshot_take(&k1, c->ifname);
    int rc = kc_snapshot_delta(&c->kernel0, &k1, &d);
    kc_snapshot_free(&k1);
    if (rc)
        return rc;
    out->kernel = counters_kernel_json(&d);
    kc_snapshot_free(&d);
    out->perf = counters_perf_json(&self, system_perf ? &sys : NULL, c->pinned_cpu, system_perf,
                                   bytes_moved(out), seconds);
    if (!out->kernel || !out->perf)
        return -ENOMEM;
    c->spent_ns += thread_ns() - t0;
    json_object_set_new(out->perf, "collection_us", json_real((double)c->spent_ns / 1e3));
    return 0;
}

void counters_free(struct counters *c)
{
    if (!c->begun)
        return;
    perfctr_close(&c->self);
    perfctr_close(&c->system);
    profile_free(c->profile);
    c->profile = NULL;
    percpu_sample_free(&c->percpu0);
    kc_snapshot_free(&c->kernel0);
    free(c->stream0);
    c->stream0 = NULL;
    c->nstreams = 0;
}
