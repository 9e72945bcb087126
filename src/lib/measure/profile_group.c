/*
 * A profile's group of events (profile_priv.h): the events' attributes,
 * the members' opening, each sample's share of the group's counts and the
 * figures per function (IPC, L1-icache misses per 1,000 instructions).
 *
 * Why leader sampling, not a sampling event per member: the members' counts
 * go to the very samples the leader takes, so a function's IPC is the
 * instructions and cycles of the same moments, and a member needs no ring,
 * no frequency and no records of its own (a hardware counter each, not a
 * sampling interrupt each).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/profile_priv.h"

#define CACHE_MISS(c)                                                                              \
    ((c) | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16))

void profile_event_attr(enum profile_event e, struct perf_event_attr *a)
{
    static const struct {
        uint32_t type;
        uint64_t config;
    } ev[PROFILE_NEVENTS] = {
        [PROFILE_CPU_CLOCK] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
        [PROFILE_CYCLES] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        [PROFILE_INSTRUCTIONS] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        [PROFILE_L1I_MISSES] = {PERF_TYPE_HW_CACHE, CACHE_MISS(PERF_COUNT_HW_CACHE_L1I)},
        [PROFILE_ITLB_MISSES] = {PERF_TYPE_HW_CACHE, CACHE_MISS(PERF_COUNT_HW_CACHE_ITLB)},
        [PROFILE_TASK_CLOCK] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
        [PROFILE_PAGE_FAULTS] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
        [PROFILE_CONTEXT_SWITCHES] = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    };
    if (e >= PROFILE_NEVENTS)
        e = PROFILE_CPU_CLOCK;
    a->type = ev[e].type;
    a->config = ev[e].config;
}

bool profile_event_hw(enum profile_event e)
{
    struct perf_event_attr a = {0};
    profile_event_attr(e, &a);
    return a.type != PERF_TYPE_SOFTWARE;
}

int profile_member_open(const struct profile *p, int k, int leader, int pid, int cpu, bool inherit)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    profile_event_attr(p->grp.ev[k], &a);
    /* Enabled: it counts whenever its leader, enabled with the window, is scheduled. */
    a.exclude_hv = 1;
    a.inherit = inherit;
    a.read_format = PERF_FORMAT_GROUP;
    long fd = syscall(SYS_perf_event_open, &a, pid, cpu, leader, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

/* The slot of stream id, added (with zero counts) when new; NULL when out of memory. */
static uint64_t *last_of(struct profile_group *g, uint64_t id)
{
    if ((g->used + 1) * 2 > g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 256;
        uint64_t *sid = calloc(cap, sizeof(*sid));
        uint64_t *last = calloc(cap * PROFILE_MAX_EVENTS, sizeof(*last));
        if (!sid || !last) {
            free(sid);
            free(last);
            return NULL;
        }
        for (size_t i = 0; i < g->cap; i++) {
            if (!g->sid[i])
                continue;
            size_t j = (size_t)(g->sid[i] * 0x9e3779b97f4a7c15u >> 20) & (cap - 1);
            while (sid[j])
                j = (j + 1) & (cap - 1);
            sid[j] = g->sid[i];
            memcpy(&last[j * PROFILE_MAX_EVENTS], &g->last[i * PROFILE_MAX_EVENTS],
                   PROFILE_MAX_EVENTS * sizeof(*last));
        }
        free(g->sid);
        free(g->last);
        g->sid = sid;
        g->last = last;
        g->cap = cap;
    }
    /* Stream ids start at 1 (the kernel's counter is pre-incremented): 0 marks a free slot. */
    size_t j = (size_t)(id * 0x9e3779b97f4a7c15u >> 20) & (g->cap - 1);
    while (g->sid[j] && g->sid[j] != id)
        j = (j + 1) & (g->cap - 1);
    if (!g->sid[j]) {
        g->sid[j] = id;
        g->used++;
    }
    return &g->last[j * PROFILE_MAX_EVENTS];
}

size_t profile_group_take(struct profile *p, const uint64_t *u, size_t words, uint64_t *d)
{
    struct profile_group *g = &p->grp;
    if (words < 2 || u[1] != (uint64_t)g->nev || words < 2 + (size_t)g->nev || !u[0])
        return 0;
    uint64_t *last = last_of(g, u[0]);
    for (int k = 0; k < g->nev; k++) {
        uint64_t v = u[2 + k];
        /* The first sample of a stream takes what it counted since it was enabled (perf's
         * way); a count never goes down, but a bad record must not add 2^64. */
        d[k] = last && v >= last[k] ? v - last[k] : 0;
        if (last)
            last[k] = v;
        g->sampled[k] += d[k];
    }
    return 2 + (size_t)g->nev;
}

void profile_group_read(struct profile *p, int fd)
{
    uint64_t buf[1 + PROFILE_MAX_EVENTS];
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
    if (n < (ssize_t)sizeof(uint64_t) || buf[0] != (uint64_t)p->grp.nev ||
        (size_t)n < (1 + (size_t)p->grp.nev) * sizeof(uint64_t))
        return;
    for (int k = 0; k < p->grp.nev; k++)
        p->grp.counted[k] += buf[1 + k];
}

static json_t *counts_json(const uint64_t *c, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, json_integer((json_int_t)c[k]));
    return a;
}

json_t *profile_group_json(const struct profile *p, const uint64_t *attributed)
{
    const struct profile_group *g = &p->grp;
    json_t *names = json_array();
    for (int k = 0; k < g->nev; k++)
        json_array_append_new(names, json_string(profile_event_name(g->ev[k])));
    return json_pack("{s:o, s:o, s:o, s:o}", "events", names, "counted",
                     counts_json(g->counted, g->nev), "sampled", counts_json(g->sampled, g->nev),
                     "attributed", counts_json(attributed, g->nev));
}

/* The position of event e in the group, or -1. */
static int pos_of(const struct profile_group *g, enum profile_event e)
{
    for (int k = 0; k < g->nev; k++)
        if (g->ev[k] == e)
            return k;
    return -1;
}

/* a / b * scale, or null where b is 0 or either event is not in the group. */
static json_t *ratio(const uint64_t *c, int a, int b, double scale)
{
    if (a < 0 || b < 0 || !c[b])
        return json_null();
    return json_real(scale * (double)c[a] / (double)c[b]);
}

void profile_group_fn_json(const struct profile *p, const uint64_t *c, const uint64_t *attributed,
                           json_t *o)
{
    const struct profile_group *g = &p->grp;
    json_t *shares = json_array();
    for (int k = 0; k < g->nev; k++)
        json_array_append_new(
            shares, json_real(attributed[k] ? 100.0 * (double)c[k] / (double)attributed[k] : 0));
    int cyc = pos_of(g, PROFILE_CYCLES), ins = pos_of(g, PROFILE_INSTRUCTIONS);
    json_object_set_new(o, "counts", counts_json(c, g->nev));
    json_object_set_new(o, "shares_pct", shares);
    json_object_set_new(o, "ipc", ratio(c, ins, cyc, 1));
    json_object_set_new(o, "l1i_mpki", ratio(c, pos_of(g, PROFILE_L1I_MISSES), ins, 1000));
}

void profile_group_free(struct profile *p)
{
    free(p->grp.sid);
    free(p->grp.last);
    p->grp.sid = p->grp.last = NULL;
    p->grp.cap = p->grp.used = 0;
}
