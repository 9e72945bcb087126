/* Text, JSON and CSV output of `netab stats`. Printing only: every number is computed already. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_stats.h"

#define PLOT_WIDTH 72
#define PLOT_HEIGHT 6 /* rows of marks per set; taller stacks are scaled down */

static const char *shown_name(const struct cli_stats_set *s)
{
    return strcmp(s->name, "-") ? s->name : "<stdin>";
}

static int plot_col(double v, double lo, double hi)
{
    if (hi <= lo)
        return PLOT_WIDTH / 2;
    int c = (int)lround((v - lo) / (hi - lo) * (PLOT_WIDTH - 1));
    return c < 0 ? 0 : c >= PLOT_WIDTH ? PLOT_WIDTH - 1 : c;
}

/*
 * ministat-style plot: for each set, its values as stacked marks, then a line
 * with |___| spanning mean +- 1 sd, A at the mean and M at the median.
 */
static void print_plot(const struct cli_stats_report *r)
{
    double lo = r->sets[0].sum.min, hi = r->sets[0].sum.max;
    for (size_t i = 1; i < r->nsets; i++) {
        lo = fmin(lo, r->sets[i].sum.min);
        hi = fmax(hi, r->sets[i].sum.max);
    }
    char rule[PLOT_WIDTH + 1];
    memset(rule, '-', PLOT_WIDTH);
    rule[PLOT_WIDTH] = '\0';
    printf("+%s+\n", rule);
    for (size_t i = 0; i < r->nsets; i++) {
        const struct cli_stats_set *s = &r->sets[i];
        size_t count[PLOT_WIDTH] = {0}, top = 0;
        for (size_t k = 0; k < s->in.n; k++)
            count[plot_col(s->in.v[k], lo, hi)]++;
        for (int c = 0; c < PLOT_WIDTH; c++)
            top = count[c] > top ? count[c] : top;
        size_t per = (top + PLOT_HEIGHT - 1) / PLOT_HEIGHT; /* values per mark */
        if (per < 1)
            per = 1;
        size_t rows = (top + per - 1) / per;
        for (size_t row = rows; row > 0; row--) {
            char line[PLOT_WIDTH + 1];
            for (int c = 0; c < PLOT_WIDTH; c++)
                line[c] = (count[c] + per - 1) / per >= row ? s->symbol : ' ';
            line[PLOT_WIDTH] = '\0';
            printf("|%s|\n", line);
        }
        char bar[PLOT_WIDTH + 1];
        memset(bar, ' ', PLOT_WIDTH);
        bar[PLOT_WIDTH] = '\0';
        int a = plot_col(s->sum.mean - s->sum.stddev, lo, hi);
        int b = plot_col(s->sum.mean + s->sum.stddev, lo, hi);
        for (int c = a; c <= b; c++)
            bar[c] = '_';
        bar[a] = '|';
        bar[b] = '|';
        bar[plot_col(s->sum.median, lo, hi)] = 'M';
        bar[plot_col(s->sum.mean, lo, hi)] = 'A';
        printf("|%s|\n", bar);
    }
    printf("+%s+\n", rule);
    for (size_t i = 0; i < r->nsets; i++) {
        const struct cli_stats_set *s = &r->sets[i];
        size_t top = 0, count[PLOT_WIDTH] = {0};
        for (size_t k = 0; k < s->in.n; k++)
            count[plot_col(s->in.v[k], lo, hi)]++;
        for (int c = 0; c < PLOT_WIDTH; c++)
            top = count[c] > top ? count[c] : top;
        size_t per = (top + PLOT_HEIGHT - 1) / PLOT_HEIGHT;
        if (per > 1)
            printf("  %c: one mark for up to %zu values\n", s->symbol, per);
    }
}

static void print_sets(const struct cli_stats_report *r)
{
    double conf = r->opts.confidence * 100;
    printf("    %9s %13s %13s %13s %13s %13s %7s\n", "N", "Min", "Max", "Median", "Mean", "Stddev",
           "CV%");
    for (size_t i = 0; i < r->nsets; i++) {
        const struct stats_summary *s = &r->sets[i].sum;
        printf("%c   %9zu %13.6g %13.6g %13.6g %13.6g %13.6g %7.3f  %s\n", r->sets[i].symbol, s->n,
               s->min, s->max, s->median, s->mean, s->stddev, s->cv * 100, shown_name(&r->sets[i]));
    }
    for (size_t i = 0; i < r->nsets; i++) {
        const struct stats_summary *s = &r->sets[i].sum;
        printf("%c   mean %g%% CI [%.6g, %.6g] (t); median %g%% CI [%.6g, %.6g] (bootstrap, %zu "
               "resamples)\n",
               r->sets[i].symbol, conf, s->mean_ci_low, s->mean_ci_high, conf, s->median_ci_low,
               s->median_ci_high, s->median_resamples);
        printf("    p1 %.6g  p5 %.6g  p25 %.6g  p75 %.6g  p95 %.6g  p99 %.6g\n", s->p1, s->p5,
               s->p25, s->p75, s->p95, s->p99);
    }
}

static void print_comparison(const struct cli_stats_report *r, const struct cli_stats_cmp *m)
{
    const struct cli_stats_set *base = &r->sets[0], *other = &r->sets[m->other];
    const struct stats_comparison *c = &m->c;
    double conf = r->opts.confidence * 100;
    printf("\n%c %s vs %c %s (baseline); %s is better; %g%% intervals\n", other->symbol,
           shown_name(other), base->symbol, shown_name(base),
           r->opts.lower_is_better ? "lower" : "higher", conf);
    printf("  mean   diff  %+.6g [%+.6g, %+.6g] (%+.3f%%)   Welch t = %.3f, df = %.1f, p = %.3g\n",
           c->diff, c->diff_ci_low, c->diff_ci_high, c->diff_pct, c->welch.t, c->welch.df,
           c->welch.p);
    if (c->ratio_method == STATS_RATIO_BOOTSTRAP)
        printf("  mean   ratio %.6f [%.6f, %.6f] (bootstrap percentile, %zu resamples)\n", c->ratio,
               c->ratio_ci_low, c->ratio_ci_high, c->ratio_resamples);
    else
        printf("  mean   ratio %.6f [%.6f, %.6f] (Fieller)\n", c->ratio, c->ratio_ci_low,
               c->ratio_ci_high);
    printf("  median diff  %+.6g [%+.6g, %+.6g]; ratio %.6f [%.6f, %.6f] (bootstrap, %zu "
           "resamples)\n",
           c->median_diff, c->median_diff_ci_low, c->median_diff_ci_high, c->median_ratio,
           c->median_ratio_ci_low, c->median_ratio_ci_high, c->median_resamples);
    printf("  Mann-Whitney U = %.1f, p = %.3g (%s)\n", c->mw.u, c->mw.p,
           c->mw.exact ? "exact" : "normal approximation, tie and continuity corrected");
    char why[512];
    stats_verdict_explain(&c->verdict, c->welch.p, r->opts.noise, why, sizeof(why));
    printf("  verdict: %s\n    %s\n", stats_verdict_name(c->verdict.kind), why);
    for (size_t i = 0; i < m->nwarnings; i++)
        printf("  warning: %s\n", m->warnings[i].message);
}

void cli_stats_print_text(const struct cli_stats_report *r)
{
    if (r->plot)
        print_plot(r);
    print_sets(r);
    for (size_t i = 0; i + 1 < r->nsets; i++)
        print_comparison(r, &r->cmps[i]);
    if (r->nsets == 1)
        for (size_t i = 0; i < r->sets[0].nwarnings; i++)
            printf("warning: %s\n", r->sets[0].warnings[i].message);
}

/* JSON has no NaN or infinity: such values become null. */
static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *warnings_json(const struct stats_warning *w, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:s?, s:s}", "kind", w[i].kind, "set", w[i].set,
                                           "message", w[i].message));
    return a;
}

static json_t *set_json(const struct cli_stats_set *s)
{
    const struct stats_summary *m = &s->sum;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", json_string(shown_name(s)));
    json_object_set_new(o, "format", json_string(input_format_name(s->in.format)));
    json_object_set_new(o, "metric", json_string(s->in.metric));
    json_object_set_new(o, "n", json_integer((json_int_t)m->n));
    const struct {
        const char *k;
        double v;
    } f[] = {
        {"mean", m->mean},
        {"median", m->median},
        {"stddev", m->stddev},
        {"min", m->min},
        {"max", m->max},
        {"cv", m->cv},
        {"mean_ci_low", m->mean_ci_low},
        {"mean_ci_high", m->mean_ci_high},
        {"median_ci_low", m->median_ci_low},
        {"median_ci_high", m->median_ci_high},
        {"p1", m->p1},
        {"p5", m->p5},
        {"p25", m->p25},
        {"p75", m->p75},
        {"p95", m->p95},
        {"p99", m->p99},
        {"spearman_rho", s->checks.spearman_rho},
        {"spearman_p", s->checks.spearman_p},
        {"bimodality_coefficient", s->checks.bimodality},
        {"tukey_fence_low", s->checks.fence_low},
        {"tukey_fence_high", s->checks.fence_high},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        json_object_set_new(o, f[i].k, num(f[i].v));
    json_object_set_new(o, "median_resamples", json_integer((json_int_t)m->median_resamples));
    json_object_set_new(
        o, "outliers",
        json_integer((json_int_t)(s->checks.outliers_low + s->checks.outliers_high)));
    json_object_set_new(o, "warnings", warnings_json(s->warnings, s->nwarnings));
    return o;
}

static json_t *cmp_json(const struct cli_stats_report *r, const struct cli_stats_cmp *m)
{
    const struct stats_comparison *c = &m->c;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "baseline", json_string(shown_name(&r->sets[0])));
    json_object_set_new(o, "other", json_string(shown_name(&r->sets[m->other])));
    const struct {
        const char *k;
        double v;
    } f[] = {
        {"diff", c->diff},
        {"diff_ci_low", c->diff_ci_low},
        {"diff_ci_high", c->diff_ci_high},
        {"diff_pct", c->diff_pct},
        {"ratio", c->ratio},
        {"ratio_ci_low", c->ratio_ci_low},
        {"ratio_ci_high", c->ratio_ci_high},
        {"welch_t", c->welch.t},
        {"welch_df", c->welch.df},
        {"welch_p", c->welch.p},
        {"mannwhitney_u", c->mw.u},
        {"mannwhitney_p", c->mw.p},
        {"median_diff", c->median_diff},
        {"median_diff_ci_low", c->median_diff_ci_low},
        {"median_diff_ci_high", c->median_diff_ci_high},
        {"median_ratio", c->median_ratio},
        {"median_ratio_ci_low", c->median_ratio_ci_low},
        {"median_ratio_ci_high", c->median_ratio_ci_high},
        {"rel_change", c->verdict.rel},
        {"rel_change_ci_low", c->verdict.rel_low},
        {"rel_change_ci_high", c->verdict.rel_high},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        json_object_set_new(o, f[i].k, num(f[i].v));
    json_object_set_new(
        o, "ratio_method",
        json_string(c->ratio_method == STATS_RATIO_BOOTSTRAP ? "bootstrap-percentile" : "fieller"));
    json_object_set_new(o, "ratio_resamples", json_integer((json_int_t)c->ratio_resamples));
    json_object_set_new(o, "median_resamples", json_integer((json_int_t)c->median_resamples));
    json_object_set_new(o, "mannwhitney_exact", json_boolean(c->mw.exact));
    json_object_set_new(o, "verdict", json_string(stats_verdict_name(c->verdict.kind)));
    char why[512];
    stats_verdict_explain(&c->verdict, c->welch.p, r->opts.noise, why, sizeof(why));
    json_object_set_new(o, "verdict_detail", json_string(why));
    json_object_set_new(o, "significant", json_boolean(c->verdict.significant));
    json_object_set_new(o, "significant_within_noise",
                        json_boolean(c->verdict.significant_within_floor));
    json_object_set_new(o, "runs_needed", json_integer((json_int_t)c->runs_needed));
    json_object_set_new(o, "warnings", warnings_json(m->warnings, m->nwarnings));
    return o;
}

json_t *cli_stats_report_json(const struct cli_stats_report *r)
{
    json_t *doc = json_object(), *sets = json_array(), *cmps = json_array();
    if (!doc || !sets || !cmps) {
        json_decref(doc);
        json_decref(sets);
        json_decref(cmps);
        return NULL;
    }
    json_object_set_new(doc, "confidence", json_real(r->opts.confidence));
    json_object_set_new(doc, "noise_pct", json_real(r->opts.noise * 100));
    json_object_set_new(
        doc, "direction",
        json_string(r->opts.lower_is_better ? "lower-is-better" : "higher-is-better"));
    json_object_set_new(doc, "seed", json_integer((json_int_t)r->opts.seed));
    json_object_set_new(doc, "resamples", json_integer((json_int_t)r->opts.resamples));
    for (size_t i = 0; i < r->nsets; i++)
        json_array_append_new(sets, set_json(&r->sets[i]));
    for (size_t i = 0; i + 1 < r->nsets; i++)
        json_array_append_new(cmps, cmp_json(r, &r->cmps[i]));
    json_object_set_new(doc, "sets", sets);
    json_object_set_new(doc, "comparisons", cmps);
    return doc;
}

int cli_stats_print_json(const struct cli_stats_report *r)
{
    json_t *doc = cli_stats_report_json(r);
    if (!doc)
        return -ENOMEM;
    int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(doc);
    putchar('\n');
    return rc ? -ENOMEM : 0;
}

/* Quotes a CSV field the RFC 4180 way. */
static void csv_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void csv_num(double x)
{
    if (isfinite(x))
        printf(",%.17g", x);
    else
        printf(",");
}

void cli_stats_print_csv(const struct cli_stats_report *r)
{
    printf("name,n,mean,median,stddev,min,max,cv,mean_ci_low,mean_ci_high,median_ci_low,"
           "median_ci_high,p5,p95,outliers\n");
    for (size_t i = 0; i < r->nsets; i++) {
        const struct cli_stats_set *s = &r->sets[i];
        const struct stats_summary *m = &s->sum;
        csv_str(shown_name(s));
        printf(",%zu", m->n);
        double v[] = {m->mean, m->median,      m->stddev,       m->min,           m->max,
                      m->cv,   m->mean_ci_low, m->mean_ci_high, m->median_ci_low, m->median_ci_high,
                      m->p5,   m->p95};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            csv_num(v[k]);
        printf(",%zu\n", s->checks.outliers_low + s->checks.outliers_high);
    }
    printf("\nbaseline,other,diff,diff_ci_low,diff_ci_high,diff_pct,ratio,ratio_ci_low,"
           "ratio_ci_high,welch_p,mannwhitney_p,verdict,warnings\n");
    for (size_t i = 0; i + 1 < r->nsets; i++) {
        const struct cli_stats_cmp *m = &r->cmps[i];
        const struct stats_comparison *c = &m->c;
        csv_str(shown_name(&r->sets[0]));
        putchar(',');
        csv_str(shown_name(&r->sets[m->other]));
        double v[] = {c->diff,         c->diff_ci_low,   c->diff_ci_high, c->diff_pct, c->ratio,
                      c->ratio_ci_low, c->ratio_ci_high, c->welch.p,      c->mw.p};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            csv_num(v[k]);
        putchar(',');
        csv_str(stats_verdict_name(c->verdict.kind));
        putchar(',');
        char all[CLI_STATS_CMP_WARNINGS * 24] = "";
        size_t used = 0;
        for (size_t k = 0; k < m->nwarnings && used < sizeof(all); k++)
            used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%s", k ? ";" : "",
                                     m->warnings[k].kind);
        csv_str(all);
        putchar('\n');
    }
}
