/*
 * The order of a comparison's runs: shuffled rounds in which every variant
 * runs once, warm-up rounds first, and the looks of adaptive stopping.
 *
 * Interleaving spreads slow drifts of the machine (thermal state, page cache,
 * background jobs) evenly over the variants; shuffling each round keeps a
 * fixed position in the round (say, always first after a cool-down) from
 * favouring one variant. The permutation of round r depends only on the seed
 * and r, so a campaign that adds rounds adaptively stays reproducible.
 */
#ifndef NETAB_COMPARE_SCHEDULE_H
#define NETAB_COMPARE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* More variants than this would make rounds too long to interleave usefully. */
#define COMPARE_MAX_VARIANTS 64

struct compare_slot {
    unsigned variant; /* index into the variants; 0 is the baseline */
    unsigned round;   /* 1-based, counting warm-up rounds */
    unsigned seq;     /* 1-based position in the whole campaign */
    bool warmup;      /* discarded: measured only to bring the system to a steady state */
};

/*
 * Appends rounds first_round .. first_round + nrounds - 1 to slots (which
 * has room for nrounds * nvar more entries at slots[0]); rounds up to and
 * including `warmup` are marked as warm-ups. seq continues from seq0 + 1.
 */
void compare_schedule_rounds(uint64_t seed, unsigned nvar, unsigned first_round, unsigned nrounds,
                             unsigned warmup, unsigned seq0, struct compare_slot *slots);

/*
 * The pre-planned looks of adaptive stopping: the numbers of measured
 * rounds after which the interval is checked. The first look is at
 * `first` rounds, then each look is 1.5 times the previous one (rounded up,
 * at least one more round), the last at `max`. Writes up to cap looks into
 * looks[] and returns how many there are (also when cap is smaller).
 */
size_t compare_looks(unsigned first, unsigned max, unsigned *looks, size_t cap);

/*
 * The confidence level to use at each of k looks so that the probability
 * that any of the k intervals misses the true value stays below
 * 1 - confidence (Bonferroni): 1 - (1 - confidence) / k.
 */
double compare_look_confidence(double confidence, size_t k);

#endif
