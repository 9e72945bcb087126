#include "bisect/judge.h"

#include <math.h>

const char *bisect_decision_name(enum bisect_decision d)
{
    switch (d) {
    case BISECT_GOOD:
        return "good";
    case BISECT_BAD:
        return "bad";
    case BISECT_SKIP:
        return "skip";
    case BISECT_LOST:
        return "lost";
    default:
        return "undecided";
    }
}

enum bisect_decision bisect_judge(double lo, double hi, double bad_rel)
{
    if (isnan(lo) || isnan(hi) || !isfinite(bad_rel) || bad_rel == 0)
        return BISECT_UNDECIDED;
    double m = bad_rel / 2;
    /* Which side is BAD's depends on the direction of the change being hunted. */
    bool below = hi<m, above = lo> m;
    if (bad_rel < 0)
        return below ? BISECT_BAD : above ? BISECT_GOOD : BISECT_UNDECIDED;
    return above ? BISECT_BAD : below ? BISECT_GOOD : BISECT_UNDECIDED;
}
