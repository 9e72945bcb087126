/* The command line of `netab compare`: variants, schedule, judgement, output. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
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
    struct opt_given given;            /* --seed, --max-runs, --lower/higher-is-better */
    const char *global_cmd, *baseline; /* --cmd before the first --variant; --baseline */
    struct cli_plot fig;
};

static int set_variant(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen)
{
    (void)o;
    return compare_config_add_variant(field, value, err, errlen);
}

/* --opts, --setup, --teardown, --cmd after a --variant: that variant's, once. */
static int set_per_variant(void *field, const char *value, const struct opt *o, char *err,
                           size_t errlen)
{
    struct compare_args *a = field;
    return compare_config_variant_option(&a->cfg, &a->global_cmd, o->name, value, err, errlen);
}

/* --until-ci PCT: strictly between 0 and 100. */
static int set_until_ci(void *field, const char *value, const struct opt *o, char *err,
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

#define FIELD(f) offsetof(struct compare_args, f)
#define CFG(f) offsetof(struct compare_args, cfg.f)

static const struct opt options[] = {
    {"", 0, NULL, "variants (each option after --variant applies to that variant):", NULL, 0, 0, 0,
     NULL},
    {"variant", 0, "NAME", "start a variant; the first is the baseline", set_variant, FIELD(cfg), 0,
     0, NULL},
    {"opts", 0, "'OPTIONS'", "its options for 'netab run' (split like a shell, no expansion)",
     set_per_variant, 0, 0, 0, NULL},
    {"setup", 0, "CMD", "shell command before each of its runs (sysctl, ethtool -K, ...)",
     set_per_variant, 0, 0, 0, NULL},
    {"teardown", 0, "CMD", "shell command after each of its runs (also if setup failed)",
     set_per_variant, 0, 0, 0, NULL},
    {"cmd", 0, "CMD",
     "measure with an external command instead of 'netab run';\nbefore the first --variant: the "
     "command of every variant",
     set_per_variant, 0, 0, 0, NULL},
    {"metric-json", 0, "PATH", "--cmd: the number at this dotted path of its JSON output",
     opt_set_string, CFG(metric_json), 0, 0, NULL},
    {"metric-regex", 0, "RE", "--cmd: the capture group of RE's last match in its output",
     opt_set_string, CFG(metric_regex), 0, 0, NULL},
    {"", 0, NULL,
     "  -- RUN OPTIONS       options for every variant's 'netab run' (or appended to --cmd)", NULL,
     0, 0, 0, NULL},
    {"baseline", 0, "NAME", "compare the others with this variant (default: the first)",
     opt_set_string_once, FIELD(baseline), 0, 0, NULL},
    {"", 0, NULL, "\nschedule:", NULL, 0, 0, 0, NULL},
    {"runs", 0, "N", "measured runs per variant (default 5)", opt_set_unsigned, CFG(runs), 2,
     100000, NULL},
    {"warmup", 0, "W", "discarded warm-up runs per variant, run first (default 0)",
     opt_set_unsigned, CFG(warmup), 0, 1000, NULL},
    {"seed", 0, "N", "seed of the shuffled order and the bootstrap (default: random,\nprinted)",
     opt_set_u64, CFG(seed), 0, 0, NULL},
    {"prepare", 0, "CMD", "shell command before every run, after the variant's setup",
     opt_set_string, CFG(prepare), 0, 0, NULL},
    {"cooldown", 0, "SECONDS", "pause after every run (default 0)", opt_set_seconds, CFG(cooldown),
     0, 3600, NULL},
    {"until-ci", 0, "PCT",
     "add rounds until the confidence interval of every relative\nchange (with --pairs all, "
     "every pair's) is within +-PCT %,\nchecked at planned looks with a Bonferroni-corrected "
     "level\n(docs/compare.md)",
     set_until_ci, CFG(until_ci), 0, 0, NULL},
    {"max-runs", 0, "N", "--until-ci: at most N measured runs per variant (default 50)",
     opt_set_unsigned, CFG(max_runs), 2, 100000, NULL},
    {"timeout", 0, "SECONDS",
     "kill a run after this long (default 2 x (-t + -O) + 60 s,\n900 s with -n, 600 s with "
     "--cmd); hooks get 600 s",
     opt_set_seconds, CFG(timeout), 0.1, 86400, NULL},
    {"db", 0, "PATH",
     "keep the comparison as an experiment in this results store\n('netab experiment list', "
     "'netab report ID'); default: a\ntemporary store, removed at the end",
     opt_set_string, CFG(db), 0, 0, NULL},
    {"", 0, NULL, "\njudgement:", NULL, 0, 0, 0, NULL},
    {"metric", 0, "M",
     "the metric that decides the exit status: throughput (default),\na metric name (listed at "
     "the end), its path without 'end.'\n(cpu.local.process_us_per_kib), or a dotted path;\nwith "
     "--cmd: a name for the measured number",
     opt_set_nonempty, CFG(metric), 0, 0, NULL},
    {"lower-is-better", 0, NULL, "for a dotted path or --cmd: smaller is better", opt_set_true,
     CFG(lower_is_better), 0, 0, NULL},
    {"higher-is-better", 0, NULL, "for a dotted path or --cmd: larger is better (the default)",
     opt_set_false, CFG(lower_is_better), 0, 0, NULL},
    {"noise", 0, "PCT", "noise floor in percent of the baseline (default 1)", opt_set_pct,
     CFG(noise), 0, 99.99, NULL},
    CLI_CONFIDENCE_OPT(CFG(confidence)),
    {"pairs", 0, "all|baseline",
     "all: also compare every pair of variants on the deciding\nmetric, Bonferroni-corrected "
     "over the k = n(n-1)/2 pairs:\nevery interval, the baseline's too, at 1 - (1 - P)/k; the\n"
     "exit status still comes from the comparisons with the\nbaseline, made at that level; "
     "baseline (default): only those",
     cli_set_pairs, CFG(pairs_all), 0, 0, NULL},
    {"", 0, NULL, "\noutput:", NULL, 0, 0, 0, NULL},
    {"format", 0, "F", "text (default), json, or ktap (KTAP for kernel CI, docs/ci.md)",
     opt_set_string_once, CFG(format), 0, 0, NULL},
    {"json", 0, NULL, "--format json: one JSON document on stdout (progress stays\non stderr)",
     opt_set_true, CFG(json), 0, 0, NULL},
    {"no-plot", 0, NULL, "leave out the ASCII distribution plot of the text report", opt_set_false,
     CFG(plot), 0, 0, NULL},
    CLI_PLOT_OPTS(struct compare_args, fig, "FILE",
                  "also draw the deciding metric's distribution and changes"),
    {0},
};

static void print_metric_names(void)
{
    cli_print_metric_names(METRIC_COMPARE);
}

static const struct opt_table compare_cmd = {
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
    .given = OPT_GIVEN_AT(struct compare_args, given),
};

int cli_compare_parse(int argc, char **argv, struct compare_config *cfg)
{
    compare_config_init(cfg);
    struct compare_args a = {.cfg = *cfg};
    int rc = cli_opts_parse(&compare_cmd, argc, argv, &a);
    if (rc >= 0)
        return rc;
    a.cfg.seed_given = opt_given(&compare_cmd, &a, "seed");
    a.cfg.direction_given = opt_given(&compare_cmd, &a, "lower-is-better") ||
                            opt_given(&compare_cmd, &a, "higher-is-better");
    if (cli_run_words(CMD, argc, argv, &a.cfg.common, &a.cfg.ncommon) ||
        cli_plot_check(CMD, &a.fig))
        return EXIT_USAGE;
    a.cfg.figure = a.fig.path;
    a.cfg.figure_w = a.fig.width;
    a.cfg.figure_h = a.fig.height;
    a.cfg.figure_log = a.fig.log;
    a.cfg.figure_axis = a.fig.axis;
    /* From here cfg owns what the checks allocate (the variants' words). */
    *cfg = a.cfg;
    char err[NB_ERRLEN * 2];
    if (compare_config_check(cfg, a.global_cmd, a.baseline, opt_given(&compare_cmd, &a, "max-runs"),
                             err, sizeof(err)))
        return cli_usage_error(CMD, "%s", err);
    return -1;
}
