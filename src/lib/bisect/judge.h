/*
 * netab bisect's decisions (docs/bisect.md), pure computation: are GOOD and
 * BAD different enough to bisect, and is a commit like GOOD or like BAD?
 */
#ifndef NETAB_BISECT_JUDGE_H
#define NETAB_BISECT_JUDGE_H

#include <stdbool.h>

enum bisect_decision {
    BISECT_UNDECIDED = 0, /* the interval straddles the midpoint (after the last look: skip) */
    BISECT_GOOD,
    BISECT_BAD,
    BISECT_SKIP, /* no answer: a build failed, too few runs, or still undecided at the end */
    BISECT_LOST, /* the DUT never came back after a boot into this step's kernel or GOOD's */
};

/* "undecided", "good", "bad", "skip", "lost" (static strings). */
const char *bisect_decision_name(enum bisect_decision d);

/*
 * A commit's decision from its relative change against GOOD (interval
 * lo..hi, fractions) and BAD's change against GOOD (bad_rel, the point
 * estimate of the references): the midpoint m = bad_rel / 2 divides "like
 * GOOD" from "like BAD". The commit is bad when the whole interval lies on
 * BAD's side of m (hi < m when bad_rel < 0, lo > m when bad_rel > 0), good
 * when it lies wholly on GOOD's side, undecided when it contains m or a
 * bound is NaN.
 */
enum bisect_decision bisect_judge(double lo, double hi, double bad_rel);

#endif
