/*
 * bisect_measure(): a comparison of two trees on compare's engine, stopped
 * at compare's pre-planned looks by bisect's rule (bisect/judge.h).
 */
#include "bisect/measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/result.h"
#include "util/units.h"
#include "util/words.h"

#define MAX_LOOKS 64

/* Everything a comparison needs that outlives the compare structures' borrowed pointers. */
struct pair_ctx {
    struct compare_config cc;
    struct compare_campaign camp;
    struct compare_result res;
    char setup[2][PATH_MAX * 2 + 128];
    char *boot[2], *expect[2]; /* with a DUT: the sides' own (bisect_dutfile_expand()) */
    const struct bisect_pair *pair;
    const struct bisect_progress *p;
};

/*
 * "cd 'DIR' && export NETAB_BISECT_COMMIT=HASH && SETUP": the setup of the
 * tree in dir (an extracted tree has no .git to tell its commit), NULL
 * without --setup.
 */
static const char *setup_in(char *buf, size_t len, const char *dir, const char *hash,
                            const char *setup)
{
    if (!setup)
        return NULL;
    size_t used = (size_t)snprintf(buf, len, "cd ");
    used += words_shell_quote(dir, buf + used, len - used);
    if (hash && used < len)
        used += (size_t)snprintf(buf + used, len - used, " && export NETAB_BISECT_COMMIT=%s", hash);
    snprintf(buf + used, len > used ? len - used : 0, " && %s", setup);
    return buf;
}

/*
 * With --experiment: the DUT of the file, each side's boot and expect its
 * template's with the side's commit. Returns 0 or -ENOMEM.
 */
static int ctx_dut(struct pair_ctx *x, const struct bisect_pair *pair)
{
    const struct bisect_dutfile *f = pair->dut;
    if (!f)
        return 0;
    const struct exp_variant *t = &f->e->variants[0];
    const char *hash[2] = {pair->hash_a, pair->hash_b};
    x->cc.dut = f->e->dut;
    x->cc.reboot = f->e->reset == EXP_RESET_REBOOT;
    for (size_t i = 0; i < 2; i++) {
        const char *h = hash[i] ? hash[i] : "0000000000000000000000000000000000000000";
        x->boot[i] = bisect_dutfile_expand(t->boot, h);
        x->expect[i] = bisect_dutfile_expand(t->expect, h);
        if (!x->boot[i] || !x->expect[i])
            return -ENOMEM;
        x->cc.variants[i].boot = x->boot[i];
        x->cc.variants[i].expect = x->expect[i];
    }
    return 0;
}

/* The level of every interval: compare's Bonferroni over the planned looks. */
static double looks_confidence(const struct bisect_config *cfg)
{
    if (cfg->max_runs <= cfg->runs)
        return cfg->confidence;
    unsigned looks[MAX_LOOKS];
    size_t k = compare_looks(cfg->runs, cfg->max_runs, looks, MAX_LOOKS);
    return compare_look_confidence(cfg->confidence, k > MAX_LOOKS ? MAX_LOOKS : k);
}

/* Fills x's compare configuration and campaign. Returns 0 or -errno with err. */
static int ctx_init(struct pair_ctx *x, const struct bisect_config *cfg,
                    const struct bisect_pair *pair, char *err, size_t errlen)
{
    memset(x, 0, sizeof(*x));
    x->pair = pair;
    struct compare_config *c = &x->cc;
    c->nvariants = 2;
    c->variants[0].name = pair->name_a;
    c->variants[0].setup =
        setup_in(x->setup[0], sizeof(x->setup[0]), pair->dir_a, pair->hash_a, cfg->setup);
    c->variants[1].name = pair->name_b;
    c->variants[1].setup =
        setup_in(x->setup[1], sizeof(x->setup[1]), pair->dir_b, pair->hash_b, cfg->setup);
    if (ctx_dut(x, pair))
        return err_set(err, errlen, ENOMEM, "out of memory");
    c->common = cfg->common;
    c->ncommon = cfg->ncommon;
    c->runs = cfg->runs;
    c->warmup = cfg->warmup;
    c->max_runs = cfg->max_runs > cfg->runs ? cfg->max_runs : cfg->runs;
    /* A bisection looks first after --runs: every step is repeated and each is cheap to
     * extend, and Bonferroni over the planned looks keeps every interval valid. */
    c->first_look = 2;
    c->seed = pair->seed;
    c->seed_given = true;
    c->timeout = cfg->timeout;
    c->metric = cfg->metric;
    c->lower_is_better = cfg->lower_is_better;
    c->direction_given = cfg->direction_given;
    c->noise = cfg->noise;
    c->confidence = cfg->confidence;
    c->db = cfg->db;
    c->self = cfg->self;
    c->name = pair->experiment;
    for (size_t i = 0; i < 2; i++) {
        int rc = compare_variant_prepare(c, &c->variants[i], err, errlen);
        if (rc)
            return rc;
    }
    int rc = compare_campaign_init(&x->camp, c, err, errlen);
    if (rc)
        return rc;
    x->camp.timeout = compare_run_timeout(c);
    x->res.c = &x->camp;
    x->res.adaptive = c->max_runs > c->runs;
    stats_opts_default(&x->res.opts);
    x->res.opts.noise = cfg->noise;
    x->res.opts.confidence = cfg->confidence;
    x->res.opts.seed = pair->seed;
    return 0;
}

static void ctx_free(struct pair_ctx *x)
{
    for (size_t i = 0; i < 2; i++) {
        free(x->boot[i]);
        free(x->expect[i]);
    }
    compare_result_free(&x->res);
    compare_campaign_free(&x->camp);
    compare_config_free(&x->cc);
}

int bisect_measure_check(const struct bisect_config *cfg, char *err, size_t errlen)
{
    struct bisect_pair pair = {
        .name_a = "good", .dir_a = ".", .name_b = "bad", .dir_b = ".", .experiment = "check"};
    struct pair_ctx *x = malloc(sizeof(*x));
    if (!x)
        return err_set(err, errlen, ENOMEM, "out of memory");
    int rc = ctx_init(x, cfg, &pair, err, errlen);
    ctx_free(x);
    free(x);
    return rc;
}

/* The decision of a comparison's statistics: bisect_judge(), or the references' verdict. */
static enum bisect_decision decide(const struct bisect_pair *pair,
                                   const struct compare_metric_report *m)
{
    const struct stats_verdict *v = &m->r.cmps[0].c.verdict;
    /*
     * The references set the midpoint, so they need a relative change: a
     * verdict on the difference of means (GOOD's mean interval reaches zero,
     * as two noisy runs can make it) has none, and looks on instead.
     */
    if (pair->bad_rel == 0)
        return (v->kind == STATS_REGRESSED || v->kind == STATS_IMPROVED) && isfinite(v->rel)
                   ? BISECT_BAD
                   : BISECT_UNDECIDED;
    return bisect_judge(v->rel_low, v->rel_high, pair->bad_rel);
}

static bool stop_rule(const struct compare_result *res, const struct compare_metric_report *m,
                      void *arg)
{
    (void)res;
    return decide(arg, m) != BISECT_UNDECIDED;
}

/* The change, counts and decision of x's runs into out. Returns 0 or -ENOMEM. */
static int evaluate(struct pair_ctx *x, struct bisect_step *out)
{
    struct compare_metric_report m;
    if (compare_analyse_metric(&x->res, x->camp.decide, &m))
        return -ENOMEM;
    out->rel = out->lo = out->hi = NAN;
    out->confidence = x->res.opts.confidence;
    snprintf(out->metric, sizeof(out->metric), "%s", x->camp.metrics[x->camp.decide].name);
    snprintf(out->verdict, sizeof(out->verdict), "%s",
             m.ok && m.r.nsets > 1 && m.r.cmps ? stats_verdict_name(m.r.cmps[0].c.verdict.kind)
                                               : "");
    out->n_good = m.r.sets ? m.r.sets[0].n : 0;
    out->n_test = m.r.nsets > 1 ? m.r.sets[1].n : 0;
    if (!m.ok) {
        out->decision = BISECT_SKIP;
        snprintf(out->reason, sizeof(out->reason), "no comparison: %s", m.why);
        /* The failed runs' last error says why (a build that runs but a server that is gone). */
        for (size_t i = x->res.nruns; i-- > 0;)
            if (x->res.runs[i].status != COMPARE_RUN_OK) {
                size_t u = strlen(out->reason);
                snprintf(out->reason + u, sizeof(out->reason) - u, "; last failure: %s",
                         x->res.runs[i].error);
                break;
            }
    } else {
        const struct stats_verdict *v = &m.r.cmps[0].c.verdict;
        out->rel = v->rel;
        out->lo = v->rel_low;
        out->hi = v->rel_high;
        enum bisect_decision d = decide(x->pair, &m);
        out->decision = d == BISECT_UNDECIDED ? BISECT_SKIP : d;
        if (d == BISECT_UNDECIDED && x->pair->bad_rel != 0)
            snprintf(out->reason, sizeof(out->reason),
                     "undecided: the interval [%+.2f%%, %+.2f%%] contains the midpoint %+.2f%% "
                     "between GOOD and BAD after %zu runs",
                     out->lo * 100, out->hi * 100, x->pair->bad_rel * 50, out->n_test);
        else if (d == BISECT_UNDECIDED)
            snprintf(out->reason, sizeof(out->reason), "%s: %+.2f%% [%+.2f, %+.2f]",
                     stats_verdict_name(v->kind), out->rel * 100, out->lo * 100, out->hi * 100);
    }
    compare_metric_report_free(&m);
    return 0;
}

/*
 * The DUT stopped answering and the campaign engine gave up on it: the side
 * it was lost on is that of the first of the failed runs that end the
 * campaign (the run whose boot, or whose wait for a DUT found down, never
 * saw it again); its error says why.
 */
static void lost(const struct pair_ctx *x, struct bisect_step *out)
{
    const struct compare_result *res = &x->res;
    size_t i = res->nruns;
    while (i > 0 && res->runs[i - 1].status != COMPARE_RUN_OK)
        i--;
    const struct compare_run *r = i < res->nruns ? &res->runs[i] : NULL;
    out->decision = BISECT_LOST;
    out->lost_on_good = r && r->slot.variant == 0;
    const char *side = !r || r->slot.variant ? x->pair->name_b : x->pair->name_a;
    snprintf(out->reason, sizeof(out->reason),
             "the DUT never came back: at run %u (%.12s) and the %zu runs after it: %.400s",
             r ? r->slot.seq : 0, side, r ? res->nruns - i - 1 : 0,
             r ? r->error : "no run was recorded");
}

static void on_run(const struct compare_result *res, const struct compare_run *r, void *arg)
{
    const struct pair_ctx *x = arg;
    if (!x->p->say)
        return;
    const struct compare_campaign *c = res->c;
    char msg[512], v[64];
    const char *name = c->cfg->variants[r->slot.variant].name;
    if (r->status == COMPARE_RUN_OK) {
        double val = r->values[c->decide];
        if (!strcmp(c->metrics[c->decide].unit, "bit/s"))
            units_format_rate(val, v, sizeof(v));
        else
            snprintf(v, sizeof(v), "%.4g", val);
        snprintf(msg, sizeof(msg), "  run %u round %u%s %.12s: %s %s", r->slot.seq, r->slot.round,
                 r->slot.warmup ? " (warm-up)" : "", name, c->metrics[c->decide].name, v);
    } else {
        snprintf(msg, sizeof(msg), "  run %u round %u %.12s: FAILED: %s", r->slot.seq,
                 r->slot.round, name, r->error);
    }
    x->p->say(msg, x->p->arg);
}

static void on_say(const char *msg, void *arg)
{
    const struct pair_ctx *x = arg;
    if (x->p->say)
        x->p->say(msg, x->p->arg);
}

int bisect_measure(const struct bisect_config *cfg, const struct bisect_pair *pair,
                   const struct bisect_progress *p, struct bisect_step *out, bool *interrupted,
                   char *err, size_t errlen)
{
    struct pair_ctx *x = malloc(sizeof(*x));
    if (!x)
        return err_set(err, errlen, ENOMEM, "out of memory");
    int rc = ctx_init(x, cfg, pair, err, errlen);
    x->p = p;
    x->res.stop = stop_rule;
    x->res.stop_arg = (void *)pair;
    struct compare_progress prog = {.run = on_run, .say = on_say, .arg = x};
    if (!rc)
        rc = compare_execute(&x->res, &prog, err, errlen);
    if (!rc && evaluate(x, out))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    /* The engine's -EHOSTDOWN: the DUT did not answer in DUT_MAX_UNREACHABLE runs in a row. */
    if (rc == -EHOSTDOWN && pair->dut) {
        rc = evaluate(x, out) ? err_set(err, errlen, ENOMEM, "out of memory") : 0;
        lost(x, out);
    }
    *interrupted = x->res.interrupted;
    ctx_free(x);
    free(x);
    return rc;
}

/* A stored run as the campaign engine reported it, for compare_run_from_event(). */
static int add_stored(struct pair_ctx *x, const struct store_run *r)
{
    if (r->status != STORE_RUN_OK && r->status != STORE_RUN_FAILED)
        return 0;
    struct compare_result *res = &x->res;
    if (res->nruns == res->cap) {
        size_t cap = res->cap ? res->cap * 2 : 64;
        struct compare_run *runs = realloc(res->runs, cap * sizeof(*runs));
        if (!runs)
            return -ENOMEM;
        res->runs = runs;
        res->cap = cap;
    }
    struct campaign_event ev = {.seq = r->seq,
                                .round = r->round,
                                .warmup = r->warmup,
                                .variant = r->variant ? r->variant : "",
                                .status = r->status,
                                .error = r->error,
                                .output = r->result_json,
                                .measured_s = r->duration_s};
    if (compare_run_from_event(&x->camp, &ev, &res->runs[res->nruns])) {
        compare_run_free(&res->runs[res->nruns]);
        return -ENOMEM;
    }
    res->nruns++;
    return 0;
}

int bisect_measure_stored(const struct bisect_config *cfg, const struct bisect_pair *pair,
                          struct store *db, int64_t id, struct bisect_step *out, char *err,
                          size_t errlen)
{
    struct pair_ctx *x = malloc(sizeof(*x));
    if (!x)
        return err_set(err, errlen, ENOMEM, "out of memory");
    struct store_run *runs = NULL;
    size_t n = 0;
    int rc = ctx_init(x, cfg, pair, err, errlen);
    if (!rc)
        rc = store_run_list(db, id, true, &runs, &n, err, errlen);
    x->res.opts.confidence = looks_confidence(cfg);
    for (size_t i = 0; !rc && i < n; i++)
        if (add_stored(x, &runs[i]))
            rc = err_set(err, errlen, ENOMEM, "out of memory");
    if (!rc && evaluate(x, out))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    if (!rc && pair->lost)
        lost(x, out);
    out->experiment = id;
    store_run_list_free(runs, n);
    ctx_free(x);
    free(x);
    return rc;
}
