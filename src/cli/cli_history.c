/*
 * `netab history`: a metric across stored experiments (or a CSV of label,
 * value) in time order, with change points by E-divisive means
 * (docs/history.md). Text (a table to paste into a mail), JSON, a figure.
 */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "cli/cli_plot.h"
#include "history/changes.h"

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
static int set_db(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct history_args *a = field;
    (void)o;
    if (a->ndb == MAX_DBS)
        return err_set(err, errlen, EINVAL, "--db: at most %d stores", MAX_DBS);
    a->dbs[a->ndb++] = value;
    return 0;
}

#define FIELD(f) offsetof(struct history_args, f)

static const struct opt options[] = {
    {"db", 0, "PATH",
     "a results store; repeat for several (default: $NETAB_DB,\nelse "
     "~/.local/share/netab/results.db)",
     set_db, 0, 0, 0, NULL},
    {"csv", 0, "FILE", "a series of 'label,value' lines instead of a store", opt_set_string,
     FIELD(csv), 0, 0, NULL},
    {"metric", 0, "M", "throughput (default), any netab compare metric or dotted path",
     opt_set_string, FIELD(metric), 0, 0, NULL},
    {"variant", 0, "V", "only this variant's series", opt_set_string, FIELD(variant), 0, 0, NULL},
    {"by", 0, "WHAT",
     "a point per experiment (default), per commit (consecutive\nexperiments of one commit: a "
     "bisection's steps, else the\nexperiment's name) or per kernel (the DUT's, else the local)",
     opt_set_choice, FIELD(by), 0, 0, history_by_choices},
    {"significance", 0, "PCT", "of each split's permutation test (default 1)", opt_set_pct,
     FIELD(cp.alpha), 0.01, 50, NULL},
    {"min-segment", 0, "N", "the shortest segment, in points (default 5)", opt_set_size,
     FIELD(cp.min_seg), 2, 100000, NULL},
    {"permutations", 0, "N", "shuffles per test (default 999)", opt_set_size,
     FIELD(cp.permutations), 19, 100000, NULL},
    {"seed", 0, "N", "of the shuffles (default 1: repeatable)", opt_set_u64, FIELD(cp.seed), 0,
     9007199254740992.0, NULL},
    {"confidence", 0, "P", "of each change's interval, percent (default 95)", opt_set_pct,
     FIELD(cp.confidence), 50, 99.99, NULL},
    {"series", 0, NULL, "also list every point", opt_set_true, FIELD(series), 0, 0, NULL},
    {"json", 0, NULL, "one JSON document on stdout", opt_set_true, FIELD(json), 0, 0, NULL},
    {"plot", 0, "FILE", "the series, its segments and change points (.png, .svg, .pdf)",
     opt_set_string, FIELD(plot), 0, 0, NULL},
    {0},
};

static const struct opt_table history_cmd = {
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
    if (cli_no_operands(CMD, argc, argv))
        return EXIT_USAGE;
    if (a->csv && (a->ndb || a->metric || a->variant || a->by))
        return cli_usage_error(CMD, "--csv reads its own series: no --db, --metric, --variant "
                                    "or --by with it");
    if (cli_plot_check(CMD, &(struct cli_plot){.path = a->plot}))
        return EXIT_USAGE;
    return -1;
}

int cli_history(int argc, char **argv)
{
    struct history_args a;
    int rc = parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char err[NB_ERRLEN];
    struct history h;
    rc = a.csv ? history_from_csv(a.csv, &h, err, sizeof(err))
               : history_from_stores(a.dbs, a.ndb, a.metric, a.variant, a.by, &h, err, sizeof(err));
    if (rc) {
        history_free(&h);
        return cli_fail(EXIT_USAGE, CMD, "%s", err);
    }
    struct history_analysis an;
    rc = history_analyse(&h, &a.cp, a.csv != NULL, a.by, &an);
    if (!rc && a.json)
        rc = cli_json_print(CMD, history_document(&an)) ? -EIO : 0;
    else if (!rc)
        history_print_text(stdout, &an, a.series);
    if (!rc && a.plot && history_draw(&an, a.plot, err, sizeof(err)))
        rc = cli_fail(-EINVAL, CMD, "%s", err);
    if (rc == -ENOMEM)
        fprintf(stderr, "netab history: out of memory\n");
    size_t found = an.found;
    history_analysis_free(&an);
    history_free(&h);
    if (!rc && (fflush(stdout) || ferror(stdout)))
        rc = -EIO;
    return rc ? EXIT_USAGE : found ? EXIT_FAIL : EXIT_OK;
}
