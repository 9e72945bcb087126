/*
 * Option values: one parser per kind of value an option takes, each naming
 * the option in its error ("-P: '0' is out of range 1..128"). Shared by every
 * command line netab reads (the subcommands, a variant's `netab run` options
 * in experiment files and `netab compare`). They print nothing.
 */
#ifndef NETAB_UTIL_OPTVAL_H
#define NETAB_UTIL_OPTVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Each converts arg, the value of option `opt`; on a bad value it writes
 * "OPT: <reason>" (naming the option and the value) to err and returns false.
 */
bool optval_size(const char *opt, const char *arg, uint64_t max, uint64_t *out, char *err,
                 size_t errlen);
bool optval_seconds(const char *opt, const char *arg, double min, double max, double *out,
                    char *err, size_t errlen);
bool optval_int(const char *opt, const char *arg, long min, long max, long *out, char *err,
                size_t errlen);

#endif
