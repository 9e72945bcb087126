/*
 * `netab stats [options] FILE...`: the first file is the baseline, every
 * other file is compared with it (like ministat). Argument parsing and the
 * flow only: input/ reads the files, report/stats_report builds and prints
 * the report.
 */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_plot.h"
#include "cli/cli_stats_sets.h"
#include "input/input.h"
#include "statsreport/stats_report.h"
#include "statsreport/stats_report_plot.h"
#include "stats/opts.h"

static const char usage_text[] =
    "usage: netab stats [options] BASELINE FILE...\n"
    "\n"
    "Describes each set of numbers and compares every FILE with BASELINE:\n"
    "differences and ratios of means and medians with confidence intervals,\n"
    "Welch and Mann-Whitney tests, a verdict against a noise floor, warnings\n"
    "(outliers, drift, bimodality, too few runs). '-' reads standard input.\n"
    "NAME=FILE shows the set as NAME (1-64 of A-Z a-z 0-9 _ . -); write ./a=b\n"
    "for a file whose name holds '='.\n"
    "\n"
    "input:\n"
    "  --format F           plain, netab, iperf3, iperf2 or auto (default: auto)\n"
    "  --metric M           JSON: a dotted path into each document (default\n"
    "                       end.receiver.bits_per_second for netab,\n"
    "                       end.sum_received.bits_per_second for iperf3, TCP\n"
    "                       and UDP (end.sum.bits_per_second where a UDP\n"
    "                       document has no sum_received));\n"
    "                       iperf2: bandwidth (default), jitter, loss, transfer\n"
    "  --column N           plain: take the Nth whitespace-separated column (default 1);\n"
    "                       given once it applies to every file, given more than once\n"
    "                       each applies to the files after it:\n"
    "                       netab stats --column 1 f --column 3 f\n"
    "  --order O            run: the values are in run order (default; a set in\n"
    "                       sorted order is reported as sorted, not as drift);\n"
    "                       unknown: they are not, so no drift or run-order claim\n"
    "\n"
    "judgement:\n"
    "  --confidence P       confidence level in percent, 50..99.99 (default 95)\n"
    "  --noise PCT          noise floor in percent of the baseline (default 1)\n"
    "  --lower-is-better    smaller is better (latency, CPU cost)\n"
    "  --higher-is-better   larger is better (throughput; the default)\n"
    "  --resamples N        bootstrap resamples, 1000..10000000 (default 10000)\n"
    "  --seed N             bootstrap seed (default 1); equal seeds, equal output\n"
    "  --fail-on-regression exit 1 if any comparison's verdict is \"regressed\"\n"
    "\n"
    "output:\n"
    "  --json               one JSON document (see docs/stats.md)\n"
    "  --csv                CSV: a table of sets, a blank line, a table of comparisons\n"
    "  --no-plot            leave out the ASCII distribution plot\n" CLI_PLOT_USAGE(
        "FILE",
        "also draw the distribution and the comparisons") "  -h, --help           this text\n"
                                                          "\n"
                                                          "exit status: 0 done; 1 a comparison "
                                                          "regressed and --fail-on-regression was\n"
                                                          "given; 2 bad command line or bad "
                                                          "input.\n";

enum {
    OPT_CONFIDENCE = 256,
    OPT_NOISE,
    OPT_LOWER,
    OPT_HIGHER,
    OPT_METRIC,
    OPT_COLUMN,
    OPT_FORMAT,
    OPT_JSON,
    OPT_CSV,
    OPT_FAIL,
    OPT_SEED,
    OPT_RESAMPLES,
    OPT_NOPLOT,
    OPT_ORDER,
};

static const struct option long_opts[] = {
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    {"noise", required_argument, NULL, OPT_NOISE},
    {"lower-is-better", no_argument, NULL, OPT_LOWER},
    {"higher-is-better", no_argument, NULL, OPT_HIGHER},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"column", required_argument, NULL, OPT_COLUMN},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"fail-on-regression", no_argument, NULL, OPT_FAIL},
    {"seed", required_argument, NULL, OPT_SEED},
    {"resamples", required_argument, NULL, OPT_RESAMPLES},
    {"no-plot", no_argument, NULL, OPT_NOPLOT},
    {"order", required_argument, NULL, OPT_ORDER},
    CLI_PLOT_LONG_OPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A finite number in [lo, hi] (either bound may be excluded). Returns 0 or -EINVAL. */
static int parse_range(const char *opt, const char *s, double lo, double hi, bool lo_open,
                       bool hi_open, double *out)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(v) || v < lo || v > hi || (lo_open && v == lo) ||
        (hi_open && v == hi)) {
        fprintf(stderr, "netab stats: %s: '%s' is not a number %s %g and %g\n", opt, s,
                lo_open || hi_open ? "strictly between" : "between", lo, hi);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_count(const char *opt, const char *s, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (e == s || *e || errno || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "netab stats: %s: '%s' is not a whole number from %llu to %llu\n", opt, s,
                lo, hi);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/* --order run|unknown. Returns 0 or -EINVAL after saying why. */
static int parse_order(const char *s, enum stats_order *out)
{
    if (!strcmp(s, "run"))
        *out = STATS_ORDER_FILE; /* run order as a file says, so a sorted file is told apart */
    else if (!strcmp(s, "unknown"))
        *out = STATS_ORDER_UNKNOWN;
    else {
        fprintf(stderr, "netab stats: --order: '%s' is not one of run, unknown\n", s);
        return -EINVAL;
    }
    return 0;
}

struct cli_stats_args {
    struct stats_opts opts;
    struct input_opts in;
    bool json, csv, fail_on_regression, plot;
    /* The files in order, each with the --column that was in force before it (0: none). */
    const char **files;
    unsigned *columns;
    /* From files[i] (NAME=FILE): the file to read and the name to show ("": the file's). */
    const char **paths;
    char (*names)[CLI_SET_NAME_MAX + 1];
    size_t nfiles;
    unsigned ncolumn_opts; /* how many --column options were given */
    unsigned last_column;  /* the latest --column's value */
    bool column_after_last_file;
    struct cli_plot fig;
};

/*
 * Gives every file its column: one --column applies to every file wherever
 * it stands (as it always did); several apply each to the files after it,
 * and one after the last file would apply to nothing, which is refused
 * rather than silently ignored. Returns -1 to go on, else the exit code.
 */
static int resolve_columns(struct cli_stats_args *a)
{
    if (a->ncolumn_opts == 1) {
        for (size_t i = 0; i < a->nfiles; i++)
            a->columns[i] = a->last_column;
        return -1;
    }
    if (a->ncolumn_opts > 1 && a->column_after_last_file) {
        fprintf(stderr,
                "netab stats: --column %u follows the last file; with several --column options "
                "each applies to the files after it\n",
                a->last_column);
        return EXIT_USAGE;
    }
    return -1;
}

/*
 * Splits every NAME=FILE into the file to read and the name to show, and
 * refuses a NAME that another set also shows: the report would compare
 * "a" with "a". Returns -1 to go on, else the exit code.
 */
static int resolve_names(struct cli_stats_args *a)
{
    char err[NB_ERRLEN];
    for (size_t i = 0; i < a->nfiles; i++)
        if (cli_stats_split_set(a->files[i], a->names[i], &a->paths[i], err, sizeof(err))) {
            fprintf(stderr, "netab stats: %s\n", err);
            return EXIT_USAGE;
        }
    for (size_t i = 0; i < a->nfiles; i++)
        for (size_t j = 0; a->names[i][0] && j < a->nfiles; j++) {
            const char *other = a->names[j][0] ? a->names[j] : a->paths[j];
            if (j != i && !strcmp(a->names[i], other)) {
                fprintf(stderr, "netab stats: two sets would be shown as '%s'; name them apart\n",
                        a->names[i]);
                return EXIT_USAGE;
            }
        }
    return -1;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct cli_stats_args *a)
{
    stats_opts_default(&a->opts);
    /* Values from files are said to be in run order; a sorted file is told apart. */
    a->opts.order = STATS_ORDER_FILE;
    memset(&a->in, 0, sizeof(a->in));
    a->json = a->csv = a->fail_on_regression = false;
    a->plot = true;
    a->fig = (struct cli_plot){0};
    opterr = 0;
    optind = 1;
    int c, rc;
    double d;
    unsigned long long u;
    a->nfiles = 0;
    a->ncolumn_opts = a->last_column = 0;
    a->column_after_last_file = false;
    /* "-" first: files come back in order (as 1), so that --column can apply to those after it. */
    while ((c = optmatch_next(argc, argv, "-:h", long_opts)) != -1) {
        switch (c) {
        case 1:
            a->files[a->nfiles] = optarg;
            a->columns[a->nfiles++] = a->last_column;
            a->column_after_last_file = false;
            break;
        case OPT_CONFIDENCE:
            if (parse_range("--confidence", optarg, 50, 99.99, false, false, &d))
                return EXIT_USAGE;
            a->opts.confidence = d / 100;
            break;
        case OPT_NOISE:
            if (parse_range("--noise", optarg, 0, 100, false, true, &d))
                return EXIT_USAGE;
            a->opts.noise = d / 100;
            break;
        case OPT_LOWER:
            a->opts.lower_is_better = true;
            break;
        case OPT_HIGHER:
            a->opts.lower_is_better = false;
            break;
        case OPT_METRIC:
            if (!*optarg) {
                fprintf(stderr, "netab stats: --metric: empty metric\n");
                return EXIT_USAGE;
            }
            a->in.metric = optarg;
            break;
        case OPT_COLUMN:
            if (parse_count("--column", optarg, 1, 1000, &u))
                return EXIT_USAGE;
            a->last_column = (unsigned)u;
            a->ncolumn_opts++;
            a->column_after_last_file = true;
            break;
        case OPT_FORMAT:
            if (input_parse_format(optarg, &a->in.format)) {
                fprintf(stderr,
                        "netab stats: --format: '%s' is not one of plain, netab, iperf3, "
                        "iperf2, auto\n",
                        optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_JSON:
            a->json = true;
            break;
        case OPT_CSV:
            a->csv = true;
            break;
        case OPT_FAIL:
            a->fail_on_regression = true;
            break;
        case OPT_SEED:
            if (parse_count("--seed", optarg, 0, UINT64_MAX, &u))
                return EXIT_USAGE;
            a->opts.seed = u;
            break;
        case OPT_RESAMPLES:
            if (parse_count("--resamples", optarg, 1000, 10000000, &u))
                return EXIT_USAGE;
            a->opts.resamples = (size_t)u;
            break;
        case OPT_NOPLOT:
            a->plot = false;
            break;
        case OPT_ORDER:
            if (parse_order(optarg, &a->opts.order))
                return EXIT_USAGE;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return EXIT_OK;
        case ':':
            fprintf(stderr, "netab stats: option '%s' needs a value\n", argv[optind - 1]);
            fprintf(stderr, "try 'netab stats --help'\n");
            return EXIT_USAGE;
        default:
            if ((rc = cli_plot_option("stats", c, optarg, &a->fig)) >= 0) {
                if (rc)
                    return rc;
                break;
            }
            return cli_unknown_option("stats", argv, long_opts);
        }
    }
    if (a->json && a->csv) {
        fprintf(stderr, "netab stats: --json and --csv exclude each other\n");
        return EXIT_USAGE;
    }
    if (cli_plot_check("stats", &a->fig))
        return EXIT_USAGE;
    /* "--" ends the options; what follows are files. */
    for (int i = optind; i < argc; i++) {
        a->files[a->nfiles] = argv[i];
        a->columns[a->nfiles++] = a->last_column;
        a->column_after_last_file = false;
    }
    if (!a->nfiles) {
        fprintf(stderr, "netab stats: no input files\ntry 'netab stats --help'\n");
        return EXIT_USAGE;
    }
    int rc2 = resolve_names(a);
    return rc2 >= 0 ? rc2 : resolve_columns(a);
}

/*
 * Reads set i from path into r; *total counts the values of every set read
 * so far, against the cap of all inputs together. Returns 0 or the exit
 * code, after saying why on stderr.
 */
static int load_set(struct stats_report *r, size_t i, const struct cli_stats_args *a, size_t *total)
{
    char err[NB_ERRLEN];
    const char *path = a->paths[i];
    const char *shown = a->names[i][0] ? a->names[i] : strcmp(path, "-") ? path : "<stdin>";
    struct input_values in = {0};
    struct input_opts io = a->in;
    io.column = a->columns[i];
    io.values_before = *total;
    /* The same file under two columns needs two names, or the report shows f against f. */
    char named[NB_ERRLEN];
    if (a->ncolumn_opts > 1 && !a->names[i][0]) {
        snprintf(named, sizeof(named), "%s:%u", shown, io.column ? io.column : 1);
        shown = named;
    }
    if (input_read_path(path, &io, &in, err, sizeof(err))) {
        fprintf(stderr, "netab stats: %s\n", err);
        input_values_free(&in); /* a bad value mid-file leaves those before it */
        return EXIT_USAGE;
    }
    if (in.n < 2) {
        fprintf(stderr, "netab stats: %s: %s; at least two values are needed\n", shown,
                in.n ? "only one value" : "no values");
        input_values_free(&in);
        return EXIT_USAGE;
    }
    *total += in.n;
    int rc =
        stats_report_set_values(r, i, shown, input_format_name(in.format), in.metric, in.v, in.n);
    input_values_free(&in);
    if (rc) {
        fprintf(stderr, "netab stats: %s: %s\n", shown, strerror(-rc));
        return EXIT_ERROR;
    }
    return 0;
}

/* Writes the report in the format asked for. Returns 0 or the exit code. */
static int print_report(const struct stats_report *r, const struct cli_stats_args *a)
{
    int rc = 0;
    if (a->json) {
        json_t *doc = stats_report_json(r);
        if (!doc) {
            fprintf(stderr, "netab stats: out of memory\n");
            return EXIT_ERROR;
        }
        rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) ? -EIO : 0;
        json_decref(doc);
        putchar('\n');
    } else if (a->csv) {
        rc = stats_report_print_csv(r, stdout);
    } else {
        rc = stats_report_print_text(r, stdout);
    }
    if (rc || fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "netab stats: cannot write output: %s\n", strerror(errno));
        return EXIT_ERROR;
    }
    return 0;
}

/*
 * --plot: the distribution and the comparisons drawn into the file, and one
 * line on stderr saying what was drawn. Returns 0 or the exit code.
 */
static int draw_figure(const struct stats_report *r, const struct cli_plot *p)
{
    struct report_plot_opts po;
    report_plot_opts_default(&po);
    po.width = p->width ? p->width : po.width;
    po.height = p->height ? p->height : po.height;
    po.log = p->log;
    po.axis = p->axis;
    char axis[200];
    if (!po.axis) {
        /* The input knows no unit, but where it came from: say that, as the axis' label. */
        const struct stats_report_set *s = &r->sets[0];
        snprintf(axis, sizeof(axis), "%s (%s input%s%s)",
                 strstr(s->metric, "bits_per_second") ? "bit/s" : "value", s->format,
                 s->metric[0] ? ": " : "", s->metric);
        po.axis = axis;
    }
    char err[NB_ERRLEN];
    size_t n = 0;
    if (stats_report_plot(r, &po, p->path, &n, err, sizeof(err))) {
        fprintf(stderr, "netab stats: %s\n", err);
        return EXIT_ERROR;
    }
    fprintf(stderr, "netab stats: figure %s: %zu sets, %zu points, %gx%g\n", p->path, r->nsets, n,
            po.width, po.height);
    return 0;
}

int cli_stats(int argc, char **argv)
{
    struct cli_stats_args a;
    struct stats_report r = {0};
    a.files = calloc((size_t)argc + 1, sizeof(*a.files));
    a.columns = calloc((size_t)argc + 1, sizeof(*a.columns));
    a.paths = calloc((size_t)argc + 1, sizeof(*a.paths));
    a.names = calloc((size_t)argc + 1, sizeof(*a.names));
    int rc = EXIT_ERROR;
    if (!a.files || !a.columns || !a.paths || !a.names) {
        fprintf(stderr, "netab stats: out of memory\n");
        goto out;
    }
    rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        goto out;
    /* GSL must report errors through return values, never abort the process. */
    gsl_set_error_handler_off();

    size_t nsets = a.nfiles;
    if (stats_report_init(&r, nsets, &a.opts)) {
        fprintf(stderr, "netab stats: out of memory\n");
        rc = EXIT_ERROR;
        goto out;
    }
    r.plot = a.plot;
    rc = EXIT_OK;
    size_t total = 0;
    for (size_t i = 0; i < nsets && rc == EXIT_OK; i++)
        rc = load_set(&r, i, &a, &total);
    if (rc != EXIT_OK)
        goto out;
    char err[NB_ERRLEN];
    int arc = stats_report_analyse(&r, err, sizeof(err));
    if (arc) {
        fprintf(stderr, "netab stats: %s\n", err);
        rc = EXIT_ERROR;
        goto out;
    }
    rc = print_report(&r, &a);
    if (!rc && a.fig.path)
        rc = draw_figure(&r, &a.fig);
    if (!rc && a.fail_on_regression && stats_report_regressed(&r))
        rc = EXIT_FAIL;
out:
    stats_report_free(&r);
    free(a.files);
    free(a.columns);
    free(a.paths);
    free(a.names);
    return rc;
}
