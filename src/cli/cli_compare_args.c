/* The command line of `netab compare`: variants, schedule, judgement, output. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "cli/cli_compare.h"
#include "cli/cli_plot.h"
#include "compare/config.h"
#include "metric/metric.h"

#define CMD "compare"

/* The command line before compare_config_check() completes it. */
struct compare_args {
    struct compare_config cfg;
    bool max_given;
    const char *global_cmd, *baseline; /* --cmd before the first --variant; --baseline */
    struct cli_plot fig;
};

static int set_variant(void *field, const char *value, const struct cli_opt *o, char *err,
                       size_t errlen)
{
    (void)o;
    return compare_config_add_variant(field, value, err, errlen);
}

/* --opts, --setup, --teardown, --cmd after a --variant: that variant's, once. */
static int set_per_variant(void *field, const char *value, const struct cli_opt *o, char *err,
                           size_t errlen)
{
    struct compare_args *a = field;
    struct compare_config *cfg = &a->cfg;
    struct compare_variant *cur = cfg->nvariants ? &cfg->variants[cfg->nvariants - 1] : NULL;
    bool cmd = !strcmp(o->name, "cmd");
    if (cmd && !*value)
        return err_set(err, errlen, EINVAL, "--cmd: the command must not be empty");
    if (cmd && !cur) {
        if (a->global_cmd)
            return err_set(err, errlen, EINVAL, "--cmd given twice before the first --variant");
        a->global_cmd = value;
        return 0;
    }
    if (!cur)
        return err_set(err, errlen, EINVAL, "--%s '%s' must follow a --variant NAME", o->name,
                       value);
    const char **slot = cmd                         ? &cur->cmd
                        : !strcmp(o->name, "opts")  ? &cur->opts
                        : !strcmp(o->name, "setup") ? &cur->setup
                                                    : &cur->teardown;
    if (*slot)
        return err_set(err, errlen, EINVAL, "--%s given twice for variant '%s'", o->name,
                       cur->name);
    *slot = value;
    return 0;
}

static int set_seed(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    struct compare_config *cfg = field;
    char *e;
    (void)o;
    errno = 0;
    unsigned long long u = strtoull(value, &e, 10);
    if (e == value || *e || errno || value[0] == '-')
        return err_set(err, errlen, EINVAL, "--seed: '%s' is not a whole number", value);
    cfg->seed = u;
    cfg->seed_given = true;
    return 0;
}

/* --until-ci PCT: strictly between 0 and 100. */
static int set_until_ci(void *field, const char *value, const struct cli_opt *o, char *err,
                        size_t errlen)
{
    char *e;
    (void)o;
    errno = 0;
    double v = strtod(value, &e);
    if (e == value || *e || errno || !isfinite(v) || v <= 0 || v >= 100)
        return err_set(err, errlen, EINVAL,
                       "--until-ci: '%s' is not a number strictly between 0 and 100", value);
    *(double *)field = v / 100;
    return 0;
}

static int set_max_runs(void *field, const char *value, const struct cli_opt *o, char *err,
                        size_t errlen)
{
    struct compare_args *a = field;
    a->max_given = true;
    return cli_set_unsigned(&a->cfg.max_runs, value, o, err, errlen);
}

static int set_direction(void *field, const char *value, const struct cli_opt *o, char *err,
                         size_t errlen)
{
    struct compare_config *cfg = field;
    (void)value;
    (void)err;
    (void)errlen;
    cfg->lower_is_better = !strcmp(o->name, "lower-is-better");
    cfg->direction_given = true;
    return 0;
}

static int set_metric(void *field, const char *value, const struct cli_opt *o, char *err,
                      size_t errlen)
{
    (void)o;
    if (!*value)
        return err_set(err, errlen, EINVAL, "--metric: the metric must not be empty");
    *(const char **)field = value;
    return 0;
}

static int set_baseline(void *field, const char *value, const struct cli_opt *o, char *err,
                        size_t errlen)
{
    (void)o;
    if (*(const char **)field)
        return err_set(err, errlen, EINVAL, "--baseline given twice");
    *(const char **)field = value;
    return 0;
}

static int set_pairs(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    (void)o;
    if (strcmp(value, "all") && strcmp(value, "baseline"))
        return err_set(err, errlen, EINVAL, "--pairs: '%s' is not all or baseline", value);
    *(bool *)field = !strcmp(value, "all");
    return 0;
}

#define FIELD(f) offsetof(struct compare_args, f)
#define CFG(f) offsetof(struct compare_args, cfg.f)

static const struct cli_opt options[] = {
    {"", 0, NULL, "variants (each option after --variant applies to that variant):", NULL, 0, 0, 0},
    {"variant", 0, "NAME", "start a variant; the first is the baseline", set_variant, FIELD(cfg), 0,
     0},
    {"opts", 0, "'OPTIONS'", "its options for 'netab run' (split like a shell, no expansion)",
     set_per_variant, 0, 0, 0},
    {"setup", 0, "CMD", "shell command before each of its runs (sysctl, ethtool -K, ...)",
     set_per_variant, 0, 0, 0},
    {"teardown", 0, "CMD", "shell command after each of its runs (also if setup failed)",
     set_per_variant, 0, 0, 0},
    {"cmd", 0, "CMD",
     "measure with an external command instead of 'netab run';\nbefore the first --variant: the "
     "command of every variant",
     set_per_variant, 0, 0, 0},
    {"metric-json", 0, "PATH", "--cmd: the number at this dotted path of its JSON output",
     cli_set_string, CFG(metric_json), 0, 0},
    {"metric-regex", 0, "RE", "--cmd: the capture group of RE's last match in its output",
     cli_set_string, CFG(metric_regex), 0, 0},
    {"", 0, NULL,
     "  -- RUN OPTIONS       options for every variant's 'netab run' (or appended to --cmd)", NULL,
     0, 0, 0},
    {"baseline", 0, "NAME", "compare the others with this variant (default: the first)",
     set_baseline, FIELD(baseline), 0, 0},
    {"", 0, NULL, "\nschedule:", NULL, 0, 0, 0},
    {"runs", 0, "N", "measured runs per variant (default 5)", cli_set_unsigned, CFG(runs), 2,
     100000},
    {"warmup", 0, "W", "discarded warm-up runs per variant, run first (default 0)",
     cli_set_unsigned, CFG(warmup), 0, 1000},
    {"seed", 0, "N", "seed of the shuffled order and the bootstrap (default: random,\nprinted)",
     set_seed, FIELD(cfg), 0, 0},
    {"prepare", 0, "CMD", "shell command before every run, after the variant's setup",
     cli_set_string, CFG(prepare), 0, 0},
    {"cooldown", 0, "SECONDS", "pause after every run (default 0)", cli_set_seconds, CFG(cooldown),
     0, 3600},
    {"until-ci", 0, "PCT",
     "add rounds until the confidence interval of every relative\nchange (with --pairs all, "
     "every pair's) is within +-PCT %,\nchecked at planned looks with a Bonferroni-corrected "
     "level\n(docs/compare.md)",
     set_until_ci, CFG(until_ci), 0, 0},
    {"max-runs", 0, "N", "--until-ci: at most N measured runs per variant (default 50)",
     set_max_runs, 0, 2, 100000},
    {"timeout", 0, "SECONDS",
     "kill a run after this long (default 2 x (-t + -O) + 60 s,\n900 s with -n, 600 s with "
     "--cmd); hooks get 600 s",
     cli_set_seconds, CFG(timeout), 0.1, 86400},
    {"db", 0, "PATH",
     "keep the comparison as an experiment in this results store\n('netab experiment list', "
     "'netab report ID'); default: a\ntemporary store, removed at the end",
     cli_set_string, CFG(db), 0, 0},
    {"", 0, NULL, "\njudgement:", NULL, 0, 0, 0},
    {"metric", 0, "M",
     "the metric that decides the exit status: throughput (default),\na metric name (listed at "
     "the end), its path without 'end.'\n(cpu.local.process_us_per_kib), or a dotted path;\nwith "
     "--cmd: a name for the measured number",
     set_metric, CFG(metric), 0, 0},
    {"lower-is-better", 0, NULL, "for a dotted path or --cmd: smaller is better", set_direction,
     FIELD(cfg), 0, 0},
    {"higher-is-better", 0, NULL, "for a dotted path or --cmd: larger is better (the default)",
     set_direction, FIELD(cfg), 0, 0},
    {"noise", 0, "PCT", "noise floor in percent of the baseline (default 1)", cli_set_pct,
     CFG(noise), 0, 99.99},
    {"confidence", 0, "P", "confidence level in percent, 50..99.99 (default 95)", cli_set_pct,
     CFG(confidence), 50, 99.99},
    {"pairs", 0, "all|baseline",
     "all: also compare every pair of variants on the deciding\nmetric, Bonferroni-corrected "
     "over the k = n(n-1)/2 pairs:\nevery interval, the baseline's too, at 1 - (1 - P)/k; the\n"
     "exit status still comes from the comparisons with the\nbaseline, made at that level; "
     "baseline (default): only those",
     set_pairs, CFG(pairs_all), 0, 0},
    {"", 0, NULL, "\noutput:", NULL, 0, 0, 0},
    {"json", 0, NULL, "one JSON document on stdout (progress stays on stderr)", cli_set_true,
     CFG(json), 0, 0},
    {"no-plot", 0, NULL, "leave out the ASCII distribution plot of the text report", cli_set_false,
     CFG(plot), 0, 0},
    CLI_PLOT_OPTS(struct compare_args, fig, "FILE",
                  "also draw the deciding metric's distribution and changes"),
    {0},
};

static void print_metric_names(void)
{
    cli_print_metric_names(METRIC_COMPARE);
}

static const struct cli_cmd compare_cmd = {
    .name = CMD,
    .usage = "usage: netab compare [options] --variant A [A's options] --variant B ... [-- RUN "
             "OPTIONS]\n"
             "\n"
             "Runs each variant's test in a randomized, interleaved schedule and compares\n"
             "every variant with the first one (the baseline): throughput, service demand\n"
             "(CPU cost), and latency percentiles and loss where the test has them.\n"
             "\n",
    .tail = "\n"
            "exit status: 0 no regression beyond the noise floor in the deciding metric;\n"
            "1 regression; 2 bad usage, or a variant with fewer than 2 successful runs.\n",
    .opts = options,
    /* Stop at "--" or the first non-option, so that order is kept and -- ends our options. */
    .in_order = true,
    .more_help = print_metric_names,
};

int cli_compare_parse(int argc, char **argv, struct compare_config *cfg)
{
    compare_config_init(cfg);
    struct compare_args a = {.cfg = *cfg};
    int rc = cli_opts_parse(&compare_cmd, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (optind < argc) {
        /* getopt stopped at "--" (and skipped it) or at a stray argument. */
        if (strcmp(argv[optind - 1], "--"))
            return cli_usage_error(CMD,
                                   "unexpected argument '%s' (options for every run go after "
                                   "--)",
                                   argv[optind]);
        a.cfg.common = argv + optind;
        a.cfg.ncommon = (size_t)(argc - optind);
    }
    if (cli_plot_check(CMD, &a.fig))
        return EXIT_USAGE;
    a.cfg.figure = a.fig.path;
    a.cfg.figure_w = a.fig.width;
    a.cfg.figure_h = a.fig.height;
    a.cfg.figure_log = a.fig.log;
    a.cfg.figure_axis = a.fig.axis;
    /* From here cfg owns what the checks allocate (the variants' words). */
    *cfg = a.cfg;
    char err[NB_ERRLEN * 2];
    if (compare_config_check(cfg, a.global_cmd, a.baseline, a.max_given, err, sizeof(err)))
        return cli_usage_error(CMD, "%s", err);
    return -1;
}
