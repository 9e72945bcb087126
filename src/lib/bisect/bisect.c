/*
 * netab bisect's loop (bisect/bisect.h): the references, then one
 * statistical decision per commit git bisect checks out, every step in the
 * results store, the repository left as found.
 */
#include "bisect/bisect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect/measure.h"
#include "bisect/session.h"
#include "campaign/campaign.h"
#include "util/proc.h"
#include "util/words.h"

static volatile sig_atomic_t cancelled;

void bisect_cancel(int sig)
{
    cancelled = sig;
    campaign_cancel(sig);
}

/* Everything one bisection holds while it runs. */
struct bisect_ctx {
    const struct bisect_config *cfg;
    const struct bisect_progress *p;
    struct bisect_result *res;
    struct store *db;
    char tmp[PATH_MAX]; /* holds good/ and bad/: the references' trees */
    char good_dir[PATH_MAX + 8], bad_dir[PATH_MAX + 8];
    bool bisecting; /* git bisect started: reset at the end */
};

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

/* The last n lines of text into buf, joined by "; " for one message. */
static void last_lines(const char *text, int n, char *buf, size_t len)
{
    size_t l = strlen(text);
    while (l && text[l - 1] == '\n')
        l--;
    size_t start = l;
    for (int seen = 0; start > 0; start--)
        if (text[start - 1] == '\n' && ++seen == n)
            break;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = start; i < l && used + 3 < len; i++) {
        if (text[i] == '\n') {
            used += (size_t)snprintf(buf + used, len - used, " | ");
            continue;
        }
        buf[used++] = text[i];
        buf[used] = '\0';
    }
}

/*
 * Runs --build in dir. 0 when it succeeded (or there is none), 1 when it
 * failed (why: its status and last lines), or a negative errno.
 */
static int build_in(const struct bisect_ctx *x, const char *dir, char *why, size_t whylen,
                    char *err, size_t errlen)
{
    if (!x->cfg->build)
        return 0;
    char cmd[PATH_MAX * 2 + 4096];
    size_t used = (size_t)snprintf(cmd, sizeof(cmd), "cd ");
    used += words_shell_quote(dir, cmd + used, sizeof(cmd) - used);
    if (snprintf(cmd + used, sizeof(cmd) - used, " && { %s\n} 2>&1", x->cfg->build) >=
        (int)(sizeof(cmd) - used))
        return err_set(err, errlen, E2BIG, "--build: the command is too long");
    struct proc_result r;
    double t = x->cfg->build_timeout > 0 ? x->cfg->build_timeout : 3600;
    int rc = proc_run_shell(cmd, t, &cancelled, &r, err, errlen);
    if (!rc && !r.interrupted) {
        char desc[NB_ERRLEN], tail[600];
        proc_describe_failure(&r, t, desc, sizeof(desc));
        if (*desc) {
            last_lines(r.out ? r.out : "", 5, tail, sizeof(tail));
            snprintf(why, whylen, "build failed (%s): %s", desc, tail);
            rc = 1;
        }
    }
    if (!rc && r.interrupted)
        rc = err_set(err, errlen, EINTR, "interrupted during the build");
    proc_result_free(&r);
    return rc;
}

/* A fresh directory for the references' trees. */
static int make_tmp(struct bisect_ctx *x, char *err, size_t errlen)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";
    if (snprintf(x->tmp, sizeof(x->tmp), "%s/netab-bisect-XXXXXX", t) >= (int)sizeof(x->tmp) - 8)
        return err_set(err, errlen, ENAMETOOLONG, "TMPDIR is too long");
    if (!mkdtemp(x->tmp)) {
        int e = errno;
        x->tmp[0] = '\0';
        return err_set(err, errlen, e, "cannot create a directory in %s: %s", t, strerror(e));
    }
    snprintf(x->good_dir, sizeof(x->good_dir), "%s/good", x->tmp);
    snprintf(x->bad_dir, sizeof(x->bad_dir), "%s/bad", x->tmp);
    return 0;
}

static void remove_tmp(struct bisect_ctx *x)
{
    if (!*x->tmp)
        return;
    char cmd[PATH_MAX + 16] = "rm -rf ";
    words_shell_quote(x->tmp, cmd + 7, sizeof(cmd) - 7);
    struct proc_result r;
    char err[NB_ERRLEN];
    if (!proc_run_shell(cmd, 600, NULL, &r, err, sizeof(err)))
        proc_result_free(&r);
    x->tmp[0] = '\0';
}

/* Extracts commit hash into dir and builds it there; a failed build is an error here. */
static int prepare_tree(struct bisect_ctx *x, const char *what, const char *hash, const char *dir,
                        char *err, size_t errlen)
{
    if (mkdir(dir, 0700) && errno != EEXIST)
        return err_set(err, errlen, errno, "cannot create %s: %s", dir, strerror(errno));
    int rc = bisect_git_export(x->res->top, hash, dir, err, errlen);
    if (rc)
        return rc;
    char why[800];
    say(x, "%s %.12s: extracted into %s%s", what, hash, dir, x->cfg->build ? ", building" : "");
    rc = build_in(x, dir, why, sizeof(why), err, errlen);
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
static int references(struct bisect_ctx *x, int64_t stored, char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    char name[64];
    snprintf(name, sizeof(name), "bisect %" PRId64 " refs", res->session);
    struct bisect_pair pair = {.name_a = "good",
                               .dir_a = x->good_dir,
                               .name_b = "bad",
                               .dir_b = x->bad_dir,
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
    char ch[96];
    change_text(s, ch, sizeof(ch));
    if (s->n_good < 2 || s->n_test < 2)
        return err_set(err, errlen, ENODATA, "the references could not be measured: %s", s->reason);
    if (s->decision != BISECT_BAD)
        return err_set(err, errlen, EDOM,
                       "GOOD and BAD do not differ: %s at %.4g%% after %zu runs each (noise floor "
                       "%g%%)",
                       ch, s->confidence * 100, s->n_test, x->cfg->noise * 100);
    say(x, "references: BAD against GOOD %s; midpoint %+.2f%%", ch, s->rel * 50);
    return 0;
}

/*
 * Step k: the commit checked out in the work tree, built, then measured
 * against GOOD (or recomputed from rec when not NULL). Fills *s. Returns 0
 * or a negative errno (-ENODATA: GOOD's own runs failed, so nothing can be
 * judged).
 */
static int step(struct bisect_ctx *x, int k, const char *hash, const struct bisect_record *rec,
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
                               .dir_a = x->good_dir,
                               .name_b = vname,
                               .dir_b = res->top,
                               .experiment = name,
                               .seed = x->cfg->seed + (uint64_t)k,
                               .bad_rel = res->refs.rel};
    if (rec && rec->build_failed) {
        s->experiment = rec->id;
        s->decision = BISECT_SKIP;
        bisect_build_failure_reason(x->db, rec->id, s->reason, sizeof(s->reason));
        return 0;
    }
    if (rec)
        return bisect_measure_stored(x->cfg, &pair, x->db, rec->id, s, err, errlen);
    say(x, "step %d: %.12s %s", k, hash, s->subject);
    int rc = build_in(x, res->top, s->reason, sizeof(s->reason), err, errlen);
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
    if (!rc && intr)
        res->interrupted = true;
    else if (!rc && s->n_good < 2)
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
static int head(const struct bisect_ctx *x, char hash[BISECT_HASH_LEN + 1], char *err,
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
        if (recs[i].refs || (!recs[i].done && !recs[i].build_failed) || recs[i].k != k + 1)
            continue;
        struct bisect_step s;
        k++;
        rc = step(x, k, recs[i].hash, &recs[i], &s, err, errlen);
        if (!rc)
            rc = add_step(res, &s) ? err_set(err, errlen, ENOMEM, "out of memory") : 0;
        if (!rc) {
            say(x, "step %d: %.12s: %s (from the store)", k, s.hash,
                bisect_decision_name(s.decision));
            rc = mark(x, &s, &over, err, errlen);
        }
    }
    while (!rc && !over && !cancelled) {
        char hash[BISECT_HASH_LEN + 1];
        struct bisect_step s;
        if ((rc = head(x, hash, err, errlen)) || (rc = step(x, ++k, hash, NULL, &s, err, errlen)))
            break;
        if (res->interrupted)
            break;
        if (add_step(res, &s))
            return err_set(err, errlen, ENOMEM, "out of memory");
        char ch[96];
        change_text(&s, ch, sizeof(ch));
        say(x, "step %d: %.12s: %s vs GOOD after %zu runs: %s%s%s", k, hash, ch, s.n_test,
            bisect_decision_name(s.decision), *s.reason ? ": " : "", s.reason);
        rc = mark(x, &s, &over, err, errlen);
    }
    if (!rc && cancelled)
        res->interrupted = true;
    return rc;
}

/*
 * The end of every bisection: git bisect reset when it was started (the
 * repository as found), the references' trees removed, the session marked
 * done when it ended (an interrupted one stays "running" for resume, one
 * that cannot go on is "failed"). Returns rc, or the reset's error.
 */
static int finish(struct bisect_ctx *x, int rc, char *err, size_t errlen)
{
    char e2[NB_ERRLEN];
    if (x->bisecting) {
        int r2 = bisect_git_reset(x->res->top, e2, sizeof(e2));
        if (r2 && !rc)
            rc = err_set(err, errlen, -r2, "%s", e2);
        x->bisecting = false;
    }
    remove_tmp(x);
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
static int check_tree(struct bisect_result *res, char *err, size_t errlen)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return err_set(err, errlen, errno, "cannot get the current directory: %s", strerror(errno));
    return bisect_git_toplevel(cwd, res->top, err, errlen);
}

/* GOOD and BAD as commits, GOOD an ancestor of BAD. */
static int resolve_refs(struct bisect_result *res, const char *good, const char *bad, char *err,
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
    cancelled = 0;
    struct bisect_ctx x = {.cfg = cfg, .p = p, .res = res};
    int rc = bisect_measure_check(cfg, err, errlen);
    if (!rc)
        rc = check_tree(res, err, errlen);
    if (!rc)
        rc = bisect_git_clean(res->top, err, errlen);
    if (!rc && bisect_git_bisecting(res->top))
        rc = err_set(err, errlen, EBUSY,
                     "a git bisect is already in progress in %s (git bisect reset, or netab "
                     "bisect resume)",
                     res->top);
    if (!rc)
        rc = resolve_refs(res, cfg->good, cfg->bad, err, errlen);
    if (!rc)
        rc = store_open(cfg->db, STORE_OPEN_CREATE, &x.db, err, errlen);
    if (!rc)
        rc = bisect_session_create(x.db, cfg, "run", res->top, res->good, res->bad, &res->session,
                                   err, errlen);
    if (!rc)
        say(&x, "session %" PRId64 " in %s", res->session, cfg->db);
    if (!rc)
        rc = make_tmp(&x, err, errlen);
    if (!rc)
        rc = prepare_tree(&x, "GOOD", res->good, x.good_dir, err, errlen);
    if (!rc)
        rc = prepare_tree(&x, "BAD", res->bad, x.bad_dir, err, errlen);
    if (!rc)
        rc = references(&x, 0, err, errlen);
    if (!rc && !res->interrupted)
        rc = bisect_loop(&x, NULL, 0, err, errlen);
    return finish(&x, rc, err, errlen);
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
        rc = make_tmp(x, err, errlen);
    if (!rc)
        rc = prepare_tree(x, "GOOD", res->good, x->good_dir, err, errlen);
    if (!rc && !stored)
        rc = prepare_tree(x, "BAD", res->bad, x->bad_dir, err, errlen);
    if (!rc)
        rc = references(x, stored, err, errlen);
    return rc;
}

int bisect_resume(const char *db, int64_t session, const char *self,
                  const struct bisect_progress *p, struct bisect_result *res, char *err,
                  size_t errlen)
{
    memset(res, 0, sizeof(*res));
    cancelled = 0;
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
        rc = bisect_session_records(x.db, session, &recs, &n, err, errlen);
    if (!rc)
        say(&x, "resuming session %" PRId64 " in %s", session, res->top);
    if (!rc)
        rc = resume_refs(&x, recs, n, err, errlen);
    if (!rc && !res->interrupted)
        rc = bisect_loop(&x, recs, n, err, errlen);
    rc = finish(&x, rc, err, errlen);
    free(recs);
    free(cfg.common);
    json_decref(keep);
    return rc;
}

/* The step session for these references, created when there is none yet. */
static int step_session(struct bisect_ctx *x, char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    int rc =
        bisect_session_find_step(x->db, res->top, res->good, res->bad, &res->session, err, errlen);
    if (!rc && !res->session) {
        rc = bisect_session_create(x->db, x->cfg, "step", res->top, res->good, res->bad,
                                   &res->session, err, errlen);
        /* Never "running": bisect resume continues netab's own bisections only. */
        if (!rc)
            rc = store_experiment_set_status(x->db, res->session, "done", err, errlen);
    }
    return rc;
}

int bisect_step_once(const struct bisect_config *cfg, const struct bisect_progress *p,
                     struct bisect_step *out, char *err, size_t errlen)
{
    struct bisect_result res;
    memset(&res, 0, sizeof(res));
    cancelled = 0;
    struct bisect_ctx x = {.cfg = cfg, .p = p, .res = &res};
    struct bisect_record *recs = NULL;
    size_t n = 0;
    char good[BISECT_HASH_LEN + 1], bad[BISECT_HASH_LEN + 1], hash[BISECT_HASH_LEN + 1];
    int rc = bisect_measure_check(cfg, err, errlen);
    if (!rc)
        rc = check_tree(&res, err, errlen);
    if (!rc && (!cfg->good || !cfg->bad))
        rc = bisect_git_log_refs(res.top, good, bad, err, errlen);
    if (!rc)
        rc = resolve_refs(&res, cfg->good ? cfg->good : good, cfg->bad ? cfg->bad : bad, err,
                          errlen);
    if (!rc)
        rc = store_open(cfg->db, STORE_OPEN_CREATE, &x.db, err, errlen);
    if (!rc)
        rc = step_session(&x, err, errlen);
    if (!rc)
        rc = bisect_session_records(x.db, res.session, &recs, &n, err, errlen);
    int64_t stored = 0;
    int k = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (recs[i].refs && recs[i].done)
            stored = recs[i].id;
        if (!recs[i].refs && recs[i].k > k)
            k = recs[i].k;
    }
    if (!rc)
        rc = make_tmp(&x, err, errlen);
    if (!rc)
        rc = prepare_tree(&x, "GOOD", res.good, x.good_dir, err, errlen);
    if (!rc && !stored)
        rc = prepare_tree(&x, "BAD", res.bad, x.bad_dir, err, errlen);
    if (!rc)
        rc = references(&x, stored, err, errlen);
    if (!rc && !res.interrupted)
        rc = head(&x, hash, err, errlen);
    if (!rc && !res.interrupted)
        rc = step(&x, k + 1, hash, NULL, out, err, errlen);
    if (!rc && res.interrupted)
        rc = err_set(err, errlen, EINTR, "interrupted");
    free(recs);
    res.session = 0; /* the step session's status stays as it is */
    rc = finish(&x, rc, err, errlen);
    bisect_result_free(&res);
    return rc;
}

void bisect_result_free(struct bisect_result *res)
{
    free(res->steps);
    res->steps = NULL;
    res->nsteps = 0;
}
