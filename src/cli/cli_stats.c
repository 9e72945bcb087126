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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "cli/cli_plot.h"
#include "cli/cli_stats_sets.h"
#include "input/input.h"
#include "statsreport/stats_report.h"
#include "statsreport/stats_report_plot.h"
#include "stats/opts.h"

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

/* A FILE (or NAME=FILE) operand, with the --column in force before it. */
static int add_file(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    struct cli_stats_args *a = field;
    (void)o;
    (void)err;
    (void)errlen;
    a->files[a->nfiles] = value;
    a->columns[a->nfiles++] = a->last_column;
    a->column_after_last_file = false;
    return 0;
}

/* A whole number in [lo, hi] of o, into *out. */
static int count(const char *value, const struct cli_opt *o, unsigned long long lo,
                 unsigned long long hi, unsigned long long *out, char *err, size_t errlen)
{
    char *e;
    errno = 0;
    unsigned long long v = strtoull(value, &e, 10);
    if (e == value || *e || errno || value[0] == '-' || v < lo || v > hi)
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not a whole number from %llu to %llu",
                       o->name, value, lo, hi);
    *out = v;
    return 0;
}

static int set_column(void *field, const char *value, const struct cli_opt *o, char *err,
                      size_t errlen)
{
    struct cli_stats_args *a = field;
    unsigned long long u = 0;
    if (count(value, o, 1, 1000, &u, err, errlen))
        return -EINVAL;
    a->last_column = (unsigned)u;
    a->ncolumn_opts++;
    a->column_after_last_file = true;
    return 0;
}

static int set_seed(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    unsigned long long u = 0;
    if (count(value, o, 0, UINT64_MAX, &u, err, errlen))
        return -EINVAL;
    *(uint64_t *)field = u;
    return 0;
}

static int set_resamples(void *field, const char *value, const struct cli_opt *o, char *err,
                         size_t errlen)
{
    unsigned long long u = 0;
    if (count(value, o, 1000, 10000000, &u, err, errlen))
        return -EINVAL;
    *(size_t *)field = (size_t)u;
    return 0;
}

/* --noise: a percentage below 100. */
static int set_noise(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    int rc = cli_set_pct(field, value, o, err, errlen);
    if (!rc && *(double *)field >= 1)
        return err_set(err, errlen, EINVAL,
                       "--noise: '%s' is not a number strictly between 0 and 100", value);
    return rc;
}

static int set_format(void *field, const char *value, const struct cli_opt *o, char *err,
                      size_t errlen)
{
    (void)o;
    if (input_parse_format(value, field))
        return err_set(err, errlen, EINVAL,
                       "--format: '%s' is not one of plain, netab, iperf3, iperf2, auto", value);
    return 0;
}

/* --order run|unknown. */
static int set_order(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    enum stats_order *order = field;
    (void)o;
    if (!strcmp(value, "run"))
        *order = STATS_ORDER_FILE; /* run order as a file says, so a sorted file is told apart */
    else if (!strcmp(value, "unknown"))
        *order = STATS_ORDER_UNKNOWN;
    else
        return err_set(err, errlen, EINVAL, "--order: '%s' is not one of run, unknown", value);
    return 0;
}

#define FIELD(f) offsetof(struct cli_stats_args, f)

static const struct cli_opt options[] = {
    {"", 0, NULL, "input:", NULL, 0, 0, 0},
    {"format", 0, "F", "plain, netab, iperf3, iperf2 or auto (default: auto)", set_format,
     FIELD(in.format), 0, 0},
    {"metric", 0, "M",
     "JSON: a dotted path into each document (default\nend.receiver.bits_per_second for netab,\n"
     "end.sum_received.bits_per_second for iperf3, TCP\nand UDP (end.sum.bits_per_second where "
     "a UDP\ndocument has no sum_received));\niperf2: bandwidth (default), jitter, loss, "
     "transfer",
     cli_set_nonempty, FIELD(in.metric), 0, 0},
    {"column", 0, "N",
     "plain: take the Nth whitespace-separated column (default 1);\ngiven once it applies to "
     "every file, given more than once\neach applies to the files after it:\nnetab stats "
     "--column 1 f --column 3 f",
     set_column, 0, 0, 0},
    {"order", 0, "O",
     "run: the values are in run order (default; a set in\nsorted order is reported as sorted, "
     "not as drift);\nunknown: they are not, so no drift or run-order claim",
     set_order, FIELD(opts.order), 0, 0},
    {"", 0, NULL, "\njudgement:", NULL, 0, 0, 0},
    {"confidence", 0, "P", "confidence level in percent, 50..99.99 (default 95)", cli_set_pct,
     FIELD(opts.confidence), 50, 99.99},
    {"noise", 0, "PCT", "noise floor in percent of the baseline (default 1)", set_noise,
     FIELD(opts.noise), 0, 100},
    {"lower-is-better", 0, NULL, "smaller is better (latency, CPU cost)", cli_set_true,
     FIELD(opts.lower_is_better), 0, 0},
    {"higher-is-better", 0, NULL, "larger is better (throughput; the default)", cli_set_false,
     FIELD(opts.lower_is_better), 0, 0},
    {"resamples", 0, "N", "bootstrap resamples, 1000..10000000 (default 10000)", set_resamples,
     FIELD(opts.resamples), 0, 0},
    {"seed", 0, "N", "bootstrap seed (default 1); equal seeds, equal output", set_seed,
     FIELD(opts.seed), 0, 0},
    {"fail-on-regression", 0, NULL, "exit 1 if any comparison's verdict is \"regressed\"",
     cli_set_true, FIELD(fail_on_regression), 0, 0},
    {"", 0, NULL, "\noutput:", NULL, 0, 0, 0},
    {"json", 0, NULL, "one JSON document (see docs/stats.md)", cli_set_true, FIELD(json), 0, 0},
    {"csv", 0, NULL, "CSV: a table of sets, a blank line, a table of comparisons", cli_set_true,
     FIELD(csv), 0, 0},
    {"no-plot", 0, NULL, "leave out the ASCII distribution plot", cli_set_false, FIELD(plot), 0, 0},
    CLI_PLOT_OPTS(struct cli_stats_args, fig, "FILE",
                  "also draw the distribution and the comparisons"),
    {0},
};

static const struct cli_cmd stats_cmd = {
    .name = "stats",
    .usage = "usage: netab stats [options] BASELINE FILE...\n"
             "\n"
             "Describes each set of numbers and compares every FILE with BASELINE:\n"
             "differences and ratios of means and medians with confidence intervals,\n"
             "Welch and Mann-Whitney tests, a verdict against a noise floor, warnings\n"
             "(outliers, drift, bimodality, too few runs). '-' reads standard input.\n"
             "NAME=FILE shows the set as NAME (1-64 of A-Z a-z 0-9 _ . -); write ./a=b\n"
             "for a file whose name holds '='.\n"
             "\n",
    .tail = "\n"
            "exit status: 0 done; 1 a comparison regressed and --fail-on-regression was\n"
            "given; 2 bad command line or bad input.\n",
    .opts = options,
    /* Files come back in order, so that --column can apply to those after it. */
    .operand = add_file,
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
    a->nfiles = 0;
    a->ncolumn_opts = a->last_column = 0;
    a->column_after_last_file = false;
    int rc = cli_opts_parse(&stats_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
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
    char err[NB_ERRLEN * 2];
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
    if (input_read_set(path, shown, &io, &in, err, sizeof(err))) {
        fprintf(stderr, "netab stats: %s\n", err);
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
        stats_report_input_axis(r, axis, sizeof(axis));
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
