/*
 * One flow's latency histogram (issue 30's many flows): the buckets of
 * measure/histogram.h, kept sparse. struct histogram is 58 KB, too much for
 * each of 10,000 flows; this one allocates a row of 128 buckets (512 bytes)
 * only when a value first lands in it, so a flow whose latencies span a few
 * octaves costs a few KB. Its buckets are histogram.h's, slot for slot, so
 * flowhist_merge() adds them into a struct histogram exactly: the merged
 * percentiles of all flows are those of every transaction, never an average
 * of per-flow percentiles.
 *
 * One thread records (the flow's event loop); others read it only after that
 * thread has ended (the window closes after the streams finished).
 */
#ifndef NETAB_MEASURE_FLOWHIST_H
#define NETAB_MEASURE_FLOWHIST_H

#include <stdint.h>

#include "measure/histogram.h"

#define FLOWHIST_ROWS (HIST_BUCKETS >> HIST_SUB_BITS) /* 57 */

struct flowhist {
    uint32_t *row[FLOWHIST_ROWS]; /* NULL until a value lands in it */
    uint64_t count, sum;          /* sum of the values: 584 years of ns before it wraps */
    uint64_t min, max;            /* UINT64_MAX and 0 while empty */
    /* Values not recorded: a row could not be allocated, or a bucket was full (2^32 - 1). */
    uint64_t dropped;
};

void flowhist_init(struct flowhist *h);
void flowhist_free(struct flowhist *h);

/* Adds one value (ns). */
void flowhist_record(struct flowhist *h, uint64_t v);

/* dst += src, bucket for bucket (dst must not be recorded into concurrently). */
void flowhist_merge(struct histogram *dst, const struct flowhist *src);

/* The memory h holds beyond its own struct (its rows). */
uint64_t flowhist_rows_bytes(const struct flowhist *h);

#endif
