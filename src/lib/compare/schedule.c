#include "compare/schedule.h"

#include "campaign/order.h"

void compare_schedule_rounds(uint64_t seed, unsigned nvar, unsigned first_round, unsigned nrounds,
                             unsigned warmup, unsigned seq0, struct compare_slot *slots)
{
    unsigned order[COMPARE_MAX_VARIANTS];
    size_t k = 0;
    for (unsigned r = first_round; r < first_round + nrounds; r++) {
        order_round(seed, r, nvar, order);
        for (unsigned i = 0; i < nvar; i++, k++)
            slots[k] = (struct compare_slot){.variant = order[i],
                                             .round = r,
                                             .seq = seq0 + (unsigned)k + 1,
                                             .warmup = r <= warmup};
    }
}

size_t compare_looks(unsigned first, unsigned max, unsigned *looks, size_t cap)
{
    size_t k = 0;
    if (first > max)
        first = max;
    for (unsigned n = first;;) {
        if (k < cap)
            looks[k] = n;
        k++;
        if (n >= max)
            break;
        unsigned next = n + (n + 1) / 2; /* ceil(1.5 n) */
        n = next > n ? (next < max ? next : max) : n + 1;
    }
    return k;
}

double compare_look_confidence(double confidence, size_t k)
{
    return k ? 1 - (1 - confidence) / (double)k : confidence;
}
