/*
 * The parts of netab bisect's loop (bisect.c) that `netab bisect step`
 * (once.c) shares: the state of one bisection and the functions on it. Not
 * for use outside bisect/.
 */
#ifndef NETAB_BISECT_BISECT_PRIV_H
#define NETAB_BISECT_BISECT_PRIV_H

#include <signal.h>

#include "bisect/bisect.h"
#include "bisect/dutfile.h"
#include "bisect/session.h"
#include "bisect/tree.h"
#include "store/store.h"

/* Set by bisect_cancel(); cleared when a bisection starts. */
extern volatile sig_atomic_t bisect_cancelled;

/* Everything one bisection holds while it runs. */
struct bisect_ctx {
    const struct bisect_config *cfg; /* as measured: the file's run options first (eff) */
    const struct bisect_progress *p;
    struct bisect_result *res;
    struct store *db;
    struct bisect_trees trees; /* the references' trees */
    bool bisecting;            /* git bisect started: reset at the end */
    struct bisect_dutfile dut; /* --experiment; dut.e NULL without */
    struct bisect_config rec;  /* the options as given, with the file's text: the session's */
    struct bisect_config eff;  /* rec with the file's run options before the words after -- */
    char *text;                /* the file's text when read here; owned */
    char **common;             /* eff's run options; owned (the strings are borrowed) */
};

/*
 * x->rec and x->eff from cfg, and x->cfg = &x->eff. With --experiment, the
 * file (or the text the session recorded) is read and checked, and its run
 * options come before cfg's words after --. Returns 0 or a negative errno
 * with err.
 */
NB_MUST_CHECK int bisect_ctx_options(struct bisect_ctx *x, const struct bisect_config *cfg,
                                     char *err, size_t errlen);

/* The work tree of cwd into res->top. */
NB_MUST_CHECK int bisect_ctx_tree(struct bisect_result *res, char *err, size_t errlen);

/* GOOD and BAD as commits into res, GOOD an ancestor of BAD. */
NB_MUST_CHECK int bisect_ctx_resolve(struct bisect_result *res, const char *good, const char *bad,
                                     char *err, size_t errlen);

/* Extracts commit hash into dir and builds it there; a failed build is an error here. */
NB_MUST_CHECK int bisect_ctx_prepare_tree(struct bisect_ctx *x, const char *what, const char *hash,
                                          const char *dir, char *err, size_t errlen);

/*
 * The references: BAD against GOOD, measured (or recomputed from experiment
 * stored, when not 0). -EDOM when they do not differ beyond the noise
 * floor, -ENODATA when their runs failed; 0 with res->dut_lost when the DUT
 * never came back.
 */
NB_MUST_CHECK int bisect_ctx_references(struct bisect_ctx *x, int64_t stored, char *err,
                                        size_t errlen);

/*
 * Step k: the commit checked out in the work tree, built, then measured
 * against GOOD (or recomputed from rec when not NULL). Fills *s. The DUT
 * lost while measuring: BISECT_LOST, its experiment marked failed and
 * res->dut_lost set; recomputed, a commit whose own run lost it is skipped,
 * while one lost at GOOD's run keeps BISECT_LOST (the step is measured
 * again). Returns 0 or a negative errno (-ENODATA: GOOD's own runs failed,
 * so nothing can be judged).
 */
NB_MUST_CHECK int bisect_ctx_step(struct bisect_ctx *x, int k, const char *hash,
                                  const struct bisect_record *rec, struct bisect_step *s, char *err,
                                  size_t errlen);

/* HEAD's full hash. */
NB_MUST_CHECK int bisect_ctx_head(const struct bisect_ctx *x, char hash[BISECT_HASH_LEN + 1],
                                  char *err, size_t errlen);

/*
 * The end of every bisection: git bisect reset when it was started (the
 * repository as found), the references' trees removed, the session marked
 * done when it ended (an interrupted one, or one whose DUT was lost, stays
 * "running" for resume; one that cannot go on is "failed"), the options
 * released, the store closed. Returns rc, or the reset's error.
 */
NB_MUST_CHECK int bisect_ctx_finish(struct bisect_ctx *x, int rc, char *err, size_t errlen);

#endif
