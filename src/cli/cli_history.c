/*
 * `netab history`: a metric across stored experiments (or a CSV of label,
 * value) in time order, with change points by E-divisive means
 * (docs/history.md). Text (a table to paste into a mail), JSON, a figure.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "history/changes.h"
#include "plot/plot.h"
#include "store/store.h"

#define CMD "history"
#define MAX_DBS 16

static const char usage_text[] =
    "usage: netab history [--db PATH]... [--metric M] [--variant V]\n"
    "                     [--by experiment|commit|kernel]\n"
    "       netab history --csv FILE\n"
    "\n"
    "One metric of each variant (or of --variant V) across the experiments of one\n"
    "or several results stores, in order of creation, and its change points found\n"
    "by E-divisive means: each with the point where it starts, the means before\n"
    "and after, the change with its interval and the permutation test's p-value.\n"
    "\n"
    "  --db PATH            a results store; repeat for several (default: $NETAB_DB,\n"
    "                       else ~/.local/share/netab/results.db)\n"
    "  --csv FILE           a series of 'label,value' lines instead of a store\n"
    "  --metric M           throughput (default), any netab compare metric or dotted path\n"
    "  --variant V          only this variant's series\n"
    "  --by WHAT            a point per experiment (default), per commit (consecutive\n"
    "                       experiments of one commit: a bisection's steps, else the\n"
    "                       experiment's name) or per kernel (the DUT's, else the local)\n"
    "  --significance PCT   of each split's permutation test (default 1)\n"
    "  --min-segment N      the shortest segment, in points (default 5)\n"
    "  --permutations N     shuffles per test (default 999)\n"
    "  --seed N             of the shuffles (default 1: repeatable)\n"
    "  --confidence P       of each change's interval, percent (default 95)\n"
    "  --series             also list every point\n"
    "  --json               one JSON document on stdout\n"
    "  --plot FILE          the series, its segments and change points (.png, .svg, .pdf)\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 no change point, 1 at least one change point, 2 bad usage or input.\n";

struct history_args {
    const char *dbs[MAX_DBS];
    size_t ndb;
    const char *csv, *metric, *variant, *plot;
    enum history_by by;
    struct stats_cp_opts cp;
    bool json, series;
};

static const struct option long_opts[] = {
    {"db", required_argument, NULL, 'd'},
    {"csv", required_argument, NULL, 'c'},
    {"metric", required_argument, NULL, 'm'},
    {"variant", required_argument, NULL, 'v'},
    {"by", required_argument, NULL, 'b'},
    {"significance", required_argument, NULL, 'a'},
    {"min-segment", required_argument, NULL, 'n'},
    {"permutations", required_argument, NULL, 'p'},
    {"seed", required_argument, NULL, 's'},
    {"confidence", required_argument, NULL, 'C'},
    {"series", no_argument, NULL, 'S'},
    {"json", no_argument, NULL, 'j'},
    {"plot", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A number in [lo, hi] (whole when whole); false after the usage error. */
static bool num(const char *opt, const char *arg, double lo, double hi, bool whole, double *out)
{
    char *e;
    errno = 0;
    double v = strtod(arg, &e);
    if (e == arg || *e || errno || !isfinite(v) || v < lo || v > hi || (whole && v != floor(v))) {
        cli_usage_error(CMD, "%s: '%s' is not a %s between %g and %g", opt, arg,
                        whole ? "whole number" : "number", lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* One option into a; EXIT_* to stop, -1 to go on. */
static int apply(int c, char **argv, struct history_args *a)
{
    double d;
    switch (c) {
    case 'd':
        if (a->ndb == MAX_DBS)
            return cli_usage_error(CMD, "--db: at most %d stores", MAX_DBS);
        a->dbs[a->ndb++] = optarg;
        return -1;
    case 'c':
        a->csv = optarg;
        return -1;
    case 'm':
        a->metric = optarg;
        return -1;
    case 'v':
        a->variant = optarg;
        return -1;
    case 'P':
        a->plot = optarg;
        return -1;
    case 'j':
        a->json = true;
        return -1;
    case 'S':
        a->series = true;
        return -1;
    case 'b':
        if (!strcmp(optarg, "experiment"))
            a->by = HISTORY_BY_EXPERIMENT;
        else if (!strcmp(optarg, "commit"))
            a->by = HISTORY_BY_COMMIT;
        else if (!strcmp(optarg, "kernel"))
            a->by = HISTORY_BY_KERNEL;
        else
            return cli_usage_error(CMD, "--by: '%s' is not experiment, commit or kernel", optarg);
        return -1;
    case 'a':
        if (!num("--significance", optarg, 0.01, 50, false, &d))
            return EXIT_USAGE;
        a->cp.alpha = d / 100;
        return -1;
    case 'C':
        if (!num("--confidence", optarg, 50, 99.99, false, &d))
            return EXIT_USAGE;
        a->cp.confidence = d / 100;
        return -1;
    case 'n':
        if (!num("--min-segment", optarg, 2, 100000, true, &d))
            return EXIT_USAGE;
        a->cp.min_seg = (size_t)d;
        return -1;
    case 'p':
        if (!num("--permutations", optarg, 19, 100000, true, &d))
            return EXIT_USAGE;
        a->cp.permutations = (size_t)d;
        return -1;
    case 's':
        if (!num("--seed", optarg, 0, 9007199254740992.0, true, &d))
            return EXIT_USAGE;
        a->cp.seed = (uint64_t)d;
        return -1;
    case 'h':
        fputs(usage_text, stdout);
        return EXIT_OK;
    case ':':
        return cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
    default:
        return cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
    }
}

static int parse(int argc, char **argv, struct history_args *a)
{
    memset(a, 0, sizeof(*a));
    stats_cp_opts_default(&a->cp);
    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1)
        if ((rc = apply(c, argv, a)) >= 0)
            return rc;
    if (optind < argc)
        return cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
    if (a->csv && (a->ndb || a->metric || a->variant || a->by))
        return cli_usage_error(CMD, "--csv reads its own series: no --db, --metric, --variant "
                                    "or --by with it");
    if (a->plot) {
        enum plot_format fmt;
        char err[NB_ERRLEN];
        if (plot_format_of(a->plot, &fmt, err, sizeof(err)))
            return cli_usage_error(CMD, "--plot: %s", err);
    }
    return -1;
}

int cli_history(int argc, char **argv)
{
    struct history_args a;
    int rc = parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    gsl_set_error_handler_off();
    char err[NB_ERRLEN], path[PATH_MAX];
    struct history h;
    if (!a.csv && !a.ndb) {
        if (store_default_path(NULL, path, sizeof(path), err, sizeof(err))) {
            fprintf(stderr, "netab history: %s\n", err);
            return EXIT_USAGE;
        }
        a.dbs[a.ndb++] = path;
    }
    rc = a.csv ? history_from_csv(a.csv, &h, err, sizeof(err))
               : history_from_stores(a.dbs, a.ndb, a.metric, a.variant, a.by, &h, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "netab history: %s\n", err);
        history_free(&h);
        return EXIT_USAGE;
    }
    struct history_analysis an;
    rc = history_analyse(&h, &a.cp, a.csv != NULL, a.by, &an);
    if (!rc && a.json)
        rc = cli_json_print(CMD, history_document(&an)) ? -EIO : 0;
    else if (!rc)
        history_print_text(stdout, &an, a.series);
    if (!rc && a.plot && history_draw(&an, a.plot, err, sizeof(err))) {
        fprintf(stderr, "netab history: %s\n", err);
        rc = -EINVAL;
    }
    if (rc == -ENOMEM)
        fprintf(stderr, "netab history: out of memory\n");
    size_t found = an.found;
    history_analysis_free(&an);
    history_free(&h);
    if (!rc && (fflush(stdout) || ferror(stdout)))
        rc = -EIO;
    return rc ? EXIT_USAGE : found ? EXIT_FAIL : EXIT_OK;
}
