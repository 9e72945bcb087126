#include "engine/counters.h"

#include <errno.h>
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

void counters_begin(struct counters *c, const struct stream_set *set, bool on, uint64_t now_ns)
{
    memset(c, 0, sizeof(*c));
    c->begun = true;
    c->on = on;
    c->pinned_cpu = set->n > 0 ? set->streams[0].cpu : -1;
    c->open_ns = now_ns;
    for (int i = 0; i < PERFCTR_COUNT; i++)
        c->self.fd[i] = c->system.fd[i] = -1;
    if (!on)
        return;
    /* The first stream's socket names the interface (crr clients have none until they connect). */
    for (int i = 0; i < set->n; i++)
        if (set->streams[i].fd >= 0 &&
            kc_iface_of_fd(set->streams[i].fd, c->ifname, sizeof(c->ifname)) == 0)
            break;
    uint64_t t0 = thread_ns();
    perfctr_open(&c->self, -1);
    if (c->pinned_cpu >= 0)
        perfctr_open(&c->system, c->pinned_cpu);
    c->spent_ns += thread_ns() - t0;
}

void counters_open(struct counters *c, uint64_t now_ns)
{
    if (!c->begun || !c->on)
        return;
    c->open_ns = now_ns;
    uint64_t t0 = thread_ns();
    percpu_sample_free(&c->percpu0);
    kc_snapshot_free(&c->kernel0);
    c->percpu_ok = percpu_take(&c->percpu0) == 0;
    kc_snapshot_take(&c->kernel0, c->ifname);
    perfctr_mark(&c->self);
    if (c->pinned_cpu >= 0)
        perfctr_mark(&c->system);
    c->spent_ns += thread_ns() - t0;
}

static uint64_t bytes_moved(const struct side_report *r)
{
    uint64_t b = 0;
    for (int i = 0; i < r->n; i++)
        b += r->streams[i].bytes;
    return b;
}

int counters_close(struct counters *c, uint64_t now_ns, struct side_report *out)
{
    out->pinned_cpu = c->begun ? c->pinned_cpu : -1;
    if (!c->begun || !c->on)
        return 0;
    double seconds = now_ns > c->open_ns ? (double)(now_ns - c->open_ns) / 1e9 : 0;
    uint64_t t0 = thread_ns();
    struct perfctr_delta self, sys;
    perfctr_read(&c->self, &self);
    if (c->pinned_cpu >= 0)
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
    out->perf = counters_perf_json(&self, c->pinned_cpu >= 0 ? &sys : NULL, c->pinned_cpu,
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
    percpu_sample_free(&c->percpu0);
    kc_snapshot_free(&c->kernel0);
}

/* "Udp.InErrors" = 3 into obj["Udp"]["InErrors"]. */
static void put_dotted(json_t *obj, const char *name, json_int_t v)
{
    const char *dot = strchr(name, '.');
    char group[KC_NAME_MAX];
    snprintf(group, sizeof(group), "%.*s", (int)(dot - name), name);
    json_t *g = json_object_get(obj, group);
    if (!g) {
        g = json_object();
        json_object_set_new(obj, group, g);
    }
    json_object_set_new(g, dot + 1, json_integer(v));
}

json_t *counters_kernel_json(const struct kc_snapshot *d)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    for (size_t i = 0; d->have_mib && i < d->mib.n; i++)
        put_dotted(o, d->mib.e[i].name, (json_int_t)d->mib.e[i].value);
    if (d->have_softirqs) {
        json_t *rx = json_object(), *tx = json_object();
        for (int i = 0; i < d->softirqs.n; i++) {
            char k[16];
            snprintf(k, sizeof(k), "%d", d->softirqs.cpu[i]);
            json_object_set_new(rx, k, json_integer((json_int_t)d->softirqs.net_rx[i]));
            json_object_set_new(tx, k, json_integer((json_int_t)d->softirqs.net_tx[i]));
        }
        json_object_set_new(o, "softirqs", json_pack("{s:o, s:o}", "NET_RX", rx, "NET_TX", tx));
    } else {
        json_object_set_new(o, "softirqs", json_null());
    }
    if (d->have_iface) {
        json_t *ifo = json_pack("{s:s}", "name", d->ifname);
        for (size_t i = 0; i < d->iface.n; i++)
            json_object_set_new(ifo, strchr(d->iface.e[i].name, '.') + 1,
                                json_integer((json_int_t)d->iface.e[i].value));
        json_object_set_new(o, "interface", ifo);
    } else {
        json_object_set_new(o, "interface", json_null());
    }
    return o;
}

static json_t *num_or_null(bool ok, double v)
{
    return ok ? json_real(v) : json_null();
}

/* The counters of one target, with "unavailable" and "multiplexed" where they apply. */
static json_t *perf_target_json(const struct perfctr_delta *d, bool system)
{
    json_t *o = json_object(), *why = json_object(), *mux = json_object();
    for (int i = 0; i < PERFCTR_COUNT; i++) {
        const char *name = system && i == PERFCTR_TASK_CLOCK ? "cpu_clock" : perfctr_name(i);
        json_object_set_new(o, name, num_or_null(d->valid[i], d->value[i]));
        if (!d->valid[i])
            json_object_set_new(why, name, json_string(d->why[i]));
        else if (d->running_frac[i] < 1.0)
            json_object_set_new(mux, name, json_real(d->running_frac[i]));
    }
    json_object_set_new(o, "unavailable", why);
    json_object_set_new(o, "multiplexed", mux);
    return o;
}

json_t *counters_perf_json(const struct perfctr_delta *self, const struct perfctr_delta *sys,
                           int sys_cpu, uint64_t bytes, double seconds)
{
    json_t *o = perf_target_json(self, false);
    if (!o)
        return NULL;
    const double *v = self->value;
    const bool *ok = self->valid;
    bool ipc = ok[PERFCTR_CYCLES] && ok[PERFCTR_INSTRUCTIONS] && v[PERFCTR_CYCLES] > 0;
    json_object_set_new(o, "ipc",
                        num_or_null(ipc, ipc ? v[PERFCTR_INSTRUCTIONS] / v[PERFCTR_CYCLES] : 0));
    json_object_set_new(
        o, "cycles_per_byte",
        num_or_null(ok[PERFCTR_CYCLES] && bytes, bytes ? v[PERFCTR_CYCLES] / (double)bytes : 0));
    json_object_set_new(o, "instructions_per_kib",
                        num_or_null(ok[PERFCTR_INSTRUCTIONS] && bytes,
                                    bytes ? v[PERFCTR_INSTRUCTIONS] / ((double)bytes / 1024) : 0));
    bool br = ok[PERFCTR_BRANCHES] && ok[PERFCTR_BRANCH_MISSES] && v[PERFCTR_BRANCHES] > 0;
    json_object_set_new(
        o, "branch_miss_pct",
        num_or_null(br, br ? 100 * v[PERFCTR_BRANCH_MISSES] / v[PERFCTR_BRANCHES] : 0));
    json_object_set_new(o, "cpus_used",
                        num_or_null(ok[PERFCTR_TASK_CLOCK] && seconds > 0,
                                    seconds > 0 ? v[PERFCTR_TASK_CLOCK] / (seconds * 1e9) : 0));
    json_object_set_new(o, "scope", json_string("threads"));
    if (sys) {
        json_t *s = perf_target_json(sys, true);
        json_object_set_new(s, "cpu", json_integer(sys_cpu));
        json_object_set_new(o, "system", s);
    } else {
        json_object_set_new(o, "system", json_null());
    }
    return o;
}
