/*
 * netab compare as a campaign: its configuration, metrics and timeout, the
 * in-memory experiment that the campaign engine runs for it (the planner and
 * step runner of campaign/), and each finished run turned back into the
 * values compare analyses.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/exec.h"
#include "experiment/experiment.h"
#include "metric/metric.h"
#include "metric/steal.h"
#include "judge/judge.h"
#include "compare/compare.h"

void compare_config_free(struct compare_config *c)
{
    for (size_t i = 0; i < c->nvariants; i++)
        words_free(&c->variants[i].words);
}

bool compare_uses_cmd(const struct compare_config *c)
{
    return c->nvariants && c->variants[0].cmd;
}

/*
 * The test kind the variants run (enum metric_kind bit) into *kind, whose
 * deciding metric decides compare when --metric is not given. Returns 0, or
 * -EINVAL naming two variants whose kinds are decided on different figures
 * (a verdict across bit/s and transactions/s would mean nothing).
 */
static int variants_kind(const struct compare_config *cfg, unsigned *kind, char *err, size_t errlen)
{
    *kind = METRIC_UNKNOWN;
    for (size_t i = 0; i < cfg->nvariants; i++) {
        const char *test = params_kind_name(cfg->variants[i].spec.params.kind);
        unsigned k = metric_kind_of(test);
        if (i && judge_decider(k) != judge_decider(*kind))
            return err_set(err, errlen, EINVAL,
                           "variants '%s' and '%s' run tests judged on different figures (%s, "
                           "%s): name the deciding one with --metric",
                           cfg->variants[0].name, cfg->variants[i].name, judge_decider(*kind)->name,
                           judge_decider(k)->name);
        if (!i)
            *kind = k;
    }
    return 0;
}

int compare_campaign_init(struct compare_campaign *c, const struct compare_config *cfg, char *err,
                          size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->kind = METRIC_UNKNOWN;
    c->cfg = cfg;
    size_t nb;
    const struct compare_metric *b = compare_builtin_metrics(&nb);
    c->metrics = calloc(nb + 1, sizeof(*c->metrics));
    if (!c->metrics)
        return err_set(err, errlen, ENOMEM, "out of memory");
    if (compare_uses_cmd(cfg)) {
        const char *path = cfg->metric_json;
        c->metrics[0] = (struct compare_metric){
            .name = cfg->metric ? cfg->metric
                    : path      ? path
                                : "value",
            .path = path,
            .unit = "",
            .lower_is_better = cfg->lower_is_better,
            .always = true,
        };
        c->nmetrics = 1;
        c->decide = 0;
    } else {
        memcpy(c->metrics, b, nb * sizeof(*b));
        c->nmetrics = nb;
        const char *want = cfg->metric;
        if (!want) {
            int krc = variants_kind(cfg, &c->kind, err, errlen);
            if (krc) {
                compare_campaign_free(c);
                return krc;
            }
            want = judge_decider(c->kind)->name;
        }
        const struct compare_metric *m = compare_metric_find(want);
        if (m) {
            c->decide = (size_t)(m - b);
        } else {
            /* A custom dotted path: measured like the others, direction from the options. */
            c->metrics[nb] = (struct compare_metric){
                .name = want, .path = want, .unit = "", .lower_is_better = cfg->lower_is_better};
            c->decide = nb;
            c->nmetrics = nb + 1;
        }
        if (cfg->direction_given)
            c->metrics[c->decide].lower_is_better = cfg->lower_is_better;
        /* The deciding metric must be in every run; a run without it has failed. */
        c->metrics[c->decide].always = true;
    }
    c->timeout = cfg->timeout;
    return 0;
}

void compare_campaign_free(struct compare_campaign *c)
{
    free(c->metrics);
    c->metrics = NULL;
}

int compare_variant_prepare(const struct compare_config *cfg, struct compare_variant *v, char *err,
                            size_t errlen)
{
    if (v->cmd)
        return 0;
    size_t n = cfg->ncommon + v->words.n;
    char **w = calloc(n + 1, sizeof(*w));
    if (!w)
        return err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; i < cfg->ncommon; i++)
        w[i] = cfg->common[i];
    for (size_t i = 0; i < v->words.n; i++)
        w[cfg->ncommon + i] = v->words.w[i];
    char why[NB_ERRLEN];
    int rc = run_spec_parse_words(w, n, &v->spec, why, sizeof(why));
    free(w);
    if (!rc && v->spec.help)
        rc = err_set(why, sizeof(why), EINVAL, "-h/--help is not a test option");
    if (!rc && (v->spec.db || v->spec.db_label))
        rc = err_set(why, sizeof(why), EINVAL,
                     "--db and --db-label are compare's own options, not a variant's");
    if (rc)
        return err_set(err, errlen, -rc, "variant '%s': %s", v->name, why);
    return 0;
}

double compare_run_timeout(const struct compare_config *cfg)
{
    if (cfg->timeout > 0)
        return cfg->timeout;
    if (compare_uses_cmd(cfg))
        return EXEC_CMD_DEADLINE_S;
    /* The longest variant decides, so that one bound serves every run. */
    double worst = 0;
    for (size_t i = 0; i < cfg->nvariants; i++)
        worst = fmax(worst, run_spec_deadline(&cfg->variants[i].spec));
    return worst;
}

/* The command line of an external-command variant: its --cmd, its --opts, the quoted words after
 * --. */
static char *external_command(const struct compare_config *cfg, const struct compare_variant *v)
{
    size_t len = strlen(v->cmd) + (v->opts ? strlen(v->opts) + 1 : 0) + 1;
    for (size_t i = 0; i < cfg->ncommon; i++)
        len += words_shell_quote(cfg->common[i], NULL, 0) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t used =
        (size_t)snprintf(s, len, "%s%s%s", v->cmd, v->opts ? " " : "", v->opts ? v->opts : "");
    for (size_t i = 0; i < cfg->ncommon; i++) {
        s[used++] = ' ';
        used += words_shell_quote(cfg->common[i], s + used, len - used);
    }
    return s;
}

/* Takes every metric from a successful run's output. */
static void take_metrics(const struct compare_campaign *c, const char *out, struct compare_run *r)
{
    char err[NB_ERRLEN], jerr[NB_ERRLEN] = "";
    /* The output parsed once for every path metric and the profile (a netab run's document). */
    json_error_t je;
    json_t *doc = compare_uses_cmd(c->cfg) && c->cfg->metric_regex ? NULL : json_loads(out, 0, &je);
    if (!doc)
        snprintf(jerr, sizeof(jerr), "output is not one JSON document: %s (line %d)", je.text,
                 je.line);
    for (size_t i = 0; i < c->nmetrics; i++) {
        const struct compare_metric *m = &c->metrics[i];
        double x = NAN;
        int rc = !m->path
                     ? compare_metric_from_regex(out, c->cfg->metric_regex, &x, err, sizeof(err))
                 : doc ? compare_metric_from_doc(doc, m->path, &x, err, sizeof(err))
                       : err_set(err, sizeof(err), EINVAL, "%s", jerr);
        /* Only the deciding metric must be there; the others are reported where present. */
        if (rc && i == c->decide) {
            snprintf(r->error, sizeof(r->error), "%s", err);
            json_decref(doc);
            return;
        }
        r->values[i] = rc ? NAN : x;
    }
    /* Not a compared metric: it says whether the system-wide CPU cost can be believed. */
    const struct metric *p = metric_with_flag(METRIC_POLLUTION, METRIC_ALL_KINDS);
    double x;
    if (p && doc && !compare_uses_cmd(c->cfg) &&
        !compare_metric_from_doc(doc, p->path, &x, err, sizeof(err)))
        r->others_pct = x;
    if (doc && !compare_uses_cmd(c->cfg))
        r->steal_pct = metric_steal_pct(doc);
    /* A --profile run's profile, for the differential profile (compare_profdiff()). */
    json_t *prof =
        json_object_get(json_object_get(json_object_get(doc, "end"), "profile"), "local");
    r->profile = json_is_object(prof) ? json_incref(prof) : NULL;
    json_decref(doc);
}

/* cfg's common words and v's opts as one option string that splits back into the same words. */
static char *joined_opts(const struct compare_config *cfg, const struct compare_variant *v)
{
    size_t len = 1;
    for (size_t i = 0; i < cfg->ncommon; i++)
        len += words_shell_quote(cfg->common[i], NULL, 0) + 1;
    for (size_t i = 0; i < v->words.n; i++)
        len += words_shell_quote(v->words.w[i], NULL, 0) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < cfg->ncommon + v->words.n; i++) {
        const char *w = i < cfg->ncommon ? cfg->common[i] : v->words.w[i - cfg->ncommon];
        if (used)
            s[used++] = ' ';
        used += words_shell_quote(w, s + used, len - used);
    }
    s[used] = '\0';
    return s;
}

static bool dup_or_null(const char *in, char **out)
{
    *out = in ? strdup(in) : NULL;
    return !in || *out;
}

int compare_experiment(const struct compare_config *cfg, struct experiment **out, char *err,
                       size_t errlen)
{
    struct experiment *e = calloc(1, sizeof(*e));
    *out = NULL;
    if (!e || !(e->variants = calloc(cfg->nvariants, sizeof(*e->variants))))
        goto nomem;
    e->runs = cfg->runs;
    e->warmup = cfg->warmup;
    e->has_seed = true;
    e->seed = cfg->seed;
    e->cooldown = cfg->cooldown;
    e->timeout = cfg->timeout;
    e->nvariants = cfg->nvariants;
    e->reset = cfg->dut && cfg->reboot ? EXP_RESET_REBOOT : EXP_RESET_NONE;
    if (!(e->name = strdup(cfg->name ? cfg->name : "compare")) ||
        !dup_or_null(cfg->prepare, &e->prepare))
        goto nomem;
    for (size_t i = 0; i < cfg->nvariants; i++) {
        const struct compare_variant *v = &cfg->variants[i];
        struct exp_variant *x = &e->variants[i];
        if (!(x->name = strdup(v->name)) || !dup_or_null(v->setup, &x->setup) ||
            !dup_or_null(v->teardown, &x->teardown) || !dup_or_null(v->boot, &x->boot) ||
            !dup_or_null(v->expect, &x->expect))
            goto nomem;
        if (v->cmd ? !(x->cmd = external_command(cfg, v)) : !(x->opts = joined_opts(cfg, v)))
            goto nomem;
    }
    *out = e;
    return 0;
nomem:
    experiment_free(e);
    return err_set(err, errlen, ENOMEM, "out of memory");
}

int compare_run_from_event(const struct compare_campaign *c, const struct campaign_event *ev,
                           struct compare_run *out)
{
    memset(out, 0, sizeof(*out));
    out->status = COMPARE_RUN_FAILED;
    out->values = malloc(c->nmetrics * sizeof(*out->values));
    if (!out->values)
        return -ENOMEM;
    for (size_t i = 0; i < c->nmetrics; i++)
        out->values[i] = NAN;
    out->others_pct = NAN;
    out->steal_pct = NAN;
    size_t v = 0;
    while (v < c->cfg->nvariants && strcmp(c->cfg->variants[v].name, ev->variant))
        v++;
    out->slot = (struct campaign_slot){.variant = (unsigned)v,
                                       .round = (unsigned)ev->round,
                                       .seq = (unsigned)ev->seq,
                                       .warmup = ev->warmup};
    out->seconds = ev->measured_s;
    if (v == c->cfg->nvariants)
        snprintf(out->error, sizeof(out->error), "the store names an unknown variant '%.64s'",
                 ev->variant);
    else if (ev->status != STORE_RUN_OK)
        snprintf(out->error, sizeof(out->error), "%.300s", ev->error ? ev->error : "failed");
    else
        take_metrics(c, ev->output ? ev->output : "", out);
    if (!*out->error)
        out->status = COMPARE_RUN_OK;
    return 0;
}

void compare_run_free(struct compare_run *r)
{
    free(r->values);
    r->values = NULL;
    json_decref(r->profile);
    r->profile = NULL;
}
