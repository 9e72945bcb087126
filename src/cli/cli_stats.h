/*
 * Shared between the `netab stats` argument parser (cli_stats.c) and its
 * printers (cli_stats_print.c); nothing outside the CLI uses it.
 */
#ifndef NETAB_CLI_STATS_H
#define NETAB_CLI_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "input/input.h"
#include "stats/compare.h"
#include "stats/opts.h"
#include "stats/sample.h"
#include "stats/summary.h"
#include "stats/warnings.h"

/* Comparison warnings: both sets' own warnings plus up to three about the comparison. */
#define CLI_STATS_CMP_WARNINGS (2 * STATS_WARNING_MAX + 4)

struct cli_stats_set {
    const char *name; /* the path as given (borrowed from argv) */
    char symbol;      /* the plot mark: x, +, *, ... */
    struct input_values in;
    struct stats_sample sample;
    struct stats_summary sum;
    struct stats_checks checks;
    struct stats_warning warnings[STATS_WARNING_MAX];
    size_t nwarnings;
};

struct cli_stats_cmp {
    size_t other; /* index into the set array; the baseline is set 0 */
    struct stats_comparison c;
    struct stats_warning warnings[CLI_STATS_CMP_WARNINGS];
    size_t nwarnings;
};

struct cli_stats_report {
    struct stats_opts opts;
    struct cli_stats_set *sets;
    size_t nsets;
    struct cli_stats_cmp *cmps; /* nsets - 1 comparisons */
    bool plot;
};

/*
 * Describes the values s->in.v[0..s->in.n-1] (n >= 2): sample, summary,
 * checks and the set's warnings, which name it `shown`. Returns 0 or -ENOMEM.
 */
int cli_stats_describe(struct cli_stats_set *s, const char *shown, const struct stats_opts *o);

/* Collects the warnings of a comparison: both sets' and the comparison's own. */
void cli_stats_compare_warnings(struct cli_stats_cmp *m, const struct cli_stats_set *base,
                                const struct cli_stats_set *other, const struct stats_opts *o);

/* The `netab stats --json` document of r; caller has ownership. NULL when out of memory. */
json_t *cli_stats_report_json(const struct cli_stats_report *r);

void cli_stats_print_text(const struct cli_stats_report *r);
/* Returns 0 or -ENOMEM. */
int cli_stats_print_json(const struct cli_stats_report *r);
void cli_stats_print_csv(const struct cli_stats_report *r);

#endif
