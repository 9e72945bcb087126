#include "measure/flowhist.h"

#include <stdlib.h>
#include <string.h>

#define ROW_LEN (1u << HIST_SUB_BITS)

void flowhist_init(struct flowhist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

void flowhist_free(struct flowhist *h)
{
    for (unsigned r = 0; r < FLOWHIST_ROWS; r++)
        free(h->row[r]);
    flowhist_init(h);
}

void flowhist_record(struct flowhist *h, uint64_t v)
{
    v = v > HIST_MAX_VALUE ? HIST_MAX_VALUE : v;
    unsigned slot = hist_slot_of(v);
    uint32_t **row = &h->row[slot >> HIST_SUB_BITS];
    if (!*row && !(*row = calloc(ROW_LEN, sizeof(uint32_t)))) {
        h->dropped++;
        return;
    }
    uint32_t *b = &(*row)[slot & (ROW_LEN - 1)];
    if (*b == UINT32_MAX) {
        h->dropped++;
        return;
    }
    (*b)++;
    h->count++;
    h->sum += v;
    h->min = v < h->min ? v : h->min;
    h->max = v > h->max ? v : h->max;
}

#define LD(p) atomic_load_explicit((p), memory_order_relaxed)
#define ST(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)

void flowhist_merge(struct histogram *dst, const struct flowhist *src)
{
    if (!src->count)
        return;
    for (unsigned r = 0; r < FLOWHIST_ROWS; r++) {
        if (!src->row[r])
            continue;
        for (unsigned j = 0; j < ROW_LEN; j++)
            if (src->row[r][j])
                ST(&dst->bucket[(r << HIST_SUB_BITS) + j],
                   LD(&dst->bucket[(r << HIST_SUB_BITS) + j]) + src->row[r][j]);
    }
    ST(&dst->count, LD(&dst->count) + src->count);
    uint64_t lo = LD(&dst->sum_lo) + src->sum;
    ST(&dst->sum_lo, lo);
    if (lo < src->sum)
        ST(&dst->sum_hi, LD(&dst->sum_hi) + 1);
    if (src->min < LD(&dst->min))
        ST(&dst->min, src->min);
    if (src->max > LD(&dst->max))
        ST(&dst->max, src->max);
}

uint64_t flowhist_rows_bytes(const struct flowhist *h)
{
    uint64_t n = 0;
    for (unsigned r = 0; r < FLOWHIST_ROWS; r++)
        n += h->row[r] ? ROW_LEN * sizeof(uint32_t) : 0;
    return n;
}
