/* The command line of `netab bisect run|step|resume` (docs/bisect.md). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_bisect.h"
#include "cli/cli_common.h"

#define CMD "bisect"

const char cli_bisect_usage[] =
    "usage: netab bisect run --good REV --bad REV [options] [-- RUN OPTIONS]\n"
    "       netab bisect step [--good REV --bad REV] [options] [-- RUN OPTIONS]\n"
    "       netab bisect resume [--db PATH] [--id N] [--json]\n"
    "\n"
    "Finds the first commit between GOOD and BAD whose measurement is like BAD's,\n"
    "run in a git work tree. GOOD and BAD are measured interleaved first and must\n"
    "differ beyond the noise floor; then at every step git bisect checks out, the\n"
    "commit is built, and its runs are interleaved with fresh runs of GOOD (whose\n"
    "tree is extracted and built in a temporary directory). The commit is bad when\n"
    "the whole interval of its change against GOOD lies beyond the midpoint between\n"
    "GOOD and BAD, good when wholly before it; undecided after --max-runs: skipped.\n"
    "'step' is one such decision for 'git bisect run' (exit 0 good, 1 bad, 125 skip).\n"
    "\n"
    "  --good REV, --bad REV  the references (step: default the bisection's first marks)\n"
    "  --build CMD          shell command building the tree, in its top directory;\n"
    "                       a commit whose build fails is skipped, not called bad\n"
    "  --build-timeout S    seconds a build may take (default 3600)\n"
    "  --setup CMD          shell command before each run, in the tree measured\n"
    "  --experiment FILE    boot the file's dut: into each side's build ({commit} in its\n"
    "                       one variant's boot and expect) and check its identity\n"
    "  --runs N             measured runs per side before the first look (default 5)\n"
    "  --max-runs M         sequential looks up to M runs per side (default 20)\n"
    "  --warmup W           discarded warm-up runs per side (default 0)\n"
    "  --seed N             seed of the order and the bootstrap (default: random)\n"
    "  --metric M           the deciding metric (as netab compare; default throughput)\n"
    "  --lower-is-better, --higher-is-better  direction of a dotted-path metric\n"
    "  --noise PCT          noise floor of the references (default 1)\n"
    "  --confidence P       confidence level in percent (default 95)\n"
    "  --timeout S          kill a run after S seconds (default as netab compare)\n"
    "  --db PATH            results store (default $NETAB_DB or ~/.local/share/netab/results.db)\n"
    "  --id N               resume: the session (default the newest unfinished one)\n"
    "  --json               one JSON document on stdout\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: run/resume: 0 first bad commit found, 1 only skipped commits left\n"
    "(the range is printed), 2 bad usage, refusal, error or a DUT that never came\n"
    "back (resume continues); step: 0 good, 1 bad, 125 skip, 128 error (git bisect\n"
    "run then stops).\n";

enum {
    OPT_GOOD = 256,
    OPT_BAD,
    OPT_BUILD,
    OPT_BUILD_TIMEOUT,
    OPT_SETUP,
    OPT_RUNS,
    OPT_MAX_RUNS,
    OPT_WARMUP,
    OPT_SEED,
    OPT_METRIC,
    OPT_LOWER,
    OPT_HIGHER,
    OPT_NOISE,
    OPT_CONFIDENCE,
    OPT_TIMEOUT,
    OPT_DB,
    OPT_ID,
    OPT_JSON,
    OPT_EXPERIMENT,
};

static const struct option long_opts[] = {
    {"good", required_argument, NULL, OPT_GOOD},
    {"bad", required_argument, NULL, OPT_BAD},
    {"build", required_argument, NULL, OPT_BUILD},
    {"build-timeout", required_argument, NULL, OPT_BUILD_TIMEOUT},
    {"setup", required_argument, NULL, OPT_SETUP},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"seed", required_argument, NULL, OPT_SEED},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"lower-is-better", no_argument, NULL, OPT_LOWER},
    {"higher-is-better", no_argument, NULL, OPT_HIGHER},
    {"noise", required_argument, NULL, OPT_NOISE},
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"db", required_argument, NULL, OPT_DB},
    {"id", required_argument, NULL, OPT_ID},
    {"json", no_argument, NULL, OPT_JSON},
    {"experiment", required_argument, NULL, OPT_EXPERIMENT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A number option into *out; false after printing the usage error. */
static bool num(const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *e;
    errno = 0;
    double v = strtod(arg, &e);
    if (e == arg || *e || errno || !isfinite(v) || v < lo || v > hi) {
        cli_usage_error(CMD, "%s: '%s' is not a number between %g and %g", opt, arg, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* Applies one parsed option; EXIT_USAGE after an error, -1 to go on. */
/* The options with a number: EXIT_USAGE after an error, -1 to go on. */
static int apply_number(int c, struct cli_bisect_args *a)
{
    struct bisect_config *cfg = &a->cfg;
    double d = 0;
    switch (c) {
    case OPT_BUILD_TIMEOUT:
        return num("--build-timeout", optarg, 1, 7 * 86400, &cfg->build_timeout) ? -1 : EXIT_USAGE;
    case OPT_TIMEOUT:
        return num("--timeout", optarg, 1, 86400, &cfg->timeout) ? -1 : EXIT_USAGE;
    case OPT_NOISE:
        if (!num("--noise", optarg, 0, 100, &d))
            return EXIT_USAGE;
        cfg->noise = d / 100;
        return -1;
    case OPT_CONFIDENCE:
        if (!num("--confidence", optarg, 50, 99.99, &d))
            return EXIT_USAGE;
        cfg->confidence = d / 100;
        return -1;
    default: /* --runs, --max-runs, --warmup */
        if (!num(c == OPT_RUNS     ? "--runs"
                 : c == OPT_WARMUP ? "--warmup"
                                   : "--max-runs",
                 optarg, c == OPT_WARMUP ? 0 : 2, 1000, &d))
            return EXIT_USAGE;
        if (d != floor(d))
            return cli_usage_error(CMD, "'%s' is not a whole number", optarg);
        *(c == OPT_RUNS     ? &cfg->runs
          : c == OPT_WARMUP ? &cfg->warmup
                            : &cfg->max_runs) = (unsigned)d;
        a->max_given |= c == OPT_MAX_RUNS;
        return -1;
    }
}

/* --seed and --id: EXIT_USAGE after an error, -1 to go on. */
static int apply_id(int c, struct cli_bisect_args *a)
{
    char *e;
    errno = 0;
    unsigned long long u = strtoull(optarg, &e, 10);
    if (e == optarg || *e || errno || *optarg == '-' || (c == OPT_ID && (!u || u > INT64_MAX)))
        return cli_usage_error(CMD, "%s: '%s' is not a %s", c == OPT_ID ? "--id" : "--seed", optarg,
                               c == OPT_ID ? "session id" : "whole number");
    if (c == OPT_ID) {
        a->id = (int64_t)u;
    } else {
        a->cfg.seed = u;
        a->seed_given = true;
    }
    return -1;
}

/* Applies one parsed option; EXIT_USAGE after an error, EXIT_OK after --help, -1 to go on. */
static int apply(int c, struct cli_bisect_args *a)
{
    struct bisect_config *cfg = &a->cfg;
    switch (c) {
    case OPT_GOOD:
        cfg->good = optarg;
        return -1;
    case OPT_BAD:
        cfg->bad = optarg;
        return -1;
    case OPT_BUILD:
        cfg->build = optarg;
        return -1;
    case OPT_SETUP:
        cfg->setup = optarg;
        return -1;
    case OPT_EXPERIMENT:
        cfg->experiment = optarg;
        return -1;
    case OPT_METRIC:
        cfg->metric = optarg;
        return -1;
    case OPT_DB:
        a->db_given = optarg;
        return -1;
    case OPT_JSON:
        a->json = true;
        return -1;
    case OPT_LOWER:
    case OPT_HIGHER:
        cfg->lower_is_better = c == OPT_LOWER;
        cfg->direction_given = true;
        return -1;
    case OPT_BUILD_TIMEOUT:
    case OPT_TIMEOUT:
    case OPT_NOISE:
    case OPT_CONFIDENCE:
    case OPT_RUNS:
    case OPT_MAX_RUNS:
    case OPT_WARMUP:
        return apply_number(c, a);
    case OPT_SEED:
    case OPT_ID:
        return apply_id(c, a);
    case 'h':
        fputs(cli_bisect_usage, stdout);
        return EXIT_OK;
    case ':':
        return cli_usage_error(CMD, "option '%s' needs a value", a->argv[optind - 1]);
    default:
        return cli_usage_error(CMD, "unknown option '%s'", a->argv[optind - 1]);
    }
}

int cli_bisect_parse(int argc, char **argv, struct cli_bisect_args *a)
{
    memset(a, 0, sizeof(*a));
    a->argv = argv;
    struct bisect_config *cfg = &a->cfg;
    cfg->runs = 5;
    cfg->max_runs = 20;
    cfg->noise = 0.01;
    cfg->confidence = 0.95;
    cfg->self = "/proc/self/exe";
    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1)
        if ((rc = apply(c, a)) >= 0)
            return rc;
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--"))
            return cli_usage_error(CMD,
                                   "unexpected argument '%s' (options for every run go "
                                   "after --)",
                                   argv[optind]);
        cfg->common = argv + optind;
        cfg->ncommon = (size_t)(argc - optind);
    }
    if (!a->max_given && cfg->max_runs < cfg->runs)
        cfg->max_runs = cfg->runs;
    if (cfg->max_runs < cfg->runs)
        return cli_usage_error(CMD, "--max-runs %u is below --runs %u", cfg->max_runs, cfg->runs);
    char err[NB_ERRLEN];
    if (store_default_path(a->db_given, a->db, sizeof(a->db), err, sizeof(err))) {
        fprintf(stderr, "netab bisect: %s\n", err);
        return EXIT_USAGE;
    }
    cfg->db = a->db;
    return -1;
}
