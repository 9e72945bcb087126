#include "compare/schedule.h"

#include <time.h>
#include <unistd.h>

/* splitmix64: a tiny, well-mixed generator whose output is the same everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias (rejection of the short last block). */
static uint64_t uniform_below(uint64_t *state, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = splitmix64(state);
    while (x >= limit);
    return x % bound;
}

void compare_round_order(uint64_t seed, unsigned round, unsigned nvar, unsigned *order)
{
    /* Mix the round into the state so that neighbouring rounds are unrelated. */
    uint64_t state = seed ^ ((uint64_t)round * 0xd1b54a32d192ed03ULL);
    (void)splitmix64(&state);
    for (unsigned i = 0; i < nvar; i++)
        order[i] = i;
    for (unsigned i = nvar; i > 1; i--) { /* Fisher-Yates */
        unsigned j = (unsigned)uniform_below(&state, i);
        unsigned t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

void compare_schedule_rounds(uint64_t seed, unsigned nvar, unsigned first_round, unsigned nrounds,
                             unsigned warmup, unsigned seq0, struct compare_slot *slots)
{
    unsigned order[COMPARE_MAX_VARIANTS];
    size_t k = 0;
    for (unsigned r = first_round; r < first_round + nrounds; r++) {
        compare_round_order(seed, r, nvar, order);
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

uint64_t compare_fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s =
        (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    /* Keep it short enough to type back in. */
    return splitmix64(&s) % 1000000000ULL;
}
