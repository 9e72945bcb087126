/*
 * `netab report ID`: an experiment's matrix report from the results store
 * (docs/report.md). Argument parsing and printing only; the report module
 * (src/lib/creport/campaign_report.c) does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_plot.h"
#include "creport/campaign_report.h"
#include "creport/campaign_report_codelayout.h"
#include "creport/campaign_report_metric.h"
#include "creport/campaign_report_multi.h"
#include "creport/campaign_report_plot.h"
#include "store/store.h"

static const char usage_text[] =
    "usage: netab report ID [--db PATH] [--format text|markdown|csv|json|html]\n"
    "       netab report --experiments ID,ID... [--label variant|experiment|kernel]\n"
    "                       [--metric NAME]... [--noise PCT] [--confidence PCT]\n"
    "                       [--baseline VARIANT] [--pairs all] [--transpose]\n"
    "                       [--full | --sections NAME,...]\n"
    "                       [--plot DIR [--plot-format png|svg|pdf]]\n"
    "\n"
    "The matrix report of experiment ID from the results store: the mean of\n"
    "each metric over the measured runs (status ok, warm-ups excluded) per\n"
    "variant and matrix cell, and every variant compared with the baseline (the\n"
    "first variant) in each cell: change of the mean with its confidence\n"
    "interval, Welch p and a verdict against the noise floor. By default the\n"
    "text starts with the headline table (each cell's deciding metric and CPU\n"
    "cost per variant), then only the changes found (improved or regressed),\n"
    "the counter differences where a change was found, the warnings aggregated\n"
    "and the verdict; --full prints every section.\n"
    "\n"
    "options:\n"
    "  --experiments LIST   one report over several experiments (comma-separated\n"
    "                       ids): each experiment's variants are column groups,\n"
    "                       cells are matched by name, the first group is the\n"
    "                       baseline\n"
    "  --label L            name the groups by variant (default), experiment or\n"
    "                       kernel (the release each run recorded); \"#ID\" is\n"
    "                       added where two experiments give the same name\n"
    "  --db PATH            the database (default: $NETAB_DB, else\n"
    "                       $XDG_DATA_HOME/netab/results.db)\n"
    "  --format F           text (default; fits 72 columns), markdown, csv, json,\n"
    "                       html (one self-contained page with the figures)\n"
    "  --metric NAME        report this metric (repeatable; the first one a cell\n"
    "                       has decides its verdict): a name (listed at the end;\n"
    "                       also its path without end., cpu.local.process_us_per_kib)\n"
    "                       or a dotted path into\n"
    "                       the runs' documents: perf.local.task_clock,\n"
    "                       kernel.remote.Udp.RcvbufErrors (end. may be left out;\n"
    "                       add :lower or :higher for the better direction).\n"
    "                       Default: all built-in ones that apply to each cell's\n"
    "                       test; throughput, transactions or connections decides.\n"
    "  --baseline VARIANT   compare the other variants with this one (default:\n"
    "                       the first variant of the experiment file)\n"
    "  --pairs all          also compare every pair of variants, Bonferroni-\n"
    "                       corrected (docs/report.md)\n"
    "  --transpose          cells as rows, variants as columns (text, markdown, html)\n"
    "  --full               the whole text report: every section below\n"
    "  --sections LIST      only these text sections (comma-separated): headline,\n"
    "                       changes, tables, details, pairs, effects, values,\n"
    "                       runs, layout, environment, counters, warnings, verdict\n"
    "  --noise PCT          noise floor in percent of the baseline (default 1)\n"
    "  --confidence PCT     confidence level in percent, 50..99.99 (default 95)\n"
    "  --plot DIR           also write every figure into DIR (created if missing):\n"
    "                       distribution, forest and run order per cell, heatmap\n"
    "  --plot-format F      png (default), svg or pdf\n"
    "  --plot-width N, --plot-height N  override the figures' sizes\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 report written, no deciding metric regressed; 1 a deciding\n"
    "metric regressed in some cell; 2 bad command line, unknown experiment or\n"
    "unreadable database.\n";

enum {
    OPT_DB = 256,
    OPT_FORMAT,
    OPT_METRIC,
    OPT_NOISE,
    OPT_CONFIDENCE,
    OPT_PLOT_FORMAT,
    OPT_EXPERIMENTS,
    OPT_LABEL,
    OPT_BASELINE,
    OPT_PAIRS,
    OPT_TRANSPOSE,
    OPT_FULL,
    OPT_SECTIONS
};

static const struct option long_opts[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"noise", required_argument, NULL, OPT_NOISE},
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    {"plot-format", required_argument, NULL, OPT_PLOT_FORMAT},
    {"experiments", required_argument, NULL, OPT_EXPERIMENTS},
    {"label", required_argument, NULL, OPT_LABEL},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"pairs", required_argument, NULL, OPT_PAIRS},
    {"transpose", no_argument, NULL, OPT_TRANSPOSE},
    {"full", no_argument, NULL, OPT_FULL},
    {"sections", required_argument, NULL, OPT_SECTIONS},
    CLI_PLOT_LONG_OPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

enum report_format { FMT_TEXT, FMT_MARKDOWN, FMT_CSV, FMT_JSON, FMT_HTML };

#define MAX_METRICS 32
#define MAX_EXPERIMENTS 64

struct report_args {
    const char *db;
    long id;
    enum report_format format;
    const char *metrics[MAX_METRICS];
    struct creport_opts opts;
    struct cli_plot fig;          /* --plot DIR */
    const char *fig_ext;          /* --plot-format */
    int64_t ids[MAX_EXPERIMENTS]; /* --experiments */
    size_t nids;
    enum creport_label label; /* --label */
    bool has_label;
};

/* A number in [lo, hi] (hi excluded when hi_open). */
static bool parse_pct(const char *opt, const char *s, double lo, double hi, bool hi_open,
                      double *out)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(v) || v < lo || v > hi || (hi_open && v == hi)) {
        cli_usage_error("report", "%s: '%s' is not a number between %g and %g", opt, s, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

/* --experiments 3,5,7 into a->ids. Returns -1 to go on, else the exit code. */
static int parse_ids(const char *list, struct report_args *a)
{
    char buf[1024], perr[NB_ERRLEN], *save = NULL;
    if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
        return cli_usage_error("report", "--experiments: the list is too long");
    a->nids = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long id;
        if (!optval_int("--experiments", t, 1, INT64_MAX, &id, perr, sizeof(perr)))
            return cli_usage_error("report", "%s", perr);
        if (a->nids == MAX_EXPERIMENTS)
            return cli_usage_error("report", "--experiments: at most %d experiments",
                                   MAX_EXPERIMENTS);
        a->ids[a->nids++] = id;
    }
    if (!a->nids)
        return cli_usage_error("report", "--experiments: no experiment id in '%s'", list);
    return -1;
}

/* The options that shape the output (--format, --full, --baseline, ...). Returns -1 to go on,
 * else the exit code. */
static int parse_output(int c, const char *arg, struct report_args *a)
{
    char perr[NB_ERRLEN];
    switch (c) {
    case OPT_FORMAT:
        if (!strcmp(arg, "text"))
            a->format = FMT_TEXT;
        else if (!strcmp(arg, "markdown") || !strcmp(arg, "md"))
            a->format = FMT_MARKDOWN;
        else if (!strcmp(arg, "csv"))
            a->format = FMT_CSV;
        else if (!strcmp(arg, "json"))
            a->format = FMT_JSON;
        else if (!strcmp(arg, "html"))
            a->format = FMT_HTML;
        else
            return cli_usage_error("report",
                                   "--format: '%s' is not text, markdown, csv, json or html", arg);
        return -1;
    case OPT_PLOT_FORMAT:
        if (strcmp(arg, "png") && strcmp(arg, "svg") && strcmp(arg, "pdf"))
            return cli_usage_error("report", "--plot-format: '%s' is not png, svg or pdf", arg);
        a->fig_ext = arg;
        return -1;
    case OPT_BASELINE:
        if (!*arg)
            return cli_usage_error("report", "--baseline needs a variant name");
        a->opts.baseline = arg;
        return -1;
    case OPT_PAIRS:
        if (strcmp(arg, "all") && strcmp(arg, "baseline"))
            return cli_usage_error("report", "--pairs: '%s' is not all or baseline", arg);
        a->opts.pairs_all = !strcmp(arg, "all");
        return -1;
    case OPT_TRANSPOSE:
        a->opts.transpose = true;
        return -1;
    case OPT_FULL:
    case OPT_SECTIONS:
        if (a->opts.sections)
            return cli_usage_error("report", "give --full or --sections once");
        if (c == OPT_FULL)
            a->opts.sections = CREPORT_SEC_ALL;
        else if (creport_section_parse(arg, &a->opts.sections, perr, sizeof(perr)))
            return cli_usage_error("report", "%s", perr);
        return -1;
    }
    return -1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
    memset(a, 0, sizeof(*a));
    creport_opts_default(&a->opts);
    a->opts.metrics = a->metrics;
    opterr = 0;
    optind = 1;
    int c, rc;
    double d;
    char perr[NB_ERRLEN];
    while ((c = optmatch_next(argc, argv, ":h", long_opts)) != -1) {
        switch (c) {
        case OPT_DB:
            a->db = optarg;
            break;
        case OPT_METRIC:
            if (!creport_metric_valid(optarg, perr, sizeof(perr)))
                return cli_usage_error("report", "--metric: %s", perr);
            if (a->opts.nmetrics == MAX_METRICS)
                return cli_usage_error("report", "--metric: at most %d metrics", MAX_METRICS);
            a->metrics[a->opts.nmetrics++] = optarg;
            break;
        case OPT_NOISE:
            if (!parse_pct("--noise", optarg, 0, 100, true, &d))
                return EXIT_USAGE;
            a->opts.noise = d / 100;
            break;
        case OPT_CONFIDENCE:
            if (!parse_pct("--confidence", optarg, 50, 99.99, false, &d))
                return EXIT_USAGE;
            a->opts.confidence = d / 100;
            break;
        case OPT_EXPERIMENTS:
            if ((rc = parse_ids(optarg, a)) >= 0)
                return rc;
            break;
        case OPT_LABEL:
            if (creport_label_parse(optarg, &a->label))
                return cli_usage_error(
                    "report", "--label: '%s' is not variant, experiment or kernel", optarg);
            a->has_label = true;
            break;
        case OPT_FORMAT:
        case OPT_PLOT_FORMAT:
        case OPT_BASELINE:
        case OPT_PAIRS:
        case OPT_TRANSPOSE:
        case OPT_FULL:
        case OPT_SECTIONS:
            if ((rc = parse_output(c, optarg, a)) >= 0)
                return rc;
            break;
        case 'h':
            fputs(usage_text, stdout);
            cli_print_metric_names(METRIC_REPORT);
            return EXIT_OK;
        case ':':
            return cli_usage_error("report", "%s needs a value", argv[optind - 1]);
        default:
            if ((rc = cli_plot_option("report", c, optarg, &a->fig)) >= 0) {
                if (rc)
                    return rc;
                break;
            }
            return cli_unknown_option("report", argv, long_opts);
        }
    }
    if (a->has_label && !a->nids)
        return cli_usage_error("report", "--label goes with --experiments");
    if (a->nids && optind < argc)
        return cli_usage_error("report", "give an experiment ID or --experiments, not both");
    if (a->nids)
        return -1;
    if (optind >= argc)
        return cli_usage_error("report", "which experiment? (see 'netab runs experiments')");
    if (!optval_int("ID", argv[optind], 1, INT64_MAX, &a->id, perr, sizeof(perr)))
        return cli_usage_error("report", "%s", perr);
    if (++optind < argc)
        return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
    return -1;
}

/* --plot DIR: every figure as a file, and one line on stderr saying how many. */
static int draw_figures(const struct creport *r, const struct report_args *a)
{
    char err[NB_ERRLEN * 2];
    size_t n = 0;
    const char *ext = a->fig_ext ? a->fig_ext : "png";
    if (creport_plot_dir(r, a->fig.path, ext, a->fig.width, a->fig.height, stderr, &n, err,
                         sizeof(err))) {
        fprintf(stderr, "netab report: %s\n", err);
        return -1;
    }
    fprintf(stderr, "netab report: %zu figures written to %s (%s)\n", n, a->fig.path, ext);
    return 0;
}

int cli_report(int argc, char **argv)
{
    struct report_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char path[4096], err[NB_ERRLEN * 2];
    struct store *db = NULL;
    struct creport *r = NULL;
    int e = store_default_path(a.db, path, sizeof(path), err, sizeof(err));
    if (!e)
        e = store_open(path, STORE_OPEN_READONLY, &db, err, sizeof(err));
    if (!e && a.nids)
        e = creport_load_many(db, a.ids, a.nids, a.label, &a.opts, &r, err, sizeof(err));
    else if (!e)
        e = creport_load(db, a.id, &a.opts, &r, err, sizeof(err));
    store_close(db);
    if (e) {
        fprintf(stderr, "netab report: %s\n", err);
        return EXIT_USAGE;
    }
    if (creport_code_layout(r)) {
        fprintf(stderr, "netab report: out of memory\n");
        creport_free(r);
        return EXIT_USAGE;
    }
    switch (a.format) {
    case FMT_TEXT:
        e = creport_print_text(r, stdout);
        break;
    case FMT_MARKDOWN:
        e = creport_print_markdown(r, stdout);
        break;
    case FMT_CSV:
        e = creport_print_csv(r, stdout);
        break;
    case FMT_HTML:
        e = creport_print_html(r, a.db, stdout);
        break;
    case FMT_JSON: {
        json_t *j = creport_to_json(r);
        e = j ? json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : -ENOMEM;
        if (!e)
            fputc('\n', stdout);
        json_decref(j);
        break;
    }
    }
    rc = creport_exit_status(r);
    if (!e && a.fig.path && draw_figures(r, &a))
        rc = EXIT_USAGE;
    creport_free(r);
    if (e || fflush(stdout)) {
        fprintf(stderr, "netab report: could not write the report\n");
        return EXIT_USAGE;
    }
    return rc;
}
