#include <stdio.h>
#include <string.h>

#include "engine/counters.h"

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

void counters_delta_from_tasks(const struct taskstat *t, bool have_migrations, const char *why_hw,
                               struct perfctr_delta *d)
{
    memset(d, 0, sizeof(*d));
    const double v[PERFCTR_CYCLES] = {
        [PERFCTR_TASK_CLOCK] = (double)t->cpu_ns,
        [PERFCTR_CONTEXT_SWITCHES] = (double)(t->vcsw + t->ivcsw),
        [PERFCTR_CPU_MIGRATIONS] = (double)t->migrations,
        [PERFCTR_PAGE_FAULTS] = (double)(t->minflt + t->majflt),
    };
    for (int i = 0; i < PERFCTR_COUNT; i++) {
        bool valid = i < PERFCTR_CYCLES && (i != PERFCTR_CPU_MIGRATIONS || have_migrations);
        if (valid) {
            d->valid[i] = true;
            d->value[i] = v[i];
            d->running_frac[i] = 1.0;
        } else {
            snprintf(d->why[i], sizeof(d->why[i]), "%s",
                     i == PERFCTR_CPU_MIGRATIONS
                         ? "no /proc/PID/sched in this kernel (netab run --perf counts it)"
                         : why_hw);
        }
    }
}

json_t *counters_perf_json(const struct perfctr_delta *self, const struct perfctr_delta *sys,
                           int sys_cpu, bool rates_from_sys, uint64_t bytes, double seconds)
{
    json_t *o = perf_target_json(self, false);
    if (!o)
        return NULL;
    const struct perfctr_delta *hw = rates_from_sys && sys ? sys : self;
    const double *v = hw->value;
    const bool *ok = hw->valid;
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
    const bool tc = self->valid[PERFCTR_TASK_CLOCK] && seconds > 0;
    json_object_set_new(
        o, "cpus_used",
        num_or_null(tc, tc ? self->value[PERFCTR_TASK_CLOCK] / (seconds * 1e9) : 0));
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
