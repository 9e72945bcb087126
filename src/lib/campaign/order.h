/*
 * The seeded run order shared by every campaign (`netab experiment` and
 * `netab compare`): one generator, one shuffle.
 *
 * Interleaving spreads slow drifts of the machine (thermal state, page cache,
 * background jobs) evenly over the variants; shuffling each round keeps a
 * fixed position in the round (say, always first after a cool-down) from
 * favouring one variant. The permutation of round r depends only on the seed
 * and r, so a campaign that adds rounds later (adaptive stopping, resume)
 * stays reproducible, and a seed replays the same order on every platform.
 */
#ifndef NETAB_CAMPAIGN_ORDER_H
#define NETAB_CAMPAIGN_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fills order[0..n-1] with a uniformly random permutation of 0..n-1 for
 * round `round` (1-based), determined by seed and round alone (splitmix64
 * seeded with seed and the round, Fisher-Yates without modulo bias).
 */
void order_round(uint64_t seed, unsigned round, size_t n, unsigned *order);

/* A seed from the clock and the process id, short enough to type back in (< 1e9). */
uint64_t order_fresh_seed(void);

#endif
