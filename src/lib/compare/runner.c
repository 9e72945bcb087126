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

#include "campaign/exec.h"
#include "compare/compare.h"

#define CMD_TIMEOUT 600.0

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
        return CMD_TIMEOUT;
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

/* The argv of one netab run child of variant v: the variant's spec with compare's own additions. */
static char **child_argv(const struct compare_config *cfg, const struct compare_variant *v,
                         bool warmup)
{
    struct run_spec spec = v->spec;
    char label[200], **args, **argv;
    int argc;
    spec.json = true;
    if (cfg->db) {
        /* The child stores its own document, labelled with the variant. */
        snprintf(label, sizeof(label), "%s%s", v->name, warmup ? " (warm-up)" : "");
        spec.db = cfg->db;
        spec.db_label = label;
    }
    if (run_spec_to_argv(&spec, &args, &argc))
        return NULL;
    argv = calloc((size_t)argc + 2, sizeof(*argv));
    if (argv && (argv[0] = strdup(cfg->self))) {
        memcpy(argv + 1, args, (size_t)argc * sizeof(*args));
        free(args); /* the strings moved into argv */
        return argv;
    }
    free(argv);
    run_spec_argv_free(args);
    return NULL;
}

/* Takes every metric from a successful run's output. */
static void take_metrics(const struct compare_campaign *c, const char *out, struct compare_run *r)
{
    char err[NB_ERRLEN];
    for (size_t i = 0; i < c->nmetrics; i++) {
        const struct compare_metric *m = &c->metrics[i];
        double x = NAN;
        int rc = m->path
                     ? compare_metric_from_json(out, m->path, &x, err, sizeof(err))
                     : compare_metric_from_regex(out, c->cfg->metric_regex, &x, err, sizeof(err));
        /* Only the deciding metric must be there; the others are reported where present. */
        if (rc && i == c->decide) {
            snprintf(r->error, sizeof(r->error), "%s", err);
            return;
        }
        r->values[i] = rc ? NAN : x;
    }
}

/*
 * Runs one slot through the campaigns' step runner (setup, prepare, the
 * measured command, teardown) and takes the metrics. Returns 0 or -ENOMEM.
 */
static int run_step(const struct compare_campaign *c, const struct compare_variant *v,
                    struct compare_run *r)
{
    const struct compare_config *cfg = c->cfg;
    struct exec_step x = {.setup = v->setup,
                          .prepare = cfg->prepare,
                          .teardown = v->teardown,
                          .deadline = c->timeout,
                          .stop = c->stop};
    char *line = NULL, **argv = NULL;
    if (v->cmd && !(line = external_command(cfg, v)))
        return -ENOMEM;
    if (!v->cmd && !(argv = child_argv(cfg, v, r->slot.warmup)))
        return -ENOMEM;
    x.shell = line;
    x.argv = argv;
    struct exec_outcome o;
    int rc = exec_run(&x, &o);
    free(line);
    run_spec_argv_free(argv);
    r->seconds = o.seconds;
    if (!rc && *o.why)
        snprintf(r->error, sizeof(r->error), "%.300s", o.why);
    else if (!rc)
        take_metrics(c, o.out ? o.out : "", r);
    exec_outcome_free(&o);
    return rc;
}

int compare_run_one(const struct compare_campaign *c, const struct campaign_slot *slot,
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
    if (run_step(c, v, out))
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
