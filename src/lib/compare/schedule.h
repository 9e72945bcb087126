/*
 * The looks of adaptive stopping. The order of a comparison's runs comes
 * from the campaign planner (campaign_plan_rounds() with one cell): every
 * campaign front end shares one generator and one shuffle (campaign/order.h).
 */
#ifndef NETAB_COMPARE_SCHEDULE_H
#define NETAB_COMPARE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* More variants than this would make rounds too long to interleave usefully. */
#define COMPARE_MAX_VARIANTS 64

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
