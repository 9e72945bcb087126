/*
 * The trees a bisection measures besides the work tree: GOOD's and BAD's,
 * extracted into a temporary directory, and the --build that every tree
 * (those and the work tree at each step) goes through before its runs.
 */
#ifndef NETAB_BISECT_TREE_H
#define NETAB_BISECT_TREE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include "util/err.h"

struct bisect_trees {
    char tmp[PATH_MAX]; /* holds good/ and bad/; "" when there is none */
    char good[PATH_MAX + 8], bad[PATH_MAX + 8];
};

/*
 * Creates a fresh directory under $TMPDIR (else /tmp) and names good/ and
 * bad/ in it (not created). Returns 0 or a negative errno with err.
 */
NB_MUST_CHECK int bisect_trees_make(struct bisect_trees *t, char *err, size_t errlen);

/* Removes the directory and everything in it; nothing when there is none. */
void bisect_trees_remove(struct bisect_trees *t);

/*
 * Runs `/bin/sh -c build` in dir with NETAB_BISECT_COMMIT=hash in its
 * environment (an extracted tree has no .git to ask), at most timeout_s
 * seconds, stopped when *stop is set. Returns 0 when it succeeded (or build
 * is NULL), 1 when it failed (why: its status and last lines, one line),
 * -EINTR when stopped, or another negative errno with err.
 */
NB_MUST_CHECK int bisect_tree_build(const char *build, double timeout_s, const char *dir,
                                    const char *hash, const volatile sig_atomic_t *stop, char *why,
                                    size_t whylen, char *err, size_t errlen);

#endif
