/*
 * Option and command names matched exactly, with "did you mean" hints.
 *
 * netab takes long options by their exact names only: getopt_long alone
 * accepts any unique prefix (`--tim 1` as `--time 1`), so a typo could
 * silently mean another option, and an option added later would turn a
 * working abbreviation ambiguous. optmatch_next() is getopt_long with that
 * refused; optmatch_hint() and optmatch_closest() name what the user
 * probably meant. They print nothing.
 */
#ifndef NETAB_UTIL_OPTMATCH_H
#define NETAB_UTIL_OPTMATCH_H

#include <getopt.h>
#include <stddef.h>

/*
 * getopt_long(argc, argv, shortopts, longopts, NULL), except that a long
 * option given by anything but its exact name ("--tim", "--tim=1") returns
 * '?' like an unknown one, with optopt 0 and argv[optind - 1] the element as
 * typed (also when its value was the next element). shortopts should start
 * with ':' (or '+:', '-:') so that getopt prints nothing itself.
 */
int optmatch_next(int argc, char *const argv[], const char *shortopts,
                  const struct option *longopts);

/*
 * For an unknown option arg as typed ("--paralel", "--tim=1"): writes
 * "; did you mean '--parallel'?" (or two or three candidates joined by
 * "or") into buf, or "" when no long option is close. Close means a name
 * arg is a prefix of (an abbreviation), or one at most two edits away
 * (insert, delete, replace, swap two neighbours; one for short names).
 * An option spelled exactly but refused ("--json=1") gets "; '--json' takes
 * no value". Returns buf.
 */
const char *optmatch_hint(const char *arg, const struct option *longopts, char *buf, size_t len);

/*
 * The same for a command or verb: word against names[0..n-1], the hint
 * written as "; did you mean 'compare'?" or "". Returns buf.
 */
const char *optmatch_closest(const char *word, const char *const *names, size_t n, char *buf,
                             size_t len);

#endif
