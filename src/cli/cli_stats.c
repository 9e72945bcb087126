/*
 * `netab stats [options] FILE...`: the first file is the baseline, every
 * other file is compared with it (like ministat). Argument parsing and the
 * flow only: statsreport/stats_report_sets reads the files (input/),
 * statsreport/stats_report builds and prints the report.
 */
#include <errno.h>
#include <getopt.h>
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
#include "input/input.h"
#include "input/input_sets.h"
#include "statsreport/stats_report.h"
#include "statsreport/stats_report_plot.h"
#include "statsreport/stats_report_sets.h"
#include "stats/opts.h"

struct cli_stats_args {
    struct stats_opts opts;
    struct input_opts in;
    bool json, csv, fail_on_regression, plot;
    /* The files in order, each with the --column that was in force before it. */
    struct input_sets sets;
    struct cli_plot fig;
};

/* A FILE (or NAME=FILE) operand, with the --column in force before it. */
static int add_file(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct cli_stats_args *a = field;
    (void)o;
    (void)err;
    (void)errlen;
    input_sets_add(&a->sets, value);
    return 0;
}

/* --column N: applies to the files after it (input_sets_column()). */
static int set_column(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    unsigned u = 0;
    int rc = opt_set_unsigned(&u, value, o, err, errlen);
    if (!rc)
        input_sets_column(&((struct cli_stats_args *)field)->sets, u);
    return rc;
}

#define FIELD(f) offsetof(struct cli_stats_args, f)

static const struct opt options[] = {
    {"", 0, NULL, "input:", NULL, 0, 0, 0, NULL},
    {"format", 0, "F", "plain, netab, iperf3, iperf2 or auto (default: auto)", opt_set_one_of,
     FIELD(in.format), 0, 0, input_format_choices},
    {"metric", 0, "M",
     "JSON: a dotted path into each document (default\nend.receiver.bits_per_second for netab,\n"
     "end.sum_received.bits_per_second for iperf3, TCP\nand UDP (end.sum.bits_per_second where "
     "a UDP\ndocument has no sum_received));\niperf2: bandwidth (default), jitter, loss, "
     "transfer",
     opt_set_nonempty, FIELD(in.metric), 0, 0, NULL},
    {"column", 0, "N",
     "plain: take the Nth whitespace-separated column (default 1);\ngiven once it applies to "
     "every file, given more than once\neach applies to the files after it:\nnetab stats "
     "--column 1 f --column 3 f",
     set_column, 0, 1, 1000, NULL},
    {"order", 0, "O",
     "run: the values are in run order (default; a set in\nsorted order is reported as sorted, "
     "not as drift);\nunknown: they are not, so no drift or run-order claim",
     opt_set_one_of, FIELD(opts.order), 0, 0, stats_order_choices},
    {"", 0, NULL, "\njudgement:", NULL, 0, 0, 0, NULL},
    CLI_CONFIDENCE_OPT(FIELD(opts.confidence)),
    CLI_NOISE_OPT(FIELD(opts.noise)),
    {"lower-is-better", 0, NULL, "smaller is better (latency, CPU cost)", opt_set_true,
     FIELD(opts.lower_is_better), 0, 0, NULL},
    {"higher-is-better", 0, NULL, "larger is better (throughput; the default)", opt_set_false,
     FIELD(opts.lower_is_better), 0, 0, NULL},
    {"resamples", 0, "N", "bootstrap resamples, 1000..10000000 (default 10000)", opt_set_size,
     FIELD(opts.resamples), 1000, 10000000, NULL},
    {"seed", 0, "N", "bootstrap seed (default 1); equal seeds, equal output", opt_set_u64,
     FIELD(opts.seed), 0, 0, NULL},
    {"fail-on-regression", 0, NULL, "exit 1 if any comparison's verdict is \"regressed\"",
     opt_set_true, FIELD(fail_on_regression), 0, 0, NULL},
    {"", 0, NULL, "\noutput:", NULL, 0, 0, 0, NULL},
    {"json", 0, NULL, "one JSON document (see docs/stats.md)", opt_set_true, FIELD(json), 0, 0,
     NULL},
    {"csv", 0, NULL, "CSV: a table of sets, a blank line, a table of comparisons", opt_set_true,
     FIELD(csv), 0, 0, NULL},
    {"no-plot", 0, NULL, "leave out the ASCII distribution plot", opt_set_false, FIELD(plot), 0, 0,
     NULL},
    CLI_PLOT_OPTS(struct cli_stats_args, fig, "FILE",
                  "also draw the distribution and the comparisons"),
    {0},
};

static const struct opt_table stats_cmd = {
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
    int rc = cli_opts_parse(&stats_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    if (a->json && a->csv)
        return cli_fail(EXIT_USAGE, "stats", "--json and --csv exclude each other");
    if (cli_plot_check("stats", &a->fig))
        return EXIT_USAGE;
    /* "--" ends the options; what follows are files. */
    for (int i = optind; i < argc; i++)
        input_sets_add(&a->sets, argv[i]);
    if (!a->sets.n)
        return cli_fail(EXIT_USAGE, "stats", "no input files\ntry 'netab stats --help'");
    char err[NB_ERRLEN * 2];
    if (input_sets_resolve(&a->sets, err, sizeof(err)))
        return cli_fail(EXIT_USAGE, "stats", "%s", err);
    return -1;
}

/* Writes the report in the format asked for. Returns 0 or the exit code. */
static int print_report(const struct stats_report *r, const struct cli_stats_args *a)
{
    int rc = 0;
    if (a->json) {
        rc = cli_json_print("stats", stats_report_json(r));
    } else if (a->csv) {
        rc = stats_report_print_csv(r, stdout);
    } else {
        rc = stats_report_print_text(r, stdout);
    }
    if (rc || fflush(stdout) || ferror(stdout))
        return cli_fail(EXIT_ERROR, "stats", "cannot write output: %s", strerror(errno));
    return 0;
}

/*
 * --plot: the distribution and the comparisons drawn into the file, and one
 * line on stderr saying what was drawn. Returns 0 or the exit code.
 */
static int draw_figure(const struct stats_report *r, const struct cli_plot *p)
{
    struct report_plot_opts want = {p->width, p->height, NULL, p->axis, p->log}, po;
    char err[NB_ERRLEN];
    size_t n = 0;
    if (stats_report_plot_input(r, &want, p->path, &po, &n, err, sizeof(err)))
        return cli_fail(EXIT_ERROR, "stats", "%s", err);
    fprintf(stderr, "netab stats: figure %s: %zu sets, %zu points, %gx%g\n", p->path, r->nsets, n,
            po.width, po.height);
    return 0;
}

int cli_stats(int argc, char **argv)
{
    struct cli_stats_args a = {.sets.v = calloc((size_t)argc + 1, sizeof(*a.sets.v))};
    struct stats_report r = {0};
    int rc = EXIT_ERROR;
    if (!a.sets.v) {
        fprintf(stderr, "netab stats: out of memory\n");
        goto out;
    }
    rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        goto out;
    if (stats_report_init(&r, a.sets.n, &a.opts)) {
        rc = cli_fail(EXIT_ERROR, "stats", "out of memory");
        goto out;
    }
    r.plot = a.plot;
    char err[NB_ERRLEN * 2];
    if (stats_report_read_sets(&r, &a.sets, &a.in, err, sizeof(err))) {
        rc = cli_fail(EXIT_USAGE, "stats", "%s", err);
        goto out;
    }
    rc = stats_report_analyse(&r, err, NB_ERRLEN) ? cli_fail(EXIT_ERROR, "stats", "%s", err)
                                                  : print_report(&r, &a);
    if (!rc && a.fig.path)
        rc = draw_figure(&r, &a.fig);
    if (!rc && a.fail_on_regression && stats_report_regressed(&r))
        rc = EXIT_FAIL;
out:
    stats_report_free(&r);
    free(a.sets.v);
    return rc;
}
