/*
 * `netab bisect step` (bisect/bisect.h, bisect_step_once()): one decision
 * on the commit git bisect run checked out, with the references measured
 * once per store and reused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect_priv.h"
#include "bisect/measure.h"

/*
 * bisect step: a commit whose own run lost the DUT at an earlier call of
 * this session is skipped at once (its boot would lose the DUT again):
 * *skipped is then set and out filled. Returns 0 or a negative errno.
 */
static int lost_before(struct bisect_ctx *x, const struct bisect_record *recs, size_t n,
                       const char *hash, struct bisect_step *out, bool *skipped, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (!recs[i].lost || strcmp(recs[i].hash, hash))
            continue;
        int rc = bisect_ctx_step(x, recs[i].k, hash, &recs[i], out, err, errlen);
        if (rc || out->decision == BISECT_SKIP) {
            *skipped = !rc;
            return rc;
        }
    }
    return 0;
}

/*
 * bisect step's measurement: the references (stored, or measured now), then
 * step k of hash. A DUT lost on the way is an error here: git bisect run
 * must stop, not go on to the next commit with the DUT gone.
 */
static int step_measured(struct bisect_ctx *x, int64_t stored, int k, const char *hash,
                         struct bisect_step *out, char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    int rc = bisect_trees_make(&x->trees, err, errlen);
    if (!rc)
        rc = bisect_ctx_prepare_tree(x, "GOOD", res->good, x->trees.good, err, errlen);
    if (!rc && !stored)
        rc = bisect_ctx_prepare_tree(x, "BAD", res->bad, x->trees.bad, err, errlen);
    if (!rc)
        rc = bisect_ctx_references(x, stored, err, errlen);
    if (!rc && res->dut_lost)
        return err_set(err, errlen, EHOSTDOWN,
                       "the references: %s; bring the DUT back, then run git bisect run again",
                       res->refs.reason);
    if (!rc && !res->interrupted)
        rc = bisect_ctx_step(x, k, hash, NULL, out, err, errlen);
    if (!rc && res->dut_lost)
        return err_set(
            err, errlen, EHOSTDOWN,
            "%.12s: %s; bring the DUT back, then run git bisect run again (%s)", hash, out->reason,
            out->lost_on_good ? "the step is measured again" : "this commit is then skipped");
    if (!rc && res->interrupted)
        rc = err_set(err, errlen, EINTR, "interrupted");
    return rc;
}

/* The step session for these references, created when there is none yet. */
static int step_session(struct bisect_ctx *x, char *err, size_t errlen)
{
    struct bisect_result *res = x->res;
    int rc =
        bisect_session_find_step(x->db, res->top, res->good, res->bad, &res->session, err, errlen);
    if (!rc && !res->session) {
        rc = bisect_session_create(x->db, &x->rec, "step", res->top, res->good, res->bad,
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
    bisect_cancelled = 0;
    struct bisect_ctx x = {.cfg = cfg, .p = p, .res = &res};
    struct bisect_record *recs = NULL;
    size_t n = 0;
    char good[BISECT_HASH_LEN + 1], bad[BISECT_HASH_LEN + 1], hash[BISECT_HASH_LEN + 1];
    bool skipped = false;
    int rc = bisect_ctx_options(&x, cfg, err, errlen);
    if (!rc)
        rc = bisect_measure_check(x.cfg, err, errlen);
    if (!rc)
        rc = bisect_ctx_tree(&res, err, errlen);
    if (!rc && (!cfg->good || !cfg->bad))
        rc = bisect_git_log_refs(res.top, good, bad, err, errlen);
    if (!rc)
        rc = bisect_ctx_resolve(&res, cfg->good ? cfg->good : good, cfg->bad ? cfg->bad : bad, err,
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
        rc = bisect_ctx_head(&x, hash, err, errlen);
    if (!rc)
        rc = lost_before(&x, recs, n, hash, out, &skipped, err, errlen);
    if (!rc && !skipped)
        rc = step_measured(&x, stored, k + 1, hash, out, err, errlen);
    free(recs);
    res.session = 0; /* the step session's status stays as it is */
    rc = bisect_ctx_finish(&x, rc, err, errlen);
    bisect_result_free(&res);
    return rc;
}
