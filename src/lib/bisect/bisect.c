/*
 * netab bisect's loop (bisect/bisect.h): the references, then one
 * statistical decision per commit git bisect checks out, every step in the
 * results store, the repository left as found.
 */
#include "bisect/bisect.h"
#include "bisect/bisect_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect/dutfile.h"
#include "bisect/measure.h"
#include "bisect/session.h"
#include "bisect/tree.h"
#include "campaign/campaign.h"
#include "util/textfile.h"

volatile sig_atomic_t bisect_cancelled;

void bisect_cancel(int sig)
{
    bisect_cancelled = sig;
    campaign_cancel(sig);
}

static void say(const struct bisect_ctx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct bisect_ctx *x, const char *fmt, ...)
{
    if (!x->p || !x->p->say)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    x->p->say(msg, x->p->arg);
}

/* The DUT of --experiment for a pair, or NULL. */
static const struct bisect_dutfile *dut_of(const struct bisect_ctx *x)
{
    return x->dut.e ? &x->dut : NULL;
}

/*
 * x->rec and x->eff from cfg, and x->cfg = &x->eff. With --experiment, the
 * file (or the text the session recorded) is read and checked, and its run
 * options come before cfg's words after --. Returns 0 or a negative errno
 * with err.
 */
int bisect_ctx_options(struct bisect_ctx *x, const struct bisect_config *cfg, char *err,
                       size_t errlen)
{
    x->rec = x->eff = *cfg;
    x->cfg = &x->eff;
    if (!cfg->experiment)
        return 0;
    const char *text = cfg->experiment_text;
    size_t len = text ? strlen(text) : 0;
    if (!text) {
        FILE *f = fopen(cfg->experiment, "rb");
        if (!f)
            return err_set(err, errlen, errno, "--experiment %s: %s", cfg->experiment,
                           strerror(errno));
        int rc = textfile_read(f, TEXTFILE_MAX, &x->text, &len);
        fclose(f);
        if (rc)
            return err_set(err, errlen, -rc, "--experiment %s: cannot read it: %s", cfg->experiment,
                           strerror(-rc));
        text = x->text;
    }
    x->rec.experiment_text = x->eff.experiment_text = text;
    int rc = bisect_dutfile_load(cfg->experiment, text, len, &x->dut, err, errlen);
    size_t n = x->dut.nwords + cfg->ncommon;
    if (!rc && !(x->common = calloc(n + 1, sizeof(*x->common))))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        x->common[i] = i < x->dut.nwords ? x->dut.words[i] : cfg->common[i - x->dut.nwords];
    if (!rc) {
        x->eff.common = x->common;
        x->eff.ncommon = n;
    }
    return rc;
}

/*
 * A measurement the DUT's loss stopped (decision BISECT_LOST): its
 * experiment is marked failed, which tells resume what happened, and the
 * bisection ends with res->dut_lost. Returns 0 or a negative errno.
 */
static int lost_here(struct bisect_ctx *x, const struct bisect_step *s, const char *what, char *err,
                     size_t errlen)
{
    x->res->dut_lost = true;
    say(x, "%s: %s", what, s->reason);
    return s->experiment ? store_experiment_set_status(x->db, s->experiment, "failed", err, errlen)
                         : 0;
}

/* The build of the tree in dir at commit hash: bisect_tree_build() with the options. */
static int build_in(const struct bisect_ctx *x, const char *dir, const char *hash, char *why,
                    size_t whylen, char *err, size_t errlen)
{
    double t = x->cfg->build_timeout > 0 ? x->cfg->build_timeout : 3600;
    return bisect_tree_build(x->cfg->build, t, dir, hash, &bisect_cancelled, why, whylen, err,
                             errlen);
}

/* Extracts commit hash into dir and builds it there; a failed build is an error here. */
int bisect_ctx_prepare_tree(struct bisect_ctx *x, const char *what, const char *hash,
                            const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0700) && errno != EEXIST)
        return err_set(err, errlen, errno, "cannot create %s: %s", dir, strerror(errno));
    int rc = bisect_git_export(x->res->top, hash, dir, err, errlen);
    if (rc)
        return rc;
    char why[800];
    say(x, "%s %.12s: extracted into %s%s", what, hash, dir, x->cfg->build ? ", building" : "");
    rc = build_in(x, dir, hash, why, sizeof(why), err, errlen);
    return rc == 1 ? err_set(err, errlen, EIO, "%s %.12s: %s", what, hash, why) : rc;
}

/* Adds a step to res; -ENOMEM. */
static int add_step(struct bisect_result *res, const struct bisect_step *s)
{
    struct bisect_step *v = realloc(res->steps, (res->nsteps + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    res->steps = v;
    res->steps[res->nsteps++] = *s;
    return 0;
}

static void change_text(const struct bisect_step *s, char *buf, size_t len)
{
    if (isnan(s->rel))
        snprintf(buf, len, "no interval");
    else
        snprintf(buf, len, "%+.1f%% [%+.1f, %+.1f]", s->rel * 100, s->lo * 100, s->hi * 100);
}

/*
 * The references: BAD against GOOD, measured (or recomputed from experiment
 * stored, when not 0). -EDOM when they do not differ beyond the noise
 * floor, -ENODATA when their runs failed.
 */
int bisect_ctx_references(struct bisect_ctx *x, int64_t stored, char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    char name[64];
    snprintf(name, sizeof(name), "bisect %" PRId64 " refs", res->session);
    struct bisect_pair pair = {.name_a = "good",
                               .dir_a = x->trees.good,
                               .name_b = "bad",
                               .dir_b = x->trees.bad,
                               .hash_a = res->good,
                               .hash_b = res->bad,
                               .dut = dut_of(x),
                               .experiment = name,
                               .seed = x->cfg->seed};
    struct bisect_step *s = &res->refs;
    memset(s, 0, sizeof(*s));
    memcpy(s->hash, res->bad, sizeof(s->hash));
    bool intr = false;
    int rc;
    if (stored) {
        rc = bisect_measure_stored(x->cfg, &pair, x->db, stored, s, err, errlen);
    } else {
        say(x, "references: GOOD %.12s against BAD %.12s, interleaved", res->good, res->bad);
        rc = bisect_measure(x->cfg, &pair, x->p, s, &intr, err, errlen);
        if (!rc)
            rc = bisect_experiment_by_name(x->db, name, &s->experiment, err, errlen);
    }
    if (rc)
        return rc;
    if (intr) {
        res->interrupted = true;
        return 0;
    }
    if (s->decision == BISECT_LOST)
        return lost_here(x, s, "references", err, errlen);
    char ch[96];
    change_text(s, ch, sizeof(ch));
    if (s->n_good < 2 || s->n_test < 2)
        return err_set(err, errlen, ENODATA, "the references could not be measured: %s", s->reason);
    if (s->decision != BISECT_BAD && isnan(s->rel))
        return err_set(err, errlen, EDOM,
                       "GOOD and BAD cannot be judged as a relative change: GOOD's mean is not "
                       "proven above zero after %zu runs (its runs vary too much; more "
                       "--max-runs or a steadier set-up)",
                       s->n_good);
    if (s->decision != BISECT_BAD)
        return err_set(err, errlen, EDOM,
                       "GOOD and BAD do not differ: %s %s at %.4g%% after %zu runs each (noise "
                       "floor %g%%)",
                       s->metric, ch, s->confidence * 100, s->n_test, x->cfg->noise * 100);
    say(x, "references: BAD against GOOD %s; midpoint %+.2f%%", ch, s->rel * 50);
    return 0;
}

/*
 * Step k: the commit checked out in the work tree, built, then measured
 * against GOOD (or recomputed from rec when not NULL). Fills *s. The DUT
 * lost while measuring: BISECT_LOST (lost_here()); recomputed, a commit
 * whose run lost it is skipped, while one lost at GOOD's run keeps
 * BISECT_LOST (the step is measured again). Returns 0 or a negative errno
 * (-ENODATA: GOOD's own runs failed, so nothing can be judged).
 */
int bisect_ctx_step(struct bisect_ctx *x, int k, const char *hash, const struct bisect_record *rec,
                    struct bisect_step *s, char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    memset(s, 0, sizeof(*s));
    strcpy(s->hash, hash);
    s->rel = s->lo = s->hi = NAN;
    bisect_git_subject(res->top, hash, s->subject, sizeof(s->subject));
    char name[128], vname[16];
    snprintf(name, sizeof(name), "bisect %" PRId64 " step %d %s", res->session, k, hash);
    snprintf(vname, sizeof(vname), "%.12s", hash);
    struct bisect_pair pair = {.name_a = "good",
                               .dir_a = x->trees.good,
                               .name_b = vname,
                               .dir_b = res->top,
                               .hash_a = res->good,
                               .hash_b = hash,
                               .dut = dut_of(x),
                               .lost = rec && rec->lost,
                               .experiment = name,
                               .seed = x->cfg->seed + (uint64_t)k,
                               .bad_rel = res->refs.rel};
    if (rec && rec->build_failed) {
        s->experiment = rec->id;
        s->decision = BISECT_SKIP;
        bisect_build_failure_reason(x->db, rec->id, s->reason, sizeof(s->reason));
        return 0;
    }
    if (rec) {
        int rc = bisect_measure_stored(x->cfg, &pair, x->db, rec->id, s, err, errlen);
        if (!rc && s->decision == BISECT_LOST && !s->lost_on_good)
            s->decision = BISECT_SKIP; /* its own boot never came back: it cannot be measured */
        return rc;
    }
    say(x, "step %d: %.12s %s", k, hash, s->subject);
    int rc = build_in(x, res->top, hash, s->reason, sizeof(s->reason), err, errlen);
    if (rc == 1) {
        s->decision = BISECT_SKIP;
        say(x, "step %d: %.12s: %s: skipped", k, hash, s->reason);
        return bisect_record_build_failure(x->db, res->session, k, hash, s->reason, err, errlen);
    }
    bool intr = false;
    if (!rc)
        rc = bisect_measure(x->cfg, &pair, x->p, s, &intr, err, errlen);
    if (!rc)
        rc = bisect_experiment_by_name(x->db, name, &s->experiment, err, errlen);
    if (!rc && intr) {
        res->interrupted = true;
    } else if (!rc && s->decision == BISECT_LOST) {
        char what[48];
        snprintf(what, sizeof(what), "step %d: %.12s", k, hash);
        rc = lost_here(x, s, what, err, errlen);
    } else if (!rc && s->n_good < 2)
        rc = err_set(err, errlen, ENODATA, "GOOD's runs failed at step %d: %s", k, s->reason);
    return rc;
}

/* Marks the step's commit in git and notes whether the bisection is over. */
static int mark(struct bisect_ctx *x, const struct bisect_step *s, bool *over, char *err,
                size_t errlen)
{
    struct bisect_git_state st;
    int rc =
        bisect_git_mark(x->res->top, bisect_decision_name(s->decision), s->hash, &st, err, errlen);
    *over = !rc && (st.done || st.only_skipped);
    if (!rc && st.done) {
        x->res->found = true;
        memcpy(x->res->first_bad, st.first_bad, sizeof(st.first_bad));
        bisect_git_subject(x->res->top, st.first_bad, x->res->first_bad_subject,
                           sizeof(x->res->first_bad_subject));
    } else if (!rc && st.only_skipped) {
        x->res->only_skipped = true;
        snprintf(x->res->candidates, sizeof(x->res->candidates), "%s", st.candidates);
    }
    return rc;
}

/* HEAD's full hash. */
int bisect_ctx_head(const struct bisect_ctx *x, char hash[BISECT_HASH_LEN + 1], char *err,
                    size_t errlen)
{
    return bisect_git_commit(x->res->top, "HEAD", hash, err, errlen);
}

/*
 * git bisect start, then the stored steps replayed (recs, may be empty),
 * then a measured step per commit until git names the first bad commit or
 * only skipped ones are left.
 */
static int bisect_loop(struct bisect_ctx *x, const struct bisect_record *recs, size_t nrecs,
                       char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    struct bisect_git_state st;
    int rc = bisect_git_start(res->top, res->bad, res->good, &st, err, errlen);
    if (rc)
        return rc;
    x->bisecting = true;
    bool over = st.done || st.only_skipped;
    if (st.done) {
        res->found = true;
        memcpy(res->first_bad, st.first_bad, sizeof(st.first_bad));
        bisect_git_subject(res->top, st.first_bad, res->first_bad_subject,
                           sizeof(res->first_bad_subject));
    }
    int k = 0;
    for (size_t i = 0; !rc && !over && i < nrecs; i++) {
        if (recs[i].refs || (!recs[i].done && !recs[i].build_failed && !recs[i].lost) ||
            recs[i].k != k + 1)
            continue;
        struct bisect_step s;
        rc = bisect_ctx_step(x, k + 1, recs[i].hash, &recs[i], &s, err, errlen);
        if (!rc && s.decision == BISECT_LOST)
            continue; /* lost at a run of GOOD: measured again */
        k++;
        if (!rc)
            rc = add_step(res, &s) ? err_set(err, errlen, ENOMEM, "out of memory") : 0;
        if (!rc) {
            say(x, "step %d: %.12s: %s (from the store)", k, s.hash,
                bisect_decision_name(s.decision));
            rc = mark(x, &s, &over, err, errlen);
        }
    }
    while (!rc && !over && !bisect_cancelled) {
        char hash[BISECT_HASH_LEN + 1];
        struct bisect_step s;
        if ((rc = bisect_ctx_head(x, hash, err, errlen)) ||
            (rc = bisect_ctx_step(x, ++k, hash, NULL, &s, err, errlen)))
            break;
        if (res->interrupted)
            break;
        if (add_step(res, &s))
            return err_set(err, errlen, ENOMEM, "out of memory");
        if (s.decision == BISECT_LOST)
            break; /* lost_here() said why */
        char ch[96];
        change_text(&s, ch, sizeof(ch));
        say(x, "step %d: %.12s: %s vs GOOD after %zu runs: %s%s%s", k, hash, ch, s.n_test,
            bisect_decision_name(s.decision), *s.reason ? ": " : "", s.reason);
        rc = mark(x, &s, &over, err, errlen);
    }
    if (!rc && bisect_cancelled)
        res->interrupted = true;
    return rc;
}

/*
 * The end of every bisection: git bisect reset when it was started (the
 * repository as found), the references' trees removed, the session marked
 * done when it ended (an interrupted one, or one whose DUT was lost, stays
 * "running" for resume; one that cannot go on is "failed"), the options
 * released. Returns rc, or the reset's error.
 */
int bisect_ctx_finish(struct bisect_ctx *x, int rc, char *err, size_t errlen)
{
    char e2[NB_ERRLEN];
    if (x->bisecting) {
        int r2 = bisect_git_reset(x->res->top, e2, sizeof(e2));
        if (r2 && !rc)
            rc = err_set(err, errlen, -r2, "%s", e2);
        x->bisecting = false;
    }
    bisect_trees_remove(&x->trees);
    bisect_dutfile_free(&x->dut);
    free(x->common);
    x->common = NULL;
    free(x->text);
    x->text = NULL;
    if (x->db && x->res->session) {
        const char *status = NULL;
        if (!rc && (x->res->found || x->res->only_skipped))
            status = "done";
        else if (rc == -EDOM || rc == -ENODATA)
            status = "failed";
        if (status && store_experiment_set_status(x->db, x->res->session, status, e2, sizeof(e2)))
            say(x, "%s", e2);
    }
    store_close(x->db);
    x->db = NULL;
    return rc;
}

/* The work tree of cwd, and the checks every bisection needs before it starts. */
int bisect_ctx_tree(struct bisect_result *res, char *err, size_t errlen)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return err_set(err, errlen, errno, "cannot get the current directory: %s", strerror(errno));
    return bisect_git_toplevel(cwd, res->top, err, errlen);
}

/* GOOD and BAD as commits, GOOD an ancestor of BAD. */
int bisect_ctx_resolve(struct bisect_result *res, const char *good, const char *bad, char *err,
                       size_t errlen)
{
    int rc = bisect_git_commit(res->top, good, res->good, err, errlen);
    if (!rc)
        rc = bisect_git_commit(res->top, bad, res->bad, err, errlen);
    if (!rc && !strcmp(res->good, res->bad))
        rc = err_set(err, errlen, EINVAL, "GOOD and BAD are the same commit %.12s", res->good);
    if (!rc)
        rc = bisect_git_ancestor(res->top, res->good, res->bad, err, errlen);
    return rc;
}

int bisect_run(const struct bisect_config *cfg, const struct bisect_progress *p,
               struct bisect_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof(*res));
    bisect_cancelled = 0;
    struct bisect_ctx x = {.cfg = cfg, .p = p, .res = res};
    int rc = bisect_ctx_options(&x, cfg, err, errlen);
    if (!rc)
        rc = bisect_measure_check(x.cfg, err, errlen);
    if (!rc)
        rc = bisect_ctx_tree(res, err, errlen);
    if (!rc)
        rc = bisect_git_clean(res->top, err, errlen);
    if (!rc && bisect_git_bisecting(res->top))
        rc = err_set(err, errlen, EBUSY,
                     "a git bisect is already in progress in %s (git bisect reset, or netab "
                     "bisect resume)",
                     res->top);
    if (!rc)
        rc = bisect_ctx_resolve(res, cfg->good, cfg->bad, err, errlen);
    if (!rc)
        rc = store_open(cfg->db, STORE_OPEN_CREATE, &x.db, err, errlen);
    if (!rc)
        rc = bisect_session_create(x.db, &x.rec, "run", res->top, res->good, res->bad,
                                   &res->session, err, errlen);
    if (!rc)
        say(&x, "session %" PRId64 " in %s", res->session, cfg->db);
    if (!rc)
        rc = bisect_trees_make(&x.trees, err, errlen);
    if (!rc)
        rc = bisect_ctx_prepare_tree(&x, "GOOD", res->good, x.trees.good, err, errlen);
    if (!rc)
        rc = bisect_ctx_prepare_tree(&x, "BAD", res->bad, x.trees.bad, err, errlen);
    if (!rc)
        rc = bisect_ctx_references(&x, 0, err, errlen);
    if (!rc && !res->interrupted && !res->dut_lost)
        rc = bisect_loop(&x, NULL, 0, err, errlen);
    return bisect_ctx_finish(&x, rc, err, errlen);
}

/* Resume's preparation: the repository back to where it was, the references again. */
static int resume_refs(struct bisect_ctx *x, const struct bisect_record *recs, size_t n, char *err,
                       size_t errlen)
{
    struct bisect_result *res = x->res;
    int rc = 0;
    if (bisect_git_bisecting(res->top)) {
        say(x, "resetting the bisection the crash left in %s", res->top);
        rc = bisect_git_reset(res->top, err, errlen);
    }
    if (!rc)
        rc = bisect_git_clean(res->top, err, errlen);
    int64_t stored = 0;
    for (size_t i = 0; i < n; i++)
        if (recs[i].refs && recs[i].done)
            stored = recs[i].id;
    if (!rc)
        rc = bisect_trees_make(&x->trees, err, errlen);
    if (!rc)
        rc = bisect_ctx_prepare_tree(x, "GOOD", res->good, x->trees.good, err, errlen);
    if (!rc && !stored)
        rc = bisect_ctx_prepare_tree(x, "BAD", res->bad, x->trees.bad, err, errlen);
    if (!rc)
        rc = bisect_ctx_references(x, stored, err, errlen);
    return rc;
}

int bisect_resume(const char *db, int64_t session, const char *self,
                  const struct bisect_progress *p, struct bisect_result *res, char *err,
                  size_t errlen)
{
    memset(res, 0, sizeof(*res));
    bisect_cancelled = 0;
    struct bisect_config cfg = {.db = db, .self = self};
    struct bisect_ctx x = {.cfg = &cfg, .p = p, .res = res};
    json_t *keep = NULL;
    struct bisect_record *recs = NULL;
    size_t n = 0;
    char mode[16] = "";
    int rc = store_open(db, 0, &x.db, err, errlen);
    if (!rc && !session)
        rc = bisect_session_latest(x.db, &session, err, errlen);
    if (!rc)
        rc = bisect_session_load(x.db, session, &cfg, &keep, res->top, res->good, res->bad, mode,
                                 sizeof(mode), err, errlen);
    if (!rc && strcmp(mode, "run"))
        rc = err_set(err, errlen, EINVAL,
                     "session %" PRId64 " belongs to git bisect run (netab bisect step)", session);
    if (!rc) {
        res->session = session;
        cfg.seed = 0;
        struct store_experiment xe;
        if (!store_experiment_get(x.db, session, &xe, NULL, NULL, err, errlen)) {
            cfg.seed = xe.seed;
            store_experiment_free(&xe);
        }
        char top[PATH_MAX];
        rc = bisect_git_toplevel(res->top, top, err, errlen);
    }
    if (!rc)
        rc = bisect_ctx_options(&x, &cfg, err, errlen);
    if (!rc)
        rc = bisect_session_records(x.db, session, &recs, &n, err, errlen);
    if (!rc)
        say(&x, "resuming session %" PRId64 " in %s", session, res->top);
    if (!rc)
        rc = resume_refs(&x, recs, n, err, errlen);
    if (!rc && !res->interrupted && !res->dut_lost)
        rc = bisect_loop(&x, recs, n, err, errlen);
    rc = bisect_ctx_finish(&x, rc, err, errlen);
    free(recs);
    free(cfg.common);
    json_decref(keep);
    return rc;
}

void bisect_result_free(struct bisect_result *res)
{
    free(res->steps);
    res->steps = NULL;
    res->nsteps = 0;
}
