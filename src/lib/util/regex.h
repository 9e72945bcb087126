/*
 * Compiling a POSIX extended regular expression that came from outside
 * (an experiment file, a command line) without letting it take the process
 * down. glibc's regcomp copies a group once per count of a bounded
 * repetition, so "((a{1,100}){1,100}){1,100}" — 27 characters — builds a
 * million nodes and takes gigabytes; a back-reference makes regexec
 * exponential. regex_compile refuses both before regcomp sees them.
 */
#ifndef NETAB_UTIL_REGEX_H
#define NETAB_UTIL_REGEX_H

#include <regex.h>
#include <stddef.h>

#include "util/err.h"

#define REGEX_MAX_LEN 1024
/* How many atoms the pattern may stand for once every {m,n} is unrolled. */
#define REGEX_MAX_WEIGHT 10000

/*
 * regcomp(r, pattern, flags | REG_EXTENDED) after checking that pattern is
 * at most REGEX_MAX_LEN characters, uses no back-reference (\1 to \9) and
 * unrolls to at most REGEX_MAX_WEIGHT atoms. Returns 0 (the caller then
 * regfree()s r) or -EINVAL with a sentence in err naming what is wrong; r
 * needs no regfree() then.
 */
NB_MUST_CHECK int regex_compile(regex_t *r, const char *pattern, int flags, char *err,
                                size_t errlen);

/* The unrolled size regex_compile checks: atoms counted with their repetitions. */
double regex_weight(const char *pattern);

#endif
