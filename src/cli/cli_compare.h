/*
 * Shared between the parts of `netab compare`: the argument parser
 * (cli_compare_args.c), the campaign loop (cli_compare.c), the analysis
 * (cli_compare_analyse.c) and the printers (cli_compare_print.c).
 */
#ifndef NETAB_CLI_COMPARE_H
#define NETAB_CLI_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"
#include "report/stats_report.h"
#include "stats/opts.h"
#include "stats/verdict.h"

/* With --until-ci, the first look comes after at least this many measured rounds. */
#define CLI_COMPARE_MIN_FIRST_LOOK 5

/*
 * Parses the command line into cfg (zeroed here; free with
 * compare_config_free() also on failure). Returns -1 to go on, EXIT_OK after
 * --help, or EXIT_USAGE after printing the reason to stderr.
 */
int cli_compare_parse(int argc, char **argv, struct compare_config *cfg);

struct cli_compare_metric_report {
    const struct compare_metric *m;
    bool ok;       /* every variant had >= 2 values, so r holds the statistics */
    char why[200]; /* when not ok: which variant lacked values */
    struct stats_report r;
};

struct cli_compare_result {
    const struct compare_campaign *c;
    struct compare_run *runs;
    size_t nruns, cap;
    unsigned rounds; /* measured rounds completed */
    unsigned looks_planned, looks_done;
    bool adaptive, target_reached, interrupted;
    double worst_halfwidth; /* at the last look: widest half-width of the relative change */
    struct stats_opts opts; /* as used for every comparison (confidence adjusted for looks) */
    struct cli_compare_metric_report *metrics; /* c->nmetrics of them, after the analysis */
    int exit_code;
    char exit_reason[320];
};

/*
 * Computes the statistics of metric i over the successful measured runs:
 * one set per variant, each compared with variant 0. Returns 0 or -ENOMEM;
 * out->ok says whether there was enough data. Free with
 * cli_compare_metric_free().
 */
int cli_compare_analyse_metric(const struct cli_compare_result *res, size_t i,
                               struct cli_compare_metric_report *out);
void cli_compare_metric_free(struct cli_compare_metric_report *m);

/* Analyses every metric and decides the exit status. Returns 0 or -ENOMEM. */
int cli_compare_analyse(struct cli_compare_result *res);

void cli_compare_print_text(const struct cli_compare_result *res);
/* Returns 0 or -ENOMEM. */
int cli_compare_print_json(const struct cli_compare_result *res);

#endif
