#include "cli/cli_common.h"

#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "util/units.h"

bool cli_parse_size(const char *opt, const char *arg, uint64_t max, uint64_t *out, char *err,
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

bool cli_parse_seconds(const char *opt, const char *arg, double min, double max, double *out,
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

bool cli_parse_int(const char *opt, const char *arg, long min, long max, long *out, char *err,
                   size_t errlen)
{
    char why[NB_ERRLEN];
    if (units_parse_int(arg, min, max, out, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", opt, why);
        return false;
    }
    return true;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "netab %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'netab %s --help')\n", cmd);
    return EXIT_USAGE;
}
