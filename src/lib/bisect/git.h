/*
 * The git commands netab bisect drives, each a child process with a
 * deadline (util/proc.h), run in the work tree `top`. Every function
 * returns 0 or a negative errno with a sentence in err.
 */
#ifndef NETAB_BISECT_GIT_H
#define NETAB_BISECT_GIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define BISECT_HASH_LEN 40

/* What a `git bisect good|bad|skip` said about the bisection. */
struct bisect_git_state {
    bool done;                           /* git named the first bad commit */
    char first_bad[BISECT_HASH_LEN + 1]; /* when done */
    bool only_skipped;                   /* only skipped commits are left */
    char candidates[1024];               /* then: the commits it could be, one per line */
};

/*
 * Runs `git ARGS` (each word quoted, never expanded) in dir; *out (may be
 * NULL) receives its stdout (caller frees), *status its exit status (-1 when
 * it did not exit normally). 0 when git ran, whatever its status.
 */
NB_MUST_CHECK int bisect_git(const char *dir, const char *const *args, char **out, int *status,
                             char *err, size_t errlen);

/* The top of the work tree containing dir; -ENOTDIR "not a git work tree". */
NB_MUST_CHECK int bisect_git_toplevel(const char *dir, char top[PATH_MAX], char *err,
                                      size_t errlen);

/* 0 when no tracked file is modified or staged, -EBUSY naming the first files. */
NB_MUST_CHECK int bisect_git_clean(const char *top, char *err, size_t errlen);

/* The full hash of rev's commit; -EINVAL "REV is not a commit". */
NB_MUST_CHECK int bisect_git_commit(const char *top, const char *rev,
                                    char hash[BISECT_HASH_LEN + 1], char *err, size_t errlen);

/* The first line of commit hash's message into buf (empty on failure). */
void bisect_git_subject(const char *top, const char *hash, char *buf, size_t len);

/* 0 when a is an ancestor of b, -EINVAL when not. */
NB_MUST_CHECK int bisect_git_ancestor(const char *top, const char *a, const char *b, char *err,
                                      size_t errlen);

/* Whether a `git bisect` is in progress in top. */
bool bisect_git_bisecting(const char *top);

/*
 * The first good and bad marks of the bisection in progress (`git bisect
 * log`): the references a `git bisect run` was started with. -ENOENT when
 * none is in progress or a mark is missing.
 */
NB_MUST_CHECK int bisect_git_log_refs(const char *top, char good[BISECT_HASH_LEN + 1],
                                      char bad[BISECT_HASH_LEN + 1], char *err, size_t errlen);

/* `git bisect start BAD GOOD` (checks out the first commit to test). */
NB_MUST_CHECK int bisect_git_start(const char *top, const char *bad, const char *good,
                                   struct bisect_git_state *st, char *err, size_t errlen);

/* `git bisect MARK HASH`, MARK one of good, bad, skip; st tells whether it is done. */
NB_MUST_CHECK int bisect_git_mark(const char *top, const char *mark, const char *hash,
                                  struct bisect_git_state *st, char *err, size_t errlen);

/* `git bisect reset`: the branch or commit checked out before the bisection. */
NB_MUST_CHECK int bisect_git_reset(const char *top, char *err, size_t errlen);

/* The tree of commit hash, without .git, extracted into dir (`git archive | tar -x`). */
NB_MUST_CHECK int bisect_git_export(const char *top, const char *hash, const char *dir, char *err,
                                    size_t errlen);

#endif
