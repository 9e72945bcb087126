#include "measure/perfctr.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/procfile.h"

static const char *const names[PERFCTR_COUNT] = {
    "task_clock", "context_switches", "cpu_migrations", "page_faults",
    "cycles",     "instructions",     "branches",       "branch_misses",
    "l1i_misses", "itlb_misses",      "cache_misses"};

const char *perfctr_name(enum perfctr_id id)
{
    return id < PERFCTR_COUNT ? names[id] : "unknown";
}

#define CACHE(c, op, res) ((c) | ((op) << 8) | ((res) << 16))

/* The event of each counter: perf's own names for them in comments. */
static void event_of(enum perfctr_id id, bool system, struct perf_event_attr *a)
{
    static const struct {
        uint32_t type;
        uint64_t config;
    } ev[PERFCTR_COUNT] = {
        {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},       /* task-clock */
        {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES}, /* cs */
        {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},   /* migrations */
        {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},      /* faults */
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
        {PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
                                   PERF_COUNT_HW_CACHE_RESULT_MISS)}, /* L1-icache-load-misses */
        {PERF_TYPE_HW_CACHE, CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
                                   PERF_COUNT_HW_CACHE_RESULT_MISS)}, /* iTLB-load-misses */
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    };
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = ev[id].type;
    a->config = ev[id].config;
    /* A CPU's own clock, system-wide: task-clock only exists for a task. */
    if (system && id == PERFCTR_TASK_CLOCK)
        a->config = PERF_COUNT_SW_CPU_CLOCK;
    a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a->inherit = !system; /* the stream threads this thread starts */
    a->exclude_hv = 1;
}

static int read_paranoid(void)
{
    char *t;
    int v = 2;
    if (!procfile_read("/proc/sys/kernel/perf_event_paranoid", &t)) {
        v = atoi(t);
        free(t);
    }
    return v;
}

static bool in_vm(void)
{
    char *t;
    bool vm = false;
    if (!procfile_read("/proc/cpuinfo", &t)) {
        vm = strstr(t, " hypervisor") != NULL;
        free(t);
    }
    return vm;
}

void perfctr_reason(int e, bool hardware, int cpu, char *out, size_t len)
{
    if (e == EACCES || e == EPERM) {
        snprintf(out, len, "perf_event_paranoid=%d%s", read_paranoid(),
                 cpu >= 0 ? " (system-wide counters need root or 0)" : "");
    } else if (hardware && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL)) {
        snprintf(out, len, "%s",
                 in_vm() ? "no PMU in this virtual machine" : "this CPU's PMU lacks the event");
    } else if (e == EMFILE || e == ENFILE) {
        snprintf(out, len, "out of file descriptors");
    } else {
        snprintf(out, len, "perf_event_open: %s", strerror(e));
    }
}

void perfctr_open(struct perfctr_set *s, int cpu)
{
    memset(s, 0, sizeof(*s));
    s->cpu = cpu;
    bool no_pmu = false;
    for (int i = 0; i < PERFCTR_COUNT; i++) {
        bool hw = i >= PERFCTR_CYCLES;
        s->fd[i] = -1;
        /* Without a PMU every hardware event fails the same way: ask once. */
        if (hw && no_pmu) {
            snprintf(s->why[i], sizeof(s->why[i]), "%s", s->why[PERFCTR_CYCLES]);
            continue;
        }
        struct perf_event_attr a;
        event_of((enum perfctr_id)i, cpu >= 0, &a);
        long fd =
            syscall(SYS_perf_event_open, &a, cpu >= 0 ? -1 : 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            perfctr_reason(e, hw, cpu, s->why[i], sizeof(s->why[i]));
            if (i == PERFCTR_CYCLES && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
                no_pmu = true;
            continue;
        }
        s->fd[i] = (int)fd;
    }
    perfctr_mark(s);
}

static bool read_one(int fd, struct perfctr_value *v)
{
    uint64_t buf[3];
    if (fd < 0 || read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
        return false;
    v->value = buf[0];
    v->enabled = buf[1];
    v->running = buf[2];
    return true;
}

void perfctr_mark(struct perfctr_set *s)
{
    for (int i = 0; i < PERFCTR_COUNT; i++)
        if (!read_one(s->fd[i], &s->at_open[i]))
            memset(&s->at_open[i], 0, sizeof(s->at_open[i]));
}

double perfctr_scale(const struct perfctr_value *v)
{
    if (!v->running)
        return 0;
    if (v->running >= v->enabled)
        return (double)v->value;
    return (double)v->value * ((double)v->enabled / (double)v->running);
}

void perfctr_read(const struct perfctr_set *s, struct perfctr_delta *d)
{
    memset(d, 0, sizeof(*d));
    for (int i = 0; i < PERFCTR_COUNT; i++) {
        struct perfctr_value now;
        if (s->fd[i] < 0) {
            snprintf(d->why[i], sizeof(d->why[i]), "%s", s->why[i]);
            continue;
        }
        if (!read_one(s->fd[i], &now)) {
            snprintf(d->why[i], sizeof(d->why[i]), "cannot read the counter");
            continue;
        }
        const struct perfctr_value *o = &s->at_open[i];
        struct perfctr_value w = {now.value - o->value, now.enabled - o->enabled,
                                  now.running - o->running};
        if (w.enabled && !w.running) {
            snprintf(d->why[i], sizeof(d->why[i]), "never scheduled (too many counters)");
            continue;
        }
        d->valid[i] = true;
        d->value[i] = perfctr_scale(&w);
        d->running_frac[i] = w.enabled ? (double)w.running / (double)w.enabled : 1.0;
    }
}

void perfctr_close(struct perfctr_set *s)
{
    for (int i = 0; i < PERFCTR_COUNT; i++) {
        if (s->fd[i] >= 0)
            close(s->fd[i]);
        s->fd[i] = -1;
    }
}
