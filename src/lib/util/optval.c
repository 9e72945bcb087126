#include "util/optval.h"

#include <stdio.h>

#include "util/err.h"
#include "util/units.h"

bool optval_size(const char *opt, const char *arg, uint64_t max, uint64_t *out, char *err,
                 size_t errlen)
{
    char why[NB_ERRLEN];
    if (units_parse_size(arg, out, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", opt, why);
        return false;
    }
    if (*out > max) {
        snprintf(err, errlen, "%s: '%s' is too large (at most %llu)", opt, arg,
                 (unsigned long long)max);
        return false;
    }
    return true;
}

bool optval_seconds(const char *opt, const char *arg, double min, double max, double *out,
                    char *err, size_t errlen)
{
    char why[NB_ERRLEN];
    if (units_parse_seconds(arg, out, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", opt, why);
        return false;
    }
    if (*out < min || *out > max) {
        snprintf(err, errlen, "%s: '%s' is out of range (%g to %g seconds)", opt, arg, min, max);
        return false;
    }
    return true;
}

bool optval_int(const char *opt, const char *arg, long min, long max, long *out, char *err,
                size_t errlen)
{
    char why[NB_ERRLEN];
    if (units_parse_int(arg, min, max, out, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", opt, why);
        return false;
    }
    return true;
}
