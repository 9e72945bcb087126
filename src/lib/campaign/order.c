#include "campaign/order.h"

#include <time.h>
#include <unistd.h>

/* splitmix64: small, well mixed and the same on every platform, so a seed replays anywhere. */
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

void order_round(uint64_t seed, unsigned round, size_t n, unsigned *order)
{
    /* Mix the round into the state so that neighbouring rounds are unrelated. */
    uint64_t state = seed ^ ((uint64_t)round * 0xd1b54a32d192ed03ULL);
    (void)splitmix64(&state);
    for (size_t i = 0; i < n; i++)
        order[i] = (unsigned)i;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)uniform_below(&state, i);
        unsigned t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

uint64_t order_fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s =
        (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    return splitmix64(&s) % 1000000000ULL;
}
