/*
 * The raw counts of a sampled profile, before symbols: how many samples
 * fell at each (address, caller's address, process) triple. The process is
 * kept only for user-space addresses, which mean something only within
 * one; the caller is the next frame of the call chain (0 when unknown).
 * Bounded: past PAGG_MAX_ENTRIES distinct triples further new ones are
 * counted as unattributed, never stored. Pure: no system calls.
 */
#ifndef NETAB_MEASURE_PROFILE_AGG_H
#define NETAB_MEASURE_PROFILE_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PAGG_MAX_ENTRIES (1u << 18) /* at most 12 MiB of table */

struct pagg_entry {
    uint64_t ip, caller;
    uint32_t pid; /* 0 for kernel addresses */
    uint32_t count;
};

#define PAGG_MAX_VALS 4

struct pagg {
    struct pagg_entry *slots; /* open addressing; count 0 = empty */
    size_t cap, used;
    /* Counts beside the samples (a group's events, profile.h): nval per slot, at vals[slot *
     * nval]; nval 0 (and vals NULL) without. Set nval before the first pagg_add(). */
    int nval;
    uint64_t *vals;
    uint64_t samples;      /* every sample added */
    uint64_t unattributed; /* samples whose triple did not fit */
};

/* True for an address in the kernel's half of the address space. */
static inline bool pagg_is_kernel(uint64_t ip)
{
    return ip >> 63;
}

/* Counts one sample. Returns 0, or -ENOMEM when it is counted as unattributed instead. */
int pagg_add(struct pagg *a, uint64_t ip, uint64_t caller, uint32_t pid);

/* pagg_add(), and adds v[0..nval) to the triple's counts (v NULL: adds nothing). */
int pagg_add_vals(struct pagg *a, uint64_t ip, uint64_t caller, uint32_t pid, const uint64_t *v);

/* The counts beside slot i's samples (nval of them), or NULL without. */
static inline const uint64_t *pagg_vals(const struct pagg *a, size_t i)
{
    return a->nval ? &a->vals[i * (size_t)a->nval] : NULL;
}

void pagg_free(struct pagg *a);

#endif
