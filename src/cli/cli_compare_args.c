/* The command line of `netab compare`: variants, schedule, judgement, output. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_compare.h"
#include "cli/cli_plot.h"
#include "compare/config.h"
#include "metric/metric.h"

#define CMD "compare"

static const char usage_text[] =
    "usage: netab compare [options] --variant A [A's options] --variant B ... [-- RUN "
    "OPTIONS]\n"
    "\n"
    "Runs each variant's test in a randomized, interleaved schedule and compares\n"
    "every variant with the first one (the baseline): throughput, service demand\n"
    "(CPU cost), and latency percentiles and loss where the test has them.\n"
    "\n"
    "variants (each option after --variant applies to that variant):\n"
    "  --variant NAME       start a variant; the first is the baseline\n"
    "  --opts 'OPTIONS'     its options for 'netab run' (split like a shell, no expansion)\n"
    "  --setup CMD          shell command before each of its runs (sysctl, ethtool -K, ...)\n"
    "  --teardown CMD       shell command after each of its runs (also if setup failed)\n"
    "  --cmd CMD            measure with an external command instead of 'netab run';\n"
    "                       before the first --variant: the command of every variant\n"
    "  --metric-json PATH   --cmd: the number at this dotted path of its JSON output\n"
    "  --metric-regex RE    --cmd: the capture group of RE's last match in its output\n"
    "  -- RUN OPTIONS       options for every variant's 'netab run' (or appended to --cmd)\n"
    "  --baseline NAME      compare the others with this variant (default: the first)\n"
    "\n"
    "schedule:\n"
    "  --runs N             measured runs per variant (default 5)\n"
    "  --warmup W           discarded warm-up runs per variant, run first (default 0)\n"
    "  --seed N             seed of the shuffled order and the bootstrap (default: random,\n"
    "                       printed)\n"
    "  --prepare CMD        shell command before every run, after the variant's setup\n"
    "  --cooldown SECONDS   pause after every run (default 0)\n"
    "  --until-ci PCT       add rounds until the confidence interval of every relative\n"
    "                       change (with --pairs all, every pair's) is within +-PCT %,\n"
    "                       checked at planned looks with a Bonferroni-corrected level\n"
    "                       (docs/compare.md)\n"
    "  --max-runs N         --until-ci: at most N measured runs per variant (default 50)\n"
    "  --timeout SECONDS    kill a run after this long (default 2 x (-t + -O) + 60 s,\n"
    "                       900 s with -n, 600 s with --cmd); hooks get 600 s\n"
    "  --db PATH            keep the comparison as an experiment in this results store\n"
    "                       ('netab experiment list', 'netab report ID'); default: a\n"
    "                       temporary store, removed at the end\n"
    "\n"
    "judgement:\n"
    "  --metric M           the metric that decides the exit status: throughput (default),\n"
    "                       a metric name (listed at the end), its path without 'end.'\n"
    "                       (cpu.local.process_us_per_kib), or a dotted path;\n"
    "                       with --cmd: a name for the measured number\n"
    "  --lower-is-better    for a dotted path or --cmd: smaller is better\n"
    "  --higher-is-better   for a dotted path or --cmd: larger is better (the default)\n"
    "  --noise PCT          noise floor in percent of the baseline (default 1)\n"
    "  --confidence P       confidence level in percent, 50..99.99 (default 95)\n"
    "  --pairs all|baseline all: also compare every pair of variants on the deciding\n"
    "                       metric, Bonferroni-corrected over the k = n(n-1)/2 pairs:\n"
    "                       every interval, the baseline's too, at 1 - (1 - P)/k; the\n"
    "                       exit status still comes from the comparisons with the\n"
    "                       baseline, made at that level; baseline (default): only those\n"
    "\n"
    "output:\n"
    "  --json               one JSON document on stdout (progress stays on stderr)\n"
    "  --no-plot            leave out the ASCII distribution plot of the text "
    "report\n" CLI_PLOT_USAGE("FILE", "also draw the deciding metric's distribution and "
                                      "changes") "  -h, --help           this text\n"
                                                 "\n"
                                                 "exit status: 0 no regression beyond the "
                                                 "noise floor in the deciding metric;\n"
                                                 "1 regression; 2 bad usage, or a variant with "
                                                 "fewer than 2 successful runs.\n";

enum {
    OPT_VARIANT = 256,
    OPT_OPTS,
    OPT_SETUP,
    OPT_TEARDOWN,
    OPT_CMDLINE,
    OPT_METRIC_JSON,
    OPT_METRIC_REGEX,
    OPT_RUNS,
    OPT_WARMUP,
    OPT_SEED,
    OPT_PREPARE,
    OPT_COOLDOWN,
    OPT_UNTIL_CI,
    OPT_MAX_RUNS,
    OPT_TIMEOUT,
    OPT_DB,
    OPT_METRIC,
    OPT_LOWER,
    OPT_HIGHER,
    OPT_NOISE,
    OPT_CONFIDENCE,
    OPT_JSON,
    OPT_NOPLOT,
    OPT_BASELINE,
    OPT_PAIRS,
};

static const struct option long_opts[] = {
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"opts", required_argument, NULL, OPT_OPTS},
    {"setup", required_argument, NULL, OPT_SETUP},
    {"teardown", required_argument, NULL, OPT_TEARDOWN},
    {"cmd", required_argument, NULL, OPT_CMDLINE},
    {"metric-json", required_argument, NULL, OPT_METRIC_JSON},
    {"metric-regex", required_argument, NULL, OPT_METRIC_REGEX},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"seed", required_argument, NULL, OPT_SEED},
    {"prepare", required_argument, NULL, OPT_PREPARE},
    {"cooldown", required_argument, NULL, OPT_COOLDOWN},
    {"until-ci", required_argument, NULL, OPT_UNTIL_CI},
    {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"db", required_argument, NULL, OPT_DB},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"lower-is-better", no_argument, NULL, OPT_LOWER},
    {"higher-is-better", no_argument, NULL, OPT_HIGHER},
    {"noise", required_argument, NULL, OPT_NOISE},
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    {"json", no_argument, NULL, OPT_JSON},
    {"no-plot", no_argument, NULL, OPT_NOPLOT},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"pairs", required_argument, NULL, OPT_PAIRS},
    CLI_PLOT_LONG_OPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A finite number in [lo, hi], or (lo, hi) when open. */
static bool parse_real(const char *opt, const char *s, double lo, double hi, bool open, double *out)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(v) || v < lo || v > hi ||
        (open && (v == lo || v == hi))) {
        cli_usage_error(CMD, "%s: '%s' is not a number %s %g and %g", opt, s,
                        open ? "strictly between" : "between", lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* Sets *slot to value for the current variant, refusing a second value or a missing --variant. */
static bool per_variant(struct compare_config *cfg, const char *opt, const char *value,
                        const char **slot_of_current)
{
    (void)cfg;
    if (!slot_of_current) {
        cli_usage_error(CMD, "%s '%s' must follow a --variant NAME", opt, value);
        return false;
    }
    if (*slot_of_current) {
        cli_usage_error(CMD, "%s given twice for variant '%s'", opt,
                        cfg->variants[cfg->nvariants - 1].name);
        return false;
    }
    *slot_of_current = value;
    return true;
}

int cli_compare_parse(int argc, char **argv, struct compare_config *cfg)
{
    compare_config_init(cfg);
    bool max_given = false;
    const char *global_cmd = NULL, *baseline = NULL;
    struct cli_plot fig = {0};
    opterr = 0;
    optind = 1;
    int c;
    char perr[NB_ERRLEN];
    long l;
    double d = 0;
    /* '+': stop at "--" or the first non-option, so that order is kept and -- ends our options. */
    while ((c = optmatch_next(argc, argv, "+:h", long_opts)) != -1) {
        struct compare_variant *cur = cfg->nvariants ? &cfg->variants[cfg->nvariants - 1] : NULL;
        switch (c) {
        case OPT_VARIANT:
            if (compare_config_add_variant(cfg, optarg, perr, sizeof(perr)))
                return cli_usage_error(CMD, "%s", perr);
            break;
        case OPT_OPTS:
            if (!per_variant(cfg, "--opts", optarg, cur ? &cur->opts : NULL))
                return EXIT_USAGE;
            break;
        case OPT_SETUP:
            if (!per_variant(cfg, "--setup", optarg, cur ? &cur->setup : NULL))
                return EXIT_USAGE;
            break;
        case OPT_TEARDOWN:
            if (!per_variant(cfg, "--teardown", optarg, cur ? &cur->teardown : NULL))
                return EXIT_USAGE;
            break;
        case OPT_CMDLINE:
            if (!*optarg)
                return cli_usage_error(CMD, "--cmd: the command must not be empty");
            if (!cur) {
                if (global_cmd)
                    return cli_usage_error(CMD, "--cmd given twice before the first --variant");
                global_cmd = optarg;
            } else if (!per_variant(cfg, "--cmd", optarg, &cur->cmd)) {
                return EXIT_USAGE;
            }
            break;
        case OPT_METRIC_JSON:
            cfg->metric_json = optarg;
            break;
        case OPT_METRIC_REGEX:
            cfg->metric_regex = optarg;
            break;
        case OPT_RUNS:
            if (!optval_int("--runs", optarg, 2, 100000, &l, perr, sizeof(perr)))
                return cli_usage_error(CMD, "%s", perr);
            cfg->runs = (unsigned)l;
            break;
        case OPT_WARMUP:
            if (!optval_int("--warmup", optarg, 0, 1000, &l, perr, sizeof(perr)))
                return cli_usage_error(CMD, "%s", perr);
            cfg->warmup = (unsigned)l;
            break;
        case OPT_SEED: {
            char *e;
            errno = 0;
            unsigned long long u = strtoull(optarg, &e, 10);
            if (e == optarg || *e || errno || optarg[0] == '-')
                return cli_usage_error(CMD, "--seed: '%s' is not a whole number", optarg);
            cfg->seed = u;
            cfg->seed_given = true;
            break;
        }
        case OPT_PREPARE:
            cfg->prepare = optarg;
            break;
        case OPT_COOLDOWN:
            if (!optval_seconds("--cooldown", optarg, 0, 3600, &cfg->cooldown, perr, sizeof(perr)))
                return cli_usage_error(CMD, "%s", perr);
            break;
        case OPT_UNTIL_CI:
            if (!parse_real("--until-ci", optarg, 0, 100, true, &d))
                return EXIT_USAGE;
            cfg->until_ci = d / 100;
            break;
        case OPT_MAX_RUNS:
            if (!optval_int("--max-runs", optarg, 2, 100000, &l, perr, sizeof(perr)))
                return cli_usage_error(CMD, "%s", perr);
            cfg->max_runs = (unsigned)l;
            max_given = true;
            break;
        case OPT_TIMEOUT:
            if (!optval_seconds("--timeout", optarg, 0.1, 86400, &cfg->timeout, perr, sizeof(perr)))
                return cli_usage_error(CMD, "%s", perr);
            break;
        case OPT_METRIC:
            if (!*optarg)
                return cli_usage_error(CMD, "--metric: the metric must not be empty");
            cfg->metric = optarg;
            break;
        case OPT_LOWER:
        case OPT_HIGHER:
            cfg->lower_is_better = c == OPT_LOWER;
            cfg->direction_given = true;
            break;
        case OPT_NOISE:
            if (!parse_real("--noise", optarg, 0, 99.99, false, &d))
                return EXIT_USAGE;
            cfg->noise = d / 100;
            break;
        case OPT_CONFIDENCE:
            if (!parse_real("--confidence", optarg, 50, 99.99, false, &d))
                return EXIT_USAGE;
            cfg->confidence = d / 100;
            break;
        case OPT_JSON:
            cfg->json = true;
            break;
        case OPT_DB:
            cfg->db = optarg;
            break;
        case OPT_NOPLOT:
            cfg->plot = false;
            break;
        case OPT_BASELINE:
            if (baseline)
                return cli_usage_error(CMD, "--baseline given twice");
            baseline = optarg;
            break;
        case OPT_PAIRS:
            if (strcmp(optarg, "all") && strcmp(optarg, "baseline"))
                return cli_usage_error(CMD, "--pairs: '%s' is not all or baseline", optarg);
            cfg->pairs_all = !strcmp(optarg, "all");
            break;
        case 'h':
            fputs(usage_text, stdout);
            cli_print_metric_names(METRIC_COMPARE);
            return EXIT_OK;
        case ':':
            return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
        default:
            if ((l = cli_plot_option(CMD, c, optarg, &fig)) >= 0) {
                if (l)
                    return (int)l;
                break;
            }
            return cli_unknown_option(CMD, argv, long_opts);
        }
    }
    if (optind < argc) {
        /* getopt stopped at "--" (and skipped it) or at a stray argument. */
        if (strcmp(argv[optind - 1], "--"))
            return cli_usage_error(CMD,
                                   "unexpected argument '%s' (options for every run go after "
                                   "--)",
                                   argv[optind]);
        cfg->common = argv + optind;
        cfg->ncommon = (size_t)(argc - optind);
    }
    if (cli_plot_check(CMD, &fig))
        return EXIT_USAGE;
    cfg->figure = fig.path;
    cfg->figure_w = fig.width;
    cfg->figure_h = fig.height;
    cfg->figure_log = fig.log;
    cfg->figure_axis = fig.axis;
    char err[NB_ERRLEN * 2];
    if (compare_config_check(cfg, global_cmd, baseline, max_given, err, sizeof(err)))
        return cli_usage_error(CMD, "%s", err);
    return -1;
}
