/*
 * compare_execute(): a comparison's rounds on the campaign engine, with the
 * pre-planned looks of adaptive stopping (compare/result.h, docs/compare.md).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/result.h"
#include "compare/session.h"

#define MAX_LOOKS 64

struct engine_ctx {
    struct compare_result *res;
    const struct compare_progress *p;
    int rc; /* -ENOMEM once a record could not be made */
};

/* Records one finished run of the campaign engine and passes it on. */
static void on_event(const struct campaign_event *ev, const char *msg, void *arg)
{
    struct engine_ctx *x = arg;
    struct compare_result *res = x->res;
    if (!ev) {
        if (x->p->say)
            x->p->say(msg, x->p->arg);
        return;
    }
    if (ev->status == STORE_RUN_INTERRUPTED || x->rc)
        return; /* a run that a signal cut short measured nothing */
    if (res->nruns == res->cap) {
        size_t cap = res->cap ? res->cap * 2 : 64;
        struct compare_run *runs = realloc(res->runs, cap * sizeof(*runs));
        if (!runs) {
            x->rc = -ENOMEM;
            return;
        }
        res->runs = runs;
        res->cap = cap;
    }
    struct compare_run *r = &res->runs[res->nruns];
    if (compare_run_from_event(res->c, ev, r)) {
        compare_run_free(r);
        x->rc = -ENOMEM;
        return;
    }
    res->nruns++;
    if (x->p->run)
        x->p->run(res, r, x->p->arg);
    compare_early_stop(res);
}

/* The campaign engine's stop question: has compare_early_stop() found a reason? */
static bool should_stop(void *arg)
{
    const struct engine_ctx *x = arg;
    return x->res->stopped_early[0] != '\0';
}

/* The wider side of a relative change's interval, INFINITY when it has none. */
static double halfwidth(double rel, double low, double high)
{
    double hw = fmax(rel - low, high - rel);
    return isfinite(hw) ? hw : INFINITY;
}

/* The widest half-width among the pairs of --pairs all (JSON in percent). */
static int pairs_halfwidth(struct compare_result *res, const struct compare_metric_report *m,
                           double *worst)
{
    char err[NB_ERRLEN];
    json_t *pairs = json_array();
    int rc = pairs ? compare_pairs_of(res, m, pairs, err, sizeof(err)) : -ENOMEM;
    if (rc) {
        json_decref(pairs);
        *worst = INFINITY; /* no intervals to judge by: go on to the next look */
        return rc == -ENOMEM ? rc : 0;
    }
    size_t i;
    json_t *p;
    json_array_foreach(pairs, i, p)
    {
        json_t *rel = json_object_get(p, "rel_change_pct");
        json_t *low = json_object_get(p, "rel_change_ci_low_pct");
        json_t *high = json_object_get(p, "rel_change_ci_high_pct");
        double hw = json_is_number(rel) && json_is_number(low) && json_is_number(high)
                        ? halfwidth(json_number_value(rel), json_number_value(low),
                                    json_number_value(high)) /
                              100
                        : INFINITY;
        *worst = fmax(*worst, hw);
    }
    json_decref(pairs);
    return 0;
}

/*
 * At a look: is every relative change's interval within +-until_ci (with
 * --pairs all, that of every pair)? Returns 0 or -ENOMEM.
 */
static int look(struct compare_result *res, bool *reached)
{
    struct compare_metric_report m;
    *reached = false;
    if (compare_analyse_metric(res, res->c->decide, &m))
        return -ENOMEM;
    double worst = m.ok ? 0 : INFINITY;
    for (size_t v = 1; m.ok && v < m.r.nsets; v++) {
        const struct stats_verdict *vd = &m.r.cmps[v - 1].c.verdict;
        worst = fmax(worst, halfwidth(vd->rel, vd->rel_low, vd->rel_high));
    }
    int rc = m.ok && res->c->cfg->pairs_all ? pairs_halfwidth(res, &m, &worst) : 0;
    bool stop = res->stop && m.ok && res->stop(res, &m, res->stop_arg);
    compare_metric_report_free(&m);
    res->worst_halfwidth = worst;
    *reached = res->stop ? stop : worst <= res->c->cfg->until_ci;
    return rc;
}

/* The measured rounds after which to look: cfg's runs, or the adaptive sequence. */
static size_t plan_looks(struct compare_result *res, unsigned *looks)
{
    const struct compare_config *cfg = res->c->cfg;
    size_t k = 1;
    looks[0] = cfg->runs;
    if (res->adaptive) {
        unsigned min = cfg->first_look ? cfg->first_look : COMPARE_MIN_FIRST_LOOK;
        unsigned first = cfg->runs > min ? cfg->runs : min;
        k = compare_looks(first, cfg->max_runs, looks, MAX_LOOKS);
        if (k > MAX_LOOKS)
            k = MAX_LOOKS; /* cannot happen below 100,000 runs with growth 1.5 */
        /* Bonferroni over the planned looks: see docs/compare.md */
        res->opts.confidence = compare_look_confidence(cfg->confidence, k);
    }
    res->looks_planned = (unsigned)k;
    compare_pairs_correct(res); /* --pairs all: Bonferroni over the pairs, on top */
    return k;
}

int compare_execute(struct compare_result *res, const struct compare_progress *p, char *err,
                    size_t errlen)
{
    const struct compare_config *cfg = res->c->cfg;
    unsigned looks[MAX_LOOKS] = {0};
    size_t k = plan_looks(res, looks);
    struct compare_session s;
    res->planned_runs = (size_t)(cfg->warmup + looks[0]) * cfg->nvariants;
    int rc = compare_session_open(&s, cfg, (long)(cfg->warmup + looks[0]), err, errlen);
    if (rc)
        return rc;
    for (size_t i = 0; i < k; i++) {
        unsigned target = cfg->warmup + looks[i];
        res->planned_runs = (size_t)target * cfg->nvariants;
        struct engine_ctx x = {.res = res, .p = p};
        int signo;
        rc = compare_session_run(&s, target, on_event, &x, should_stop, &signo, err, errlen);
        if (!rc && x.rc)
            rc = err_set(err, errlen, -x.rc, "out of memory");
        if (rc)
            break;
        if (signo) {
            res->interrupted = true;
            break;
        }
        if (res->stopped_early[0])
            break;
        res->rounds = looks[i];
        res->looks_done = (unsigned)i + 1;
        if (!res->adaptive)
            break;
        bool reached;
        if ((rc = look(res, &reached))) {
            err_set(err, errlen, -rc, "out of memory");
            break;
        }
        if (p->look)
            p->look(res, i + 1, k, looks[i], reached, p->arg);
        if (reached) {
            res->target_reached = true;
            break;
        }
    }
    compare_session_close(&s);
    return rc;
}
