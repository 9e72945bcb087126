/*
 * One scheduled run of a campaign: setup, prepare, the measured command,
 * teardown. Every step is a child process bounded by a timeout; a failure of
 * any step fails the run with its reason and never stops the campaign.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/proc.h"
#include "compare/compare.h"
#include "util/units.h"

#define DEFAULT_RUN_SECONDS 10.0
#define CMD_TIMEOUT 600.0
#define MIN_HOOK_TIMEOUT 60.0

void compare_config_free(struct compare_config *c)
{
    for (size_t i = 0; i < c->nvariants; i++)
        words_free(&c->variants[i].words);
}

bool compare_uses_cmd(const struct compare_config *c)
{
    return c->nvariants && c->variants[0].cmd;
}

int compare_campaign_init(struct compare_campaign *c, const struct compare_config *cfg, char *err,
                          size_t errlen)
{
    memset(c, 0, sizeof(*c));
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
        const char *want = cfg->metric ? cfg->metric : "throughput";
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

/* Finds the value of -t/--time or -O/--omit in words (the last one wins, as in getopt). */
static void scan_seconds(char *const *w, size_t n, double *time_s, double *omit_s)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = NULL;
        double *dst = NULL;
        if (!strcmp(w[i], "-t") || !strcmp(w[i], "--time") || !strcmp(w[i], "-O") ||
            !strcmp(w[i], "--omit")) {
            dst = w[i][1] == 't' || !strcmp(w[i], "--time") ? time_s : omit_s;
            v = i + 1 < n ? w[++i] : NULL;
        } else if (!strncmp(w[i], "--time=", 7) || !strncmp(w[i], "--omit=", 7)) {
            dst = w[i][2] == 't' ? time_s : omit_s;
            v = w[i] + 7;
        } else if ((!strncmp(w[i], "-t", 2) || !strncmp(w[i], "-O", 2)) && w[i][2]) {
            dst = w[i][1] == 't' ? time_s : omit_s;
            v = w[i] + 2;
        }
        double s;
        char e[NB_ERRLEN];
        if (v && !units_parse_seconds(v, &s, e, sizeof(e)))
            *dst = s;
    }
}

double compare_run_timeout(const struct compare_config *cfg)
{
    if (cfg->timeout > 0)
        return cfg->timeout;
    if (compare_uses_cmd(cfg))
        return CMD_TIMEOUT;
    /* The longest variant decides, so that one bound serves every run. */
    double worst = 0;
    for (size_t i = 0; i < cfg->nvariants; i++) {
        double t = DEFAULT_RUN_SECONDS, omit = 0;
        scan_seconds(cfg->common, cfg->ncommon, &t, &omit);
        scan_seconds(cfg->variants[i].words.w, cfg->variants[i].words.n, &t, &omit);
        worst = fmax(worst, t + omit);
    }
    return 3 * worst + 30;
}

/* Runs a hook; on failure writes "WHAT failed: reason" into r->error. Returns 0, 1 (failed) or
 * -ENOMEM. */
static int hook(const struct compare_campaign *c, const char *what, const char *cmd,
                struct compare_run *r)
{
    if (!cmd)
        return 0;
    struct proc_result res;
    char err[NB_ERRLEN], why[PROC_ERR_TAIL + 64];
    double limit = fmax(c->timeout, MIN_HOOK_TIMEOUT);
    int rc = proc_run_shell(cmd, limit, c->stop, &res, err, sizeof(err));
    if (rc == -ENOMEM) {
        proc_result_free(&res);
        return rc;
    }
    if (rc)
        snprintf(why, sizeof(why), "%s", err);
    else
        proc_describe_failure(&res, limit, why, sizeof(why));
    proc_result_free(&res);
    if (!*why)
        return 0;
    if (!*r->error)
        snprintf(r->error, sizeof(r->error), "%s failed: %.290s", what, why);
    return 1;
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

/* Runs the measured command and takes the metrics from its output. Returns 0 or -ENOMEM. */
static int measure(const struct compare_campaign *c, const struct compare_variant *v,
                   struct compare_run *r)
{
    const struct compare_config *cfg = c->cfg;
    struct proc_result res;
    char err[NB_ERRLEN];
    int rc;
    if (v->cmd) {
        char *line = external_command(cfg, v);
        if (!line)
            return -ENOMEM;
        rc = proc_run_shell(line, c->timeout, c->stop, &res, err, sizeof(err));
        free(line);
    } else {
        size_t n = 3 + 4 + cfg->ncommon + v->words.n + 1;
        char **argv = calloc(n, sizeof(*argv));
        if (!argv)
            return -ENOMEM;
        size_t k = 0;
        char label[200];
        argv[k++] = (char *)cfg->self;
        argv[k++] = "run";
        argv[k++] = "--json";
        if (cfg->db) {
            /* The child stores its own document, labelled with the variant. */
            snprintf(label, sizeof(label), "%s%s", v->name, r->slot.warmup ? " (warm-up)" : "");
            argv[k++] = "--db";
            argv[k++] = (char *)cfg->db;
            argv[k++] = "--db-label";
            argv[k++] = label;
        }
        for (size_t i = 0; i < cfg->ncommon; i++)
            argv[k++] = cfg->common[i];
        for (size_t i = 0; i < v->words.n; i++)
            argv[k++] = v->words.w[i];
        rc = proc_run(argv, c->timeout, c->stop, &res, err, sizeof(err));
        free(argv);
    }
    if (rc) {
        proc_result_free(&res);
        if (rc == -ENOMEM)
            return rc;
        snprintf(r->error, sizeof(r->error), "%s", err);
        return 0;
    }
    r->seconds = res.seconds;
    char why[PROC_ERR_TAIL + 64];
    proc_describe_failure(&res, c->timeout, why, sizeof(why));
    if (!v->cmd && !res.timed_out && !res.interrupted) {
        /* netab run --json explains its failures in the document's "error" member. */
        json_error_t je;
        json_t *doc = json_loads(res.out, 0, &je);
        const char *e = json_string_value(json_object_get(doc, "error"));
        /* stderr often says more than the document ("-P: '0' is out of range ..."). */
        size_t n = strcspn(res.err_tail, "\n");
        if (e && n && strncmp(res.err_tail, "netab run: ", 11) == 0)
            snprintf(why, sizeof(why), "%.*s", (int)(n < 300 ? n : 300), res.err_tail);
        else if (e)
            snprintf(why, sizeof(why), "netab run: %.300s", e);
        json_decref(doc);
    }
    if (*why) {
        snprintf(r->error, sizeof(r->error), "%.300s", why);
        proc_result_free(&res);
        return 0;
    }
    for (size_t i = 0; i < c->nmetrics; i++) {
        const struct compare_metric *m = &c->metrics[i];
        double x = NAN;
        rc = m->path ? compare_metric_from_json(res.out, m->path, &x, err, sizeof(err))
                     : compare_metric_from_regex(res.out, cfg->metric_regex, &x, err, sizeof(err));
        /* Only the deciding metric must be there; the others are reported where present. */
        if (rc && i == c->decide) {
            snprintf(r->error, sizeof(r->error), "%s", err);
            break;
        }
        r->values[i] = rc ? NAN : x;
    }
    proc_result_free(&res);
    return 0;
}

int compare_run_one(const struct compare_campaign *c, const struct compare_slot *slot,
                    struct compare_run *out)
{
    memset(out, 0, sizeof(*out));
    out->slot = *slot;
    out->status = COMPARE_RUN_FAILED;
    out->values = malloc(c->nmetrics * sizeof(*out->values));
    if (!out->values)
        return -ENOMEM;
    for (size_t i = 0; i < c->nmetrics; i++)
        out->values[i] = NAN;
    const struct compare_variant *v = &c->cfg->variants[slot->variant];
    /*
     * Setup runs before each of the variant's runs and teardown after it,
     * because interleaving switches variants on every run. Teardown runs even
     * when setup failed, to undo whatever part of it took effect.
     */
    int rc = hook(c, "setup", v->setup, out);
    if (rc == 0)
        rc = hook(c, "prepare", c->cfg->prepare, out);
    if (rc == 0)
        rc = measure(c, v, out);
    int trc = hook(c, "teardown", v->teardown, out);
    if (rc < 0 || trc < 0)
        return -ENOMEM;
    if (!*out->error)
        out->status = COMPARE_RUN_OK;
    return 0;
}

void compare_run_free(struct compare_run *r)
{
    free(r->values);
    r->values = NULL;
}
