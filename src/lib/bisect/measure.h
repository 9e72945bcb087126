/*
 * One comparison of a bisection: tree B (BAD, or the commit under test)
 * against tree A (GOOD) as a `netab compare` campaign in the results store,
 * and the same judgement recomputed later from the stored runs.
 */
#ifndef NETAB_BISECT_MEASURE_H
#define NETAB_BISECT_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "bisect/bisect.h"
#include "bisect/dutfile.h"
#include "store/store.h"

/*
 * The two sides: variant names (A is GOOD), the directories their setup runs
 * in and their commits (full hashes: NETAB_BISECT_COMMIT of --setup, and
 * {commit} of the DUT's boot and expect).
 */
struct bisect_pair {
    const char *name_a, *dir_a, *name_b, *dir_b;
    const char *hash_a, *hash_b;
    const struct bisect_dutfile *dut; /* --experiment: the DUT booted into each side; or NULL */
    /*
     * bisect_measure_stored(): the experiment is one that the DUT's loss
     * stopped (its status "failed" with runs planned): recompute where.
     */
    bool lost;
    const char *experiment; /* the experiment's name in the store */
    uint64_t seed;
    /*
     * 0: the references; the looks stop once B differs from A beyond the
     * noise floor. Otherwise BAD's change against GOOD: the looks stop
     * once bisect_judge() decides.
     */
    double bad_rel;
};

/*
 * Checks cfg's run options (as `netab run` parses them) and metric before
 * anything runs. Returns 0 or -EINVAL with the reason in err.
 */
NB_MUST_CHECK int bisect_measure_check(const struct bisect_config *cfg, char *err, size_t errlen);

/*
 * Measures pair with cfg's schedule, records it in cfg->db and fills out
 * (counts, change of B against A, decision: for the references BISECT_BAD
 * when they differ, else BISECT_SKIP with the reason). When the campaign
 * engine stopped because the DUT no longer answered (after
 * DUT_MAX_UNREACHABLE runs in a row), the decision is BISECT_LOST: the
 * reason names the side whose run lost it first (out->lost_on_good) and why.
 * *interrupted is set after bisect_cancel(). Returns 0 or a negative errno
 * with a sentence in err (bad run options, the store).
 */
NB_MUST_CHECK int bisect_measure(const struct bisect_config *cfg, const struct bisect_pair *pair,
                                 const struct bisect_progress *p, struct bisect_step *out,
                                 bool *interrupted, char *err, size_t errlen);

/*
 * The same judgement from experiment id's stored runs (the variants named
 * as in pair; with pair->lost, BISECT_LOST and where, as bisect_measure()
 * found it). Returns 0 or a negative errno with a sentence in err.
 */
NB_MUST_CHECK int bisect_measure_stored(const struct bisect_config *cfg,
                                        const struct bisect_pair *pair, struct store *db,
                                        int64_t id, struct bisect_step *out, char *err,
                                        size_t errlen);

#endif
