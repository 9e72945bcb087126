/*
 * Regular expressions that come from outside (an experiment's `expect:`,
 * `netab compare --metric-regex`), compiled and matched with PCRE2 under
 * limits, so that no pattern can take the process down: glibc's regcomp
 * copies a group once per count of a bounded repetition, and
 * "((a{1,100}){1,100}){1,100}" (27 characters) took 1.7 GB and 6 s there.
 * PCRE2 refuses a pattern whose compiled form would be too large, and stops
 * a match that backtracks too long with an error instead of running on.
 * Patterns and texts are bytes: (*UTF) is refused.
 */
#ifndef NETAB_UTIL_PATTERN_H
#define NETAB_UTIL_PATTERN_H

#include <stddef.h>

#include "util/err.h"

#define PATTERN_MAX_LEN 1024
/*
 * The work of one pattern_find(): PCRE2 counts its match limit afresh at
 * every start position, so each of the len - from + 1 positions gets
 * PATTERN_SEARCH_BUDGET / (len - from + 1) backtracking steps, but never
 * fewer than PATTERN_POSITION_MIN. A pattern that needs more at one
 * position is catastrophic ((a+)+$): it is an error, not a slow match.
 * PCRE2's backtracking memory and depth are capped too.
 */
#define PATTERN_SEARCH_BUDGET 2000000
#define PATTERN_POSITION_MIN 100
#define PATTERN_HEAP_LIMIT_KIB 20000
#define PATTERN_DEPTH_LIMIT 100000

/* ^ and $ also match at each line's start and end. */
#define PATTERN_LINES 1u

struct pattern;

/*
 * Compiles a PCRE2 pattern of at most PATTERN_MAX_LEN characters. Returns 0,
 * or -ENOMEM or -EINVAL with a sentence in err naming the pattern, what is
 * wrong and where. The caller frees *out with pattern_free().
 */
NB_MUST_CHECK int pattern_compile(struct pattern **out, const char *re, unsigned flags, char *err,
                                  size_t errlen);

/* The number of capture groups of p. */
size_t pattern_groups(const struct pattern *p);

/*
 * Finds p's first match in s[0..len) at or after from. Returns 1 with the
 * match in m[0], m[1] (start, end) and capture group 1 in m[2], m[3]
 * (SIZE_MAX both when it took no part), 0 when there is none, or -ENOMEM,
 * -E2BIG (a limit above was reached) or -EINVAL with a sentence in err.
 */
NB_MUST_CHECK int pattern_find(const struct pattern *p, const char *s, size_t len, size_t from,
                               size_t m[4], char *err, size_t errlen);

/*
 * Where to look for the next match after the match m of pattern_find():
 * its end, or one further when it was empty, so that a walk over every
 * match ends.
 */
size_t pattern_next_from(const size_t m[4]);

void pattern_free(struct pattern *p);

#endif
