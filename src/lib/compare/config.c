#include "compare/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "judge/judge.h"
#include "metric/metric.h"

void compare_config_init(struct compare_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->runs = 5;
    cfg->noise = JUDGE_NOISE_DEFAULT;
    cfg->confidence = JUDGE_CONFIDENCE_DEFAULT;
    cfg->plot = true;
    cfg->self = "/proc/self/exe";
}

int compare_config_add_variant(struct compare_config *cfg, const char *name, char *err,
                               size_t errlen)
{
    if (!*name || strspn(name, " \t") == strlen(name))
        return err_set(err, errlen, EINVAL, "--variant: the name must not be empty");
    if (cfg->nvariants == COMPARE_MAX_VARIANTS)
        return err_set(err, errlen, EINVAL, "--variant: at most %d variants", COMPARE_MAX_VARIANTS);
    for (size_t i = 0; i < cfg->nvariants; i++)
        if (!strcmp(cfg->variants[i].name, name))
            return err_set(err, errlen, EINVAL, "--variant: '%s' is given twice", name);
    cfg->variants[cfg->nvariants++].name = name;
    return 0;
}

int compare_config_variant_option(struct compare_config *cfg, const char **global_cmd,
                                  const char *name, const char *value, char *err, size_t errlen)
{
    struct compare_variant *cur = cfg->nvariants ? &cfg->variants[cfg->nvariants - 1] : NULL;
    bool cmd = !strcmp(name, "cmd");
    if (cmd && !*value)
        return err_set(err, errlen, EINVAL, "--cmd: the command must not be empty");
    if (cmd && !cur) {
        if (*global_cmd)
            return err_set(err, errlen, EINVAL, "--cmd given twice before the first --variant");
        *global_cmd = value;
        return 0;
    }
    if (!cur)
        return err_set(err, errlen, EINVAL, "--%s '%s' must follow a --variant NAME", name, value);
    const char **slot = cmd                      ? &cur->cmd
                        : !strcmp(name, "opts")  ? &cur->opts
                        : !strcmp(name, "setup") ? &cur->setup
                                                 : &cur->teardown;
    if (*slot)
        return err_set(err, errlen, EINVAL, "--%s given twice for variant '%s'", name, cur->name);
    *slot = value;
    return 0;
}

/* A dotted path: components of letters, digits and '_', separated by single dots. */
static bool is_dotted_path(const char *s)
{
    if (!*s || *s == '.' || s[strlen(s) - 1] == '.' || strstr(s, ".."))
        return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
            return false;
    return strchr(s, '.') != NULL;
}

/*
 * --baseline NAME: moves that variant first, the others keeping their order;
 * -EINVAL naming the variants when there is none by that name.
 */
static int move_baseline(struct compare_config *cfg, const char *name, char *err, size_t errlen)
{
    size_t b = 0;
    while (b < cfg->nvariants && strcmp(cfg->variants[b].name, name))
        b++;
    if (b == cfg->nvariants) {
        char names[512] = "";
        for (size_t i = 0, u = 0; i < cfg->nvariants && u < sizeof(names); i++)
            u += (size_t)snprintf(names + u, sizeof(names) - u, "%s%s", i ? ", " : "",
                                  cfg->variants[i].name);
        return err_set(err, errlen, EINVAL, "--baseline: no variant '%s' (variants: %s)", name,
                       cfg->nvariants ? names : "none");
    }
    struct compare_variant keep = cfg->variants[b];
    memmove(cfg->variants + 1, cfg->variants, b * sizeof(cfg->variants[0]));
    cfg->variants[0] = keep;
    return 0;
}

/*
 * Each variant's command (its own --cmd or global_cmd), its opts split and
 * parsed; then --cmd for every variant or none. Sets *cmd when they use one.
 */
static int check_variants(struct compare_config *cfg, const char *global_cmd, bool *cmd, char *err,
                          size_t errlen)
{
    size_t with_cmd = 0;
    for (size_t i = 0; i < cfg->nvariants; i++) {
        struct compare_variant *v = &cfg->variants[i];
        if (!v->cmd)
            v->cmd = global_cmd;
        with_cmd += v->cmd != NULL;
        char why[NB_ERRLEN];
        if (words_split(v->opts ? v->opts : "", &v->words, why, sizeof(why)))
            return err_set(err, errlen, EINVAL, "--opts of variant '%s': %s", v->name, why);
        if (compare_variant_prepare(cfg, v, err, errlen))
            return -EINVAL;
    }
    if (with_cmd && with_cmd != cfg->nvariants)
        return err_set(err, errlen, EINVAL,
                       "either every variant has a --cmd or none has (give --cmd before the "
                       "first --variant to share one)");
    *cmd = with_cmd > 0;
    return 0;
}

/* --metric-json and --metric-regex: with --cmd exactly one of them, and well-formed. */
static int check_cmd_metric(const struct compare_config *cfg, bool cmd, char *err, size_t errlen)
{
    if (cmd && !cfg->metric_json == !cfg->metric_regex)
        return err_set(err, errlen, EINVAL,
                       "--cmd needs exactly one of --metric-json PATH or --metric-regex RE");
    if (!cmd && (cfg->metric_json || cfg->metric_regex))
        return err_set(err, errlen, EINVAL, "%s only applies to variants measured with --cmd",
                       cfg->metric_json ? "--metric-json" : "--metric-regex");
    if (cfg->metric_json && !is_dotted_path(cfg->metric_json) &&
        strspn(cfg->metric_json,
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") !=
            strlen(cfg->metric_json))
        return err_set(err, errlen, EINVAL,
                       "--metric-json: '%s' is not a dotted path such as end.sum.bits_per_second",
                       cfg->metric_json);
    char why[NB_ERRLEN];
    if (cfg->metric_regex && compare_regex_check(cfg->metric_regex, why, sizeof(why)))
        return err_set(err, errlen, EINVAL, "--metric-regex: %s", why);
    return 0;
}

/* --metric and the direction options for netab run variants. */
static int check_run_metric(const struct compare_config *cfg, char *err, size_t errlen)
{
    if (cfg->metric) {
        const struct compare_metric *m = compare_metric_find(cfg->metric);
        /* The names outgrew one message (cut short mid-name): --help lists them. */
        if (!m && !is_dotted_path(cfg->metric))
            return err_set(err, errlen, EINVAL,
                           "--metric: '%s' is neither a metric name ('netab compare --help' lists "
                           "them) nor a dotted path",
                           cfg->metric);
        if (m && cfg->direction_given)
            return err_set(err, errlen, EINVAL,
                           "--%s-is-better: the direction of '%s' is known; the option is "
                           "for dotted paths and --cmd",
                           cfg->lower_is_better ? "lower" : "higher", m->name);
    } else if (cfg->direction_given) {
        return err_set(err, errlen, EINVAL,
                       "--%s-is-better: the direction of throughput is known; the option "
                       "is for dotted paths (--metric) and --cmd",
                       cfg->lower_is_better ? "lower" : "higher");
    }
    return 0;
}

/* --format NAME into json or ktap; --json is --format json, so they cannot disagree. */
static int check_format(struct compare_config *cfg, char *err, size_t errlen)
{
    const char *f = cfg->format;
    if (!f)
        return 0;
    if (strcmp(f, "text") && strcmp(f, "json") && strcmp(f, "ktap"))
        return err_set(err, errlen, EINVAL, "--format: '%s' is not text, json or ktap", f);
    if (cfg->json && strcmp(f, "json"))
        return err_set(err, errlen, EINVAL,
                       "--json and --format %s cannot be combined: --json is --format json", f);
    cfg->json = !strcmp(f, "json");
    cfg->ktap = !strcmp(f, "ktap");
    return 0;
}

int compare_config_check(struct compare_config *cfg, const char *global_cmd, const char *baseline,
                         bool max_given, char *err, size_t errlen)
{
    if (max_given && cfg->until_ci == 0)
        return err_set(err, errlen, EINVAL, "--max-runs only applies with --until-ci PCT");
    if (cfg->until_ci > 0 && !max_given)
        cfg->max_runs = cfg->runs > 50 ? cfg->runs : 50;
    if (baseline && cfg->nvariants >= 2 && move_baseline(cfg, baseline, err, errlen))
        return -EINVAL;
    if (cfg->nvariants < 2)
        return err_set(err, errlen, EINVAL,
                       "need at least two variants (--variant NAME); the first is the baseline");
    bool cmd;
    if (check_variants(cfg, global_cmd, &cmd, err, errlen) ||
        check_cmd_metric(cfg, cmd, err, errlen) || (!cmd && check_run_metric(cfg, err, errlen)))
        return -EINVAL;
    if (check_format(cfg, err, errlen))
        return -EINVAL;
    if (cfg->until_ci > 0 && cfg->max_runs < cfg->runs)
        return err_set(err, errlen, EINVAL, "--max-runs %u is less than --runs %u", cfg->max_runs,
                       cfg->runs);
    return 0;
}
