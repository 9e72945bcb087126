#include "measure/profile_agg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t ip, uint64_t caller, uint32_t pid, size_t cap)
{
    uint64_t h = ip * 0x9e3779b97f4a7c15u ^ caller * 0xc2b2ae3d27d4eb4fu ^ pid;
    h ^= h >> 29;
    return (size_t)(h & (cap - 1));
}

/* Doubles the table (cap stays a power of two) and re-inserts every entry. */
static int grow(struct pagg *a)
{
    size_t cap = a->cap ? a->cap * 2 : 1024;
    size_t nv = (size_t)a->nval;
    struct pagg_entry *s = calloc(cap, sizeof(*s));
    uint64_t *v = nv ? calloc(cap * nv, sizeof(*v)) : NULL;
    if (!s || (nv && !v)) {
        free(s);
        return -ENOMEM;
    }
    for (size_t i = 0; i < a->cap; i++) {
        const struct pagg_entry *e = &a->slots[i];
        if (!e->count)
            continue;
        size_t j = slot_of(e->ip, e->caller, e->pid, cap);
        while (s[j].count)
            j = (j + 1) & (cap - 1);
        s[j] = *e;
        if (nv)
            memcpy(&v[j * nv], &a->vals[i * nv], nv * sizeof(*v));
    }
    free(a->slots);
    free(a->vals);
    a->slots = s;
    a->vals = v;
    a->cap = cap;
    return 0;
}

int pagg_add(struct pagg *a, uint64_t ip, uint64_t caller, uint32_t pid)
{
    return pagg_add_vals(a, ip, caller, pid, NULL);
}

/* Adds v's counts to slot j's. */
static void add_vals(struct pagg *a, size_t j, const uint64_t *v)
{
    for (int k = 0; v && k < a->nval; k++)
        a->vals[j * (size_t)a->nval + (size_t)k] += v[k];
}

int pagg_add_vals(struct pagg *a, uint64_t ip, uint64_t caller, uint32_t pid, const uint64_t *v)
{
    a->samples++;
    if (pagg_is_kernel(ip))
        pid = 0;
    /* Kept at most half full, so probes stay short; a failed growth keeps the old table. */
    if ((a->used + 1) * 2 > a->cap && a->cap < 2 * (size_t)PAGG_MAX_ENTRIES)
        (void)grow(a);
    if (a->cap == 0 || a->used + 1 >= a->cap) {
        a->unattributed++;
        return -ENOMEM;
    }
    size_t j = slot_of(ip, caller, pid, a->cap);
    while (a->slots[j].count) {
        struct pagg_entry *e = &a->slots[j];
        if (e->ip == ip && e->caller == caller && e->pid == pid) {
            if (e->count < UINT32_MAX)
                e->count++;
            add_vals(a, j, v);
            return 0;
        }
        j = (j + 1) & (a->cap - 1);
    }
    if (a->used >= PAGG_MAX_ENTRIES) {
        a->unattributed++;
        return -ENOMEM;
    }
    a->slots[j] = (struct pagg_entry){ip, caller, pid, 1};
    add_vals(a, j, v);
    a->used++;
    return 0;
}

void pagg_free(struct pagg *a)
{
    free(a->slots);
    free(a->vals);
    *a = (struct pagg){0};
}
