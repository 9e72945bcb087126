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
#include "history/history.h"
#include "plot/plot.h"
#include "plot/plot_history.h"
#include "stats/changepoint.h"
#include "store/store.h"
#include "util/units.h"

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

/* A value in the metric's unit. */
static void fmt_value(const struct history *h, double v, char *buf, size_t len)
{
    if (!strcmp(h->unit, "bit/s"))
        units_format_rate(v, buf, len);
    else
        snprintf(buf, len, "%.6g%s%s", v, *h->unit ? " " : "", h->unit);
}

/* The change points of one series. */
struct analysed {
    double *y;
    struct stats_changepoint *cp;
    size_t ncp;
};

static int analyse(const struct history_series *s, const struct stats_cp_opts *o,
                   struct analysed *a)
{
    a->y = malloc((s->n ? s->n : 1) * sizeof(*a->y));
    if (!a->y)
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++)
        a->y[i] = s->pts[i].value;
    return stats_changepoints(a->y, s->n, o, &a->cp, &a->ncp);
}

static void print_method(const struct history *h, const struct history_args *a)
{
    printf("netab history: %s%s%s%s, %s is better; by %s\n", h->metric, *h->unit ? " (" : "",
           h->unit, *h->unit ? ")" : "", h->lower_is_better ? "lower" : "higher",
           a->csv                       ? "CSV line"
           : a->by == HISTORY_BY_COMMIT ? "commit"
           : a->by == HISTORY_BY_KERNEL ? "kernel"
                                        : "experiment");
    printf("change points: E-divisive means, significance %g%% per split (%zu permutations, "
           "seed %llu), minimum segment %zu points, %g%% intervals\n",
           a->cp.alpha * 100, a->cp.permutations, (unsigned long long)a->cp.seed, a->cp.min_seg,
           a->cp.confidence * 100);
}

static void print_series(const struct history *h, const struct history_series *s,
                         const struct analysed *an, bool all)
{
    char b[48], c[48];
    printf("\n%s%s%s%zu point%s, %zu change point%s\n", s->variant ? "variant '" : "",
           s->variant ? s->variant : "", s->variant ? "': " : "", s->n, s->n == 1 ? "" : "s",
           an->ncp, an->ncp == 1 ? "" : "s");
    if (an->ncp)
        printf("  %-6s %-28s %14s %14s  %-26s %s\n", "point", "first point after", "before",
               "after", "change [interval]", "p");
    for (size_t k = 0; k < an->ncp; k++) {
        const struct stats_changepoint *cp = &an->cp[k];
        fmt_value(h, cp->mean_before, b, sizeof(b));
        fmt_value(h, cp->mean_after, c, sizeof(c));
        char ch[64];
        if (isfinite(cp->rel))
            snprintf(ch, sizeof(ch), "%+.2f%% [%+.2f, %+.2f]", cp->rel * 100, cp->rel_low * 100,
                     cp->rel_high * 100);
        else
            snprintf(ch, sizeof(ch), "-");
        printf("  %-6zu %-28.28s %14s %14s  %-26s %.3g\n", cp->index + 1, s->pts[cp->index].label,
               b, c, ch, cp->p);
    }
    printf("  segments:");
    for (size_t k = 0; k <= an->ncp; k++) {
        size_t from = k ? an->cp[k - 1].index : 0, to = k < an->ncp ? an->cp[k].index : s->n;
        double m = 0;
        for (size_t i = from; i < to; i++)
            m += an->y[i] / (double)(to - from);
        fmt_value(h, m, b, sizeof(b));
        printf("%s %zu-%zu mean %s", k ? ";" : "", from + 1, to, b);
    }
    printf("\n");
    for (size_t i = 0; all && i < s->n; i++) {
        fmt_value(h, s->pts[i].value, b, sizeof(b));
        printf("  %4zu  %-40s %14s  %zu run%s%s%s\n", i + 1, s->pts[i].label, b, s->pts[i].nruns,
               s->pts[i].nruns == 1 ? "" : "s", s->pts[i].when ? "  " : "",
               s->pts[i].when ? s->pts[i].when : "");
    }
}

static json_t *series_json(const struct history_series *s, const struct analysed *an)
{
    json_t *pts = json_array(), *cps = json_array();
    for (size_t i = 0; pts && i < s->n; i++)
        json_array_append_new(pts, json_pack("{s:s, s:f, s:I, s:s?}", "label", s->pts[i].label,
                                             "value", s->pts[i].value, "runs",
                                             (json_int_t)s->pts[i].nruns, "when", s->pts[i].when));
    for (size_t k = 0; cps && k < an->ncp; k++) {
        const struct stats_changepoint *c = &an->cp[k];
        json_t *rel = isfinite(c->rel) ? json_real(c->rel * 100) : json_null();
        json_t *lo = isfinite(c->rel_low) ? json_real(c->rel_low * 100) : json_null();
        json_t *hi = isfinite(c->rel_high) ? json_real(c->rel_high * 100) : json_null();
        json_array_append_new(
            cps, json_pack("{s:I, s:s, s:I, s:I, s:f, s:f, s:o, s:o, s:o, s:f, s:f}", "index",
                           (json_int_t)c->index, "label", s->pts[c->index].label, "n_before",
                           (json_int_t)c->n_before, "n_after", (json_int_t)c->n_after,
                           "mean_before", c->mean_before, "mean_after", c->mean_after, "change_pct",
                           rel, "change_ci_low_pct", lo, "change_ci_high_pct", hi, "p", c->p,
                           "energy", c->q));
    }
    return json_pack("{s:s?, s:o, s:o}", "variant", s->variant, "points", pts ? pts : json_array(),
                     "change_points", cps ? cps : json_array());
}

static int print_json(const struct history *h, const struct analysed *an,
                      const struct history_args *a)
{
    json_t *series = json_array();
    for (size_t i = 0; series && i < h->n; i++)
        json_array_append_new(series, series_json(&h->series[i], &an[i]));
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:f, s:I, s:I, s:I, s:f}, s:o}", "metric",
                          h->metric, "unit", h->unit, "direction",
                          h->lower_is_better ? "lower" : "higher", "by",
                          a->csv                       ? "csv"
                          : a->by == HISTORY_BY_COMMIT ? "commit"
                          : a->by == HISTORY_BY_KERNEL ? "kernel"
                                                       : "experiment",
                          "method", "method", "e-divisive means", "significance", a->cp.alpha,
                          "permutations", (json_int_t)a->cp.permutations, "min_segment",
                          (json_int_t)a->cp.min_seg, "seed", (json_int_t)a->cp.seed, "confidence",
                          a->cp.confidence, "series", series ? series : json_array());
    int rc = !j || json_dumpf(j, stdout, JSON_INDENT(2)) ? -EIO : 0;
    putchar('\n');
    json_decref(j);
    return rc;
}

/* The figure: one panel per series, stacked. Returns 0 or -errno after printing why. */
static int draw(const struct history *h, const struct analysed *an, const char *path)
{
    struct plot_history *figs = calloc(h->n, sizeof(*figs));
    struct plot_stack_part *parts = calloc(h->n, sizeof(*parts));
    size_t **cuts = calloc(h->n, sizeof(*cuts));
    char(*titles)[160] = calloc(h->n, sizeof(*titles)), axis[160];
    int rc = figs && parts && cuts && titles ? 0 : -ENOMEM;
    snprintf(axis, sizeof(axis), "%.100s%s%.30s%s", h->metric, *h->unit ? " (" : "", h->unit,
             *h->unit ? ")" : "");
    for (size_t i = 0; !rc && i < h->n; i++) {
        if (!(cuts[i] = calloc(an[i].ncp + 1, sizeof(**cuts)))) {
            rc = -ENOMEM;
            break;
        }
        for (size_t k = 0; k < an[i].ncp; k++)
            cuts[i][k] = an[i].cp[k].index;
        snprintf(titles[i], sizeof(titles[i]), "%s%s%s: %zu change point%s", h->metric,
                 h->series[i].variant ? " of " : "",
                 h->series[i].variant ? h->series[i].variant : "", an[i].ncp,
                 an[i].ncp == 1 ? "" : "s");
        figs[i] =
            (struct plot_history){titles[i], axis, an[i].y, h->series[i].n, cuts[i], an[i].ncp};
        parts[i] = (struct plot_stack_part){plot_draw_history, &figs[i], 1};
    }
    char err[NB_ERRLEN] = "out of memory";
    struct plot_stack st = {parts, h->n};
    if (!rc)
        rc = plot_write_file(path, PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT * (double)h->n,
                             plot_draw_stack, &st, err, sizeof(err));
    if (rc)
        fprintf(stderr, "netab history: %s\n", err);
    for (size_t i = 0; cuts && i < h->n; i++)
        free(cuts[i]);
    free(cuts);
    free(figs);
    free(parts);
    free(titles);
    return rc;
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
    struct analysed *an = calloc(h.n, sizeof(*an));
    size_t found = 0;
    rc = an ? 0 : -ENOMEM;
    for (size_t i = 0; !rc && i < h.n; i++) {
        rc = analyse(&h.series[i], &a.cp, &an[i]);
        found += an[i].ncp;
    }
    if (!rc && a.json) {
        rc = print_json(&h, an, &a);
    } else if (!rc) {
        print_method(&h, &a);
        for (size_t i = 0; i < h.n; i++)
            print_series(&h, &h.series[i], &an[i], a.series);
    }
    if (!rc && a.plot)
        rc = draw(&h, an, a.plot);
    if (rc == -ENOMEM)
        fprintf(stderr, "netab history: out of memory\n");
    for (size_t i = 0; an && i < h.n; i++) {
        free(an[i].y);
        free(an[i].cp);
    }
    free(an);
    history_free(&h);
    if (!rc && (fflush(stdout) || ferror(stdout)))
        rc = -EIO;
    return rc ? EXIT_USAGE : found ? EXIT_FAIL : EXIT_OK;
}
