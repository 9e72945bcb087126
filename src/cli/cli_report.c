/*
 * `netab report ID`: an experiment's matrix report from the results store
 * (docs/report.md). Argument parsing and printing only; the report module
 * (src/lib/report/build.c) does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "cli/cli_plot.h"
#include "report/report.h"
#include "report/metric.h"
#include "report/multi.h"
#include "report/plot.h"
#include "plot/plot.h"
#include "store/store.h"

#define MAX_METRICS 32
#define MAX_EXPERIMENTS 64

struct report_args {
    const char *db;
    long id;
    enum creport_format format;
    const char *metrics[MAX_METRICS];
    struct creport_opts opts;
    struct cli_plot fig;          /* --plot DIR */
    const char *fig_ext;          /* --plot-format */
    int64_t ids[MAX_EXPERIMENTS]; /* --experiments */
    size_t nids;
    enum creport_label label; /* --label */
    struct opt_given given;   /* --label goes with --experiments */
};

/* --experiments 3,5,7 into the ids. */
static int set_ids(void *field, const char *list, const struct opt *o, char *err, size_t errlen)
{
    struct report_args *a = field;
    (void)o;
    return creport_ids_parse(list, a->ids, MAX_EXPERIMENTS, &a->nids, err, errlen);
}

static int set_format(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    return creport_format_parse(value, field, err, errlen);
}

static int set_metric(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct report_args *a = field;
    char why[NB_ERRLEN];
    (void)o;
    if (!creport_metric_valid(value, why, sizeof(why)))
        return err_set(err, errlen, EINVAL, "--metric: %s", why);
    if (a->opts.nmetrics == MAX_METRICS)
        return err_set(err, errlen, EINVAL, "--metric: at most %d metrics", MAX_METRICS);
    a->metrics[a->opts.nmetrics++] = value;
    return 0;
}

/* --full and --sections LIST: once, one or the other. */
static int set_sections(void *field, const char *value, const struct opt *o, char *err,
                        size_t errlen)
{
    unsigned *sections = field;
    if (*sections)
        return err_set(err, errlen, EINVAL, "give --full or --sections once");
    if (!value) {
        *sections = CREPORT_SEC_ALL;
        return 0;
    }
    (void)o;
    return creport_section_parse(value, sections, err, errlen) ? -EINVAL : 0;
}

#define FIELD(f) offsetof(struct report_args, f)

static const struct opt options[] = {
    {"experiments", 0, "LIST",
     "one report over several experiments (comma-separated\nids): each experiment's variants "
     "are column groups,\ncells are matched by name, the first group is the\nbaseline",
     set_ids, 0, 0, 0, NULL},
    {"label", 0, "L",
     "name the groups by variant (default), experiment or\nkernel (the release each run "
     "recorded); \"#ID\" is\nadded where two experiments give the same name",
     opt_set_choice, FIELD(label), 0, 0, creport_label_choices},
    CLI_DB_OPT(FIELD(db)),
    {"format", 0, "F",
     "text (default; fits 72 columns), markdown, csv, json,\nhtml (one self-contained page with "
     "the figures),\nktap (KTAP for kernel CI, docs/ci.md)",
     set_format, FIELD(format), 0, 0, NULL},
    {"metric", 0, "NAME",
     "report this metric (repeatable; the first one a cell\nhas decides its verdict): a name "
     "(listed at the end;\nalso its path without end., cpu.local.process_us_per_kib)\nor a "
     "dotted path into\nthe runs' documents: perf.local.task_clock,\n"
     "kernel.remote.Udp.RcvbufErrors (end. may be left out;\nadd :lower or :higher for the "
     "better direction).\nDefault: all built-in ones that apply to each cell's\ntest; "
     "throughput, transactions or connections decides.",
     set_metric, 0, 0, 0, NULL},
    {"baseline", 0, "VARIANT",
     "compare the other variants with this one (default:\nthe first variant of the experiment "
     "file)",
     opt_set_nonempty, FIELD(opts.baseline), 0, 0, NULL},
    {"cell", 0, "TEMPLATE",
     "also a table of variants by --columns' values, each\nentry "
     "TEMPLATE filled in: 'tcp {tcp_stream:throughput}'",
     opt_set_nonempty, FIELD(opts.cell), 0, 0, NULL},
    {"columns", 0, "AXIS", "--cell's columns (default: dut, or the one axis\nbesides test)",
     opt_set_nonempty, FIELD(opts.columns), 0, 0, NULL},
    {"hot", 0, "FILE|LIST", "the code layout's hot functions, as layout --hot\n(repeatable)",
     layout_hot_opt_add, FIELD(opts.hot), 0, 0, NULL},
    {"pairs", 0, "all",
     "also compare every pair of variants, Bonferroni-\ncorrected (docs/report.md)", cli_set_pairs,
     FIELD(opts.pairs_all), 0, 0, NULL},
    {"transpose", 0, NULL, "cells as rows, variants as columns (text, markdown, html)",
     opt_set_true, FIELD(opts.transpose), 0, 0, NULL},
    {"full", 0, NULL, "the whole text report: every section below", set_sections,
     FIELD(opts.sections), 0, 0, NULL},
    {"sections", 0, "LIST",
     "only these sections (comma-separated; json keeps the\nexperiment's identity, html its "
     "summary, csv rows):\nheadline, changes, tables, "
     "details, pairs, effects, values,\nruns, layout, environment, counters, warnings, verdict, "
     "cpu,\nprofile",
     set_sections, FIELD(opts.sections), 0, 0, NULL},
    CLI_NOISE_OPT(FIELD(opts.noise)),
    CLI_CONFIDENCE_OPT(FIELD(opts.confidence)),
    {"plot", 0, "DIR",
     "also write every figure into DIR (created if missing):\ndistribution, forest and run "
     "order per cell, heatmap",
     opt_set_nonempty, FIELD(fig.path), 0, 0, NULL},
    {"plot-format", 0, "F", "png (default), svg or pdf", opt_set_word, FIELD(fig_ext), 0, 0,
     plot_format_choices},
    CLI_PLOT_SIZE_OPTS(struct report_args, fig),
    {0},
};

static void print_metric_names(void)
{
    cli_print_metric_names(METRIC_REPORT);
}

static const struct opt_table report_cmd = {
    .name = "report",
    .given = OPT_GIVEN_AT(struct report_args, given),
    .usage = "usage: netab report ID [--db PATH] [--format text|markdown|csv|json|html|ktap]\n"
             "       netab report --experiments ID,ID... [--label variant|experiment|kernel]\n"
             "                       [--metric NAME]... [--noise PCT] [--confidence P]\n"
             "                       [--baseline VARIANT] [--pairs all] [--transpose]\n"
             "                       [--full | --sections NAME,...]\n"
             "                       [--cell TEMPLATE [--columns AXIS]]\n"
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
             "options:\n",
    .tail = "\n"
            "exit status: 0 report written, no deciding metric regressed; 1 a deciding\n"
            "metric regressed in some cell; 2 bad command line, unknown experiment or\n"
            "unreadable database.\n",
    .opts = options,
    .more_help = print_metric_names,
};

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
    memset(a, 0, sizeof(*a));
    creport_opts_default(&a->opts);
    a->opts.metrics = a->metrics;
    char perr[NB_ERRLEN * 2];
    int rc = cli_opts_parse(&report_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    /* The HTML page and the CSV table lack some sections; the library says which. */
    if (creport_sections_check(a->format, a->opts.sections, perr, sizeof(perr)))
        return cli_usage_error("report", "%s", perr);
    if (opt_given(&report_cmd, a, "label") && !a->nids)
        return cli_usage_error("report", "--label goes with --experiments");
    if (a->nids && optind < argc)
        return cli_usage_error("report", "give an experiment ID or --experiments, not both");
    if (a->nids)
        return -1;
    if (optind >= argc)
        return cli_usage_error("report", "which experiment? (see 'netab experiment list')");
    if (!optval_int("ID", argv[optind], 1, INT64_MAX, &a->id, perr, sizeof(perr)))
        return cli_usage_error("report", "%s", perr);
    optind++;
    return cli_no_operands("report", argc, argv) ? EXIT_USAGE : -1;
}

/* --plot DIR: every figure as a file, and one line on stderr saying how many. */
static int draw_figures(const struct creport *r, const struct report_args *a)
{
    char err[NB_ERRLEN * 2];
    size_t n = 0;
    const char *ext = a->fig_ext ? a->fig_ext : "png";
    int e = creport_plot_dir(r, a->fig.path, ext, a->fig.width, a->fig.height, stderr, &n, err,
                             sizeof(err));
    if (n || !e) /* also when another figure failed (then exit 2) */
        fprintf(stderr, "netab report: %zu figures written to %s (%s)\n", n, a->fig.path, ext);
    return e ? cli_fail(-1, "report", "%s", err) : 0;
}

int cli_report(int argc, char **argv)
{
    struct report_args a;
    int rc = parse_args(argc, argv, &a);
    char err[NB_ERRLEN * 2];
    struct creport *r = NULL;
    int e =
        rc < 0 && creport_open(a.db, a.id, a.ids, a.nids, a.label, &a.opts, &r, err, sizeof(err));
    if (e) {
        rc = cli_fail(EXIT_USAGE, "report", "%s", err);
    } else if (rc < 0) {
        e = creport_render(r, a.format, (const char *const *)argv, stdout);
        rc = creport_exit_status(r);
        if (!e && a.fig.path && draw_figures(r, &a))
            rc = EXIT_USAGE;
        if (e || fflush(stdout))
            rc = cli_fail(EXIT_USAGE, "report", "could not write the report");
    }
    creport_free(r);
    layout_hot_free(&a.opts.hot); /* --hot's set, which the report pointed into */
    return rc;
}
