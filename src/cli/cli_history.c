/*
 * `netab history`: a metric across stored experiments (or a CSV of label,
 * value) in time order, with change points by E-divisive means
 * (docs/history.md). Text (a table to paste into a mail), JSON, a figure.
 */
#include <errno.h>
#include <stddef.h>
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
#include "cli/cli_opts.h"
#include "history/changes.h"
#include "plot/plot.h"
#include "store/store.h"

#define CMD "history"
#define MAX_DBS 16

struct history_args {
    const char *dbs[MAX_DBS];
    size_t ndb;
    const char *csv, *metric, *variant, *plot;
    enum history_by by;
    struct stats_cp_opts cp;
    bool json, series;
};

/* --db: one more store. */
static int set_db(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    struct history_args *a = field;
    (void)o;
    if (a->ndb == MAX_DBS)
        return err_set(err, errlen, EINVAL, "--db: at most %d stores", MAX_DBS);
    a->dbs[a->ndb++] = value;
    return 0;
}

static int set_by(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    static const char *const names[] = {"experiment", "commit", "kernel"};
    (void)o;
    for (int i = 0; i < 3; i++)
        if (!strcmp(value, names[i])) {
            *(enum history_by *)field = (enum history_by)i;
            return 0;
        }
    return err_set(err, errlen, EINVAL, "--by: '%s' is not experiment, commit or kernel", value);
}

#define FIELD(f) offsetof(struct history_args, f)

static const struct cli_opt options[] = {
    {"db", 0, "PATH",
     "a results store; repeat for several (default: $NETAB_DB,\nelse "
     "~/.local/share/netab/results.db)",
     set_db, 0, 0, 0},
    {"csv", 0, "FILE", "a series of 'label,value' lines instead of a store", cli_set_string,
     FIELD(csv), 0, 0},
    {"metric", 0, "M", "throughput (default), any netab compare metric or dotted path",
     cli_set_string, FIELD(metric), 0, 0},
    {"variant", 0, "V", "only this variant's series", cli_set_string, FIELD(variant), 0, 0},
    {"by", 0, "WHAT",
     "a point per experiment (default), per commit (consecutive\nexperiments of one commit: a "
     "bisection's steps, else the\nexperiment's name) or per kernel (the DUT's, else the local)",
     set_by, FIELD(by), 0, 0},
    {"significance", 0, "PCT", "of each split's permutation test (default 1)", cli_set_pct,
     FIELD(cp.alpha), 0.01, 50},
    {"min-segment", 0, "N", "the shortest segment, in points (default 5)", cli_set_size,
     FIELD(cp.min_seg), 2, 100000},
    {"permutations", 0, "N", "shuffles per test (default 999)", cli_set_size,
     FIELD(cp.permutations), 19, 100000},
    {"seed", 0, "N", "of the shuffles (default 1: repeatable)", cli_set_u64, FIELD(cp.seed), 0,
     9007199254740992.0},
    {"confidence", 0, "P", "of each change's interval, percent (default 95)", cli_set_pct,
     FIELD(cp.confidence), 50, 99.99},
    {"series", 0, NULL, "also list every point", cli_set_true, FIELD(series), 0, 0},
    {"json", 0, NULL, "one JSON document on stdout", cli_set_true, FIELD(json), 0, 0},
    {"plot", 0, "FILE", "the series, its segments and change points (.png, .svg, .pdf)",
     cli_set_string, FIELD(plot), 0, 0},
    {0},
};

static const struct cli_cmd history_cmd = {
    .name = CMD,
    .usage = "usage: netab history [--db PATH]... [--metric M] [--variant V]\n"
             "                     [--by experiment|commit|kernel]\n"
             "       netab history --csv FILE\n"
             "\n"
             "One metric of each variant (or of --variant V) across the experiments of one\n"
             "or several results stores, in order of creation, and its change points found\n"
             "by E-divisive means: each with the point where it starts, the means before\n"
             "and after, the change with its interval and the permutation test's p-value.\n"
             "\n",
    .tail = "\n"
            "exit status: 0 no change point, 1 at least one change point, 2 bad usage or "
            "input.\n",
    .opts = options,
};

static int parse(int argc, char **argv, struct history_args *a)
{
    memset(a, 0, sizeof(*a));
    stats_cp_opts_default(&a->cp);
    int rc = cli_opts_parse(&history_cmd, argc, argv, a);
    if (rc >= 0)
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
