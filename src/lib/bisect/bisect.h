/*
 * netab bisect (docs/bisect.md): git bisect with a statistical decision per
 * commit. A bisection is a series of experiments in a results store:
 *
 *   "bisect"                      the session: its options as JSON (resume)
 *   "bisect <sid> refs"           GOOD against BAD, interleaved
 *   "bisect <sid> step <k> <hash>" the commit of step k against fresh runs of
 *                                 GOOD; a step whose build failed has no runs
 *                                 and is recorded as failed with the build's
 *                                 last lines
 *
 * Each comparison is a `netab compare` campaign (compare/result.h): the same
 * planner, schedule, warm-ups, noise floor and sequential looks. Decisions
 * are not stored: they are recomputed from the stored runs (resume, the step
 * table), so the store holds the evidence and nothing else.
 *
 * GOOD's and BAD's trees are extracted (git archive) into a temporary
 * directory and built there, so that GOOD can be measured at every step
 * while the work tree holds the commit under test.
 */
#ifndef NETAB_BISECT_BISECT_H
#define NETAB_BISECT_BISECT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bisect/git.h"
#include "bisect/judge.h"
#include "util/err.h"

struct bisect_config {
    const char *good, *bad; /* revisions as given */
    const char *build;      /* shell command building the tree in its cwd, or NULL */
    const char *setup;      /* shell command before each run, in the tree measured, or NULL */
    unsigned runs, max_runs, warmup;
    double noise, confidence; /* fractions */
    uint64_t seed;
    const char *metric; /* NULL: throughput */
    bool lower_is_better, direction_given;
    double timeout;       /* per run; 0: compare's formula */
    double build_timeout; /* seconds --build may take */
    char **common;        /* `netab run` options (borrowed) */
    size_t ncommon;
    const char *db;   /* the results store (required) */
    const char *self; /* the netab executable */
    /*
     * --experiment: the file whose dut: is booted into each side
     * (bisect/dutfile.h), by name; experiment_text, when set, is its text
     * (resume: as recorded), else the file is read.
     */
    const char *experiment, *experiment_text;
};

struct bisect_step {
    char hash[BISECT_HASH_LEN + 1];
    char subject[160];
    int64_t experiment;    /* its experiment in the store; 0 if none */
    size_t n_good, n_test; /* measured ok runs of GOOD and of the commit */
    double rel, lo, hi;    /* change against GOOD and its interval (fractions) */
    double confidence;     /* the level of the interval */
    enum bisect_decision decision;
    char metric[64];   /* the deciding metric (judge/judge.h: the test kind's, or --metric) */
    char verdict[32];  /* compare's verdict on it (stats_verdict_name()); "" when not compared */
    bool lost_on_good; /* BISECT_LOST: the DUT was lost at a run of GOOD, not the commit's */
    char reason[600];  /* why skipped or lost (build failure, runs failed, undecided, DUT) */
};

struct bisect_result {
    char top[PATH_MAX];
    char good[BISECT_HASH_LEN + 1], bad[BISECT_HASH_LEN + 1];
    int64_t session;
    struct bisect_step refs; /* BAD against GOOD */
    struct bisect_step *steps;
    size_t nsteps;
    bool found; /* first_bad is the first bad commit */
    char first_bad[BISECT_HASH_LEN + 1];
    char first_bad_subject[160];
    bool only_skipped; /* ended with skipped commits only: candidates */
    /*
     * The DUT never came back: the last step (or the references, when there
     * is no step) has decision BISECT_LOST; the session stays unfinished so
     * that resume continues once the DUT is back (a commit that lost it is
     * then skipped).
     */
    bool dut_lost;
    char candidates[1024]; /* one hash per line */
    bool interrupted;
};

/*
 * cfg zeroed, with the defaults of netab bisect: 5 runs per side, looks up to
 * 20, a noise floor of 1 %, 95 % confidence, self /proc/self/exe.
 */
void bisect_config_init(struct bisect_config *cfg);

/*
 * Completes cfg after the options: max_runs follows runs up unless it was
 * given (max_given); a given max_runs below runs is refused (-EINVAL, err
 * "--max-runs M is below --runs N"). Returns 0 or -EINVAL.
 */
NB_MUST_CHECK int bisect_config_check(struct bisect_config *cfg, bool max_given, char *err,
                                      size_t errlen);

/* Progress and messages for the user (stderr); arg is passed back. */
struct bisect_progress {
    void (*say)(const char *msg, void *arg);
    void *arg;
};

/*
 * Checks the work tree containing cwd (a git work tree, clean, no bisection
 * in progress, GOOD an ancestor of BAD, both commits), records the session,
 * measures GOOD against BAD and refuses (-EDOM, err "GOOD and BAD do not
 * differ: ...") unless they differ beyond the noise floor, then bisects to
 * the end. The repository is left as found (git bisect reset), also after
 * an error or bisect_cancel(). Returns 0 with res filled (res->found, or
 * res->only_skipped, or res->interrupted) or a negative errno with a
 * sentence in err. Free res with bisect_result_free().
 */
NB_MUST_CHECK int bisect_run(const struct bisect_config *cfg, const struct bisect_progress *p,
                             struct bisect_result *res, char *err, size_t errlen);

/*
 * Continues the newest unfinished session in db (session 0) or session id:
 * the repository's bisection (if a crash left one) is reset, the completed
 * steps are replayed from the store with their recomputed decisions, and the
 * bisection goes on as bisect_run(). Returns like bisect_run().
 */
NB_MUST_CHECK int bisect_resume(const char *db, int64_t session, const char *self,
                                const struct bisect_progress *p, struct bisect_result *res,
                                char *err, size_t errlen);

/*
 * One step for `git bisect run`: the commit checked out in the work tree
 * containing cwd against GOOD, with the references (GOOD against BAD)
 * measured once per store and reused. cfg->good and cfg->bad may be NULL:
 * then the first good and bad marks of the bisection in progress. *step
 * receives the decision (BISECT_SKIP when undecided or the build failed).
 * Returns 0 or a negative errno with a sentence in err (-EDOM: GOOD and BAD
 * do not differ).
 */
NB_MUST_CHECK int bisect_step_once(const struct bisect_config *cfg, const struct bisect_progress *p,
                                   struct bisect_step *step, char *err, size_t errlen);

/* Stops a running bisection from a signal handler (async-signal-safe). */
void bisect_cancel(int sig);

void bisect_result_free(struct bisect_result *res);

#endif
