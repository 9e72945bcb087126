/*
 * The text form of the statistics report, as `netab stats` and `netab
 * compare` print it. Printing only: every number is computed already.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "statsreport/stats_report.h"
#include "stats/verdict.h"

#define PLOT_WIDTH 72
#define PLOT_HEIGHT 6 /* rows of marks per set; taller stacks are scaled down */

static int plot_col(double v, double lo, double hi)
{
    if (hi <= lo)
        return PLOT_WIDTH / 2;
    int c = (int)lround((v - lo) / (hi - lo) * (PLOT_WIDTH - 1));
    return c < 0 ? 0 : c >= PLOT_WIDTH ? PLOT_WIDTH - 1 : c;
}

/*
 * How many of s's values fall into each plot column between lo and hi;
 * returns the values per mark that keep the tallest stack within PLOT_HEIGHT.
 */
static size_t plot_counts(const struct stats_report_set *s, double lo, double hi,
                          size_t count[PLOT_WIDTH])
{
    size_t top = 0;
    memset(count, 0, PLOT_WIDTH * sizeof(*count));
    for (size_t k = 0; k < s->n; k++)
        count[plot_col(s->values[k], lo, hi)]++;
    for (int c = 0; c < PLOT_WIDTH; c++)
        top = count[c] > top ? count[c] : top;
    size_t per = (top + PLOT_HEIGHT - 1) / PLOT_HEIGHT;
    return per < 1 ? 1 : per;
}

/* One set's stacked marks, then a line with |___| over mean +- 1 sd, A at the mean, M the median.
 */
static void plot_set(const struct stats_report_set *s, double lo, double hi, FILE *f)
{
    size_t count[PLOT_WIDTH];
    size_t per = plot_counts(s, lo, hi, count), top = 0;
    for (int c = 0; c < PLOT_WIDTH; c++)
        top = count[c] > top ? count[c] : top;
    size_t rows = (top + per - 1) / per;
    for (size_t row = rows; row > 0; row--) {
        char line[PLOT_WIDTH + 1];
        for (int c = 0; c < PLOT_WIDTH; c++)
            line[c] = (count[c] + per - 1) / per >= row ? s->symbol : ' ';
        line[PLOT_WIDTH] = '\0';
        fprintf(f, "|%s|\n", line);
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
    fprintf(f, "|%s|\n", bar);
}

/* ministat-style plot of every set on one scale, from the smallest to the largest value. */
static void print_plot(const struct stats_report *r, FILE *f)
{
    double lo = r->sets[0].sum.min, hi = r->sets[0].sum.max;
    for (size_t i = 1; i < r->nsets; i++) {
        lo = fmin(lo, r->sets[i].sum.min);
        hi = fmax(hi, r->sets[i].sum.max);
    }
    char rule[PLOT_WIDTH + 1];
    memset(rule, '-', PLOT_WIDTH);
    rule[PLOT_WIDTH] = '\0';
    fprintf(f, "+%s+\n", rule);
    for (size_t i = 0; i < r->nsets; i++)
        plot_set(&r->sets[i], lo, hi, f);
    fprintf(f, "+%s+\n", rule);
    for (size_t i = 0; i < r->nsets; i++) {
        size_t count[PLOT_WIDTH];
        size_t per = plot_counts(&r->sets[i], lo, hi, count);
        if (per > 1)
            fprintf(f, "  %c: one mark for up to %zu values\n", r->sets[i].symbol, per);
    }
}

/*
 * v with printf format fmt (one double conversion) into b, or "n/a" when v
 * is NaN or infinite: the text report never shows "nan" or "inf".
 */
static const char *fmt_num(char *b, size_t n, const char *fmt, double v)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (isfinite(v))
        snprintf(b, n, fmt, v);
    else
        snprintf(b, n, "n/a");
#pragma GCC diagnostic pop
    return b;
}

/*
 * A value of r's sets into b as the text shows it: in r's unit (scaled),
 * with "%.6g" unless that switches to an exponent (7.61667e+08), then in
 * fixed notation with six significant digits at most after the point
 * (761666667, 0.0000123457), so that a reader never meets "e+08"; "n/a"
 * when not finite. sign: always a sign, as a difference has.
 */
static const char *fmt_val(char *b, size_t n, const struct stats_report *r, double v, bool sign)
{
    double x = v * (r->unit ? r->scale : 1);
    if (!isfinite(x)) {
        snprintf(b, n, "n/a");
        return b;
    }
    snprintf(b, n, sign ? "%+.6g" : "%.6g", x);
    if (!strchr(b, 'e'))
        return b;
    int digits = fabs(x) >= 1 ? 0 : 5 - (int)floor(log10(fabs(x)));
    snprintf(b, n, sign ? "%+.*f" : "%.*f", digits > 30 ? 30 : digits, x);
    /* Six significant digits, not trailing zeros: 0.0000123, not 0.0000123000. */
    size_t len = strlen(b);
    while (digits > 0 && len > 1 && b[len - 1] == '0')
        b[--len] = '\0';
    if (len && b[len - 1] == '.')
        b[--len] = '\0';
    return b;
}

void stats_report_failures_text(const struct input_failures *f, const char *sep, char *b, size_t n)
{
    size_t used = 0;
    b[0] = '\0';
    for (size_t i = 0; i < f->nwords && used < n; i++)
        used += (size_t)snprintf(b + used, n - used, "%s%s x%zu", i ? sep : "", f->words[i].word,
                                 f->words[i].count);
}

/*
 * A set's failed runs, when it has any, under its figures: they are runs
 * too, and a report that left them out would make the set look cleaner
 * than it was.
 */
static void print_failures(const struct stats_report_set *s, FILE *f)
{
    if (!s->fails.n)
        return;
    char words[INPUT_FAIL_WORDS_MAX * (INPUT_FAIL_WORD_MAX + 24)];
    stats_report_failures_text(&s->fails, ", ", words, sizeof(words));
    fprintf(f, "    failed %zu of %zu runs, not in the figures: %s\n", s->fails.n,
            s->n + s->fails.n, words);
}

static void print_sets(const struct stats_report *r, FILE *f)
{
    double conf = r->opts.confidence * 100;
    char cv[32], x[6][48];
    if (r->unit)
        fprintf(f, "Values in %s.\n", r->unit);
    fprintf(f, "    %9s %13s %13s %13s %13s %13s %7s\n", "N", "Min", "Max", "Median", "Mean",
            "Stddev", "CV%");
    for (size_t i = 0; i < r->nsets; i++) {
        const struct stats_summary *s = &r->sets[i].sum;
        fprintf(f, "%c   %9zu %13s %13s %13s %13s %13s %7s  %s\n", r->sets[i].symbol, s->n,
                fmt_val(x[0], 48, r, s->min, false), fmt_val(x[1], 48, r, s->max, false),
                fmt_val(x[2], 48, r, s->median, false), fmt_val(x[3], 48, r, s->mean, false),
                fmt_val(x[4], 48, r, s->stddev, false),
                fmt_num(cv, sizeof(cv), "%.3f", s->cv * 100), r->sets[i].name);
    }
    for (size_t i = 0; i < r->nsets; i++) {
        const struct stats_summary *s = &r->sets[i].sum;
        fprintf(f,
                "%c   mean %g%% CI [%s, %s] (t); median %g%% CI [%s, %s] (bootstrap, %zu "
                "resamples)\n",
                r->sets[i].symbol, conf, fmt_val(x[0], 48, r, s->mean_ci_low, false),
                fmt_val(x[1], 48, r, s->mean_ci_high, false), conf,
                fmt_val(x[2], 48, r, s->median_ci_low, false),
                fmt_val(x[3], 48, r, s->median_ci_high, false), s->median_resamples);
        const double p[6] = {s->p1, s->p5, s->p25, s->p75, s->p95, s->p99};
        for (size_t k = 0; k < 6; k++)
            fmt_val(x[k], 48, r, p[k], false);
        fprintf(f, "    p1 %s  p5 %s  p25 %s  p75 %s  p95 %s  p99 %s\n", x[0], x[1], x[2], x[3],
                x[4], x[5]);
        print_failures(&r->sets[i], f);
    }
}

/* The ratio lines: the ratio of means and of medians, or why there is none. */
static void print_ratios(const struct stats_report *r, const struct stats_comparison *c, FILE *f)
{
    char lo[48], hi[48];
    if (!c->ratio_defined) {
        fprintf(f, "  ratios undefined: the baseline's %g%% interval [%s, %s] reaches zero\n",
                r->opts.confidence * 100, fmt_val(lo, sizeof(lo), r, c->base_ci_low, false),
                fmt_val(hi, sizeof(hi), r, c->base_ci_high, false));
        return;
    }
    fmt_num(lo, sizeof(lo), "%.6f", c->ratio_ci_low);
    fmt_num(hi, sizeof(hi), "%.6f", c->ratio_ci_high);
    if (c->ratio_method == STATS_RATIO_BOOTSTRAP)
        fprintf(f, "  mean   ratio %.6f [%s, %s] (bootstrap percentile, %zu resamples)\n", c->ratio,
                lo, hi, c->ratio_resamples);
    else
        fprintf(f, "  mean   ratio %.6f [%s, %s] (Fieller)\n", c->ratio, lo, hi);
    fmt_num(lo, sizeof(lo), "%.6f", c->median_ratio_ci_low);
    fmt_num(hi, sizeof(hi), "%.6f", c->median_ratio_ci_high);
    char mr[32];
    fprintf(f, "  median ratio %s [%s, %s] (bootstrap, %zu resamples)\n",
            fmt_num(mr, sizeof(mr), "%.6f", c->median_ratio), lo, hi, c->median_resamples);
}

static void print_comparison(const struct stats_report *r, const struct stats_report_cmp *m,
                             FILE *f)
{
    const struct stats_report_set *base = &r->sets[0], *other = &r->sets[m->other];
    const struct stats_comparison *c = &m->c;
    double conf = r->opts.confidence * 100;
    fprintf(f, "\n%c %s vs %c %s (baseline); %s is better; %g%% intervals\n", other->symbol,
            other->name, base->symbol, base->name, r->opts.lower_is_better ? "lower" : "higher",
            conf);
    char pct[32], t[48];
    fmt_num(pct, sizeof(pct), "%+.3f%%", c->diff_pct);
    /* Two constant sets have no spread: t is infinite and says nothing more than p. */
    if (isfinite(c->welch.t))
        snprintf(t, sizeof(t), "t = %.3f", c->welch.t);
    else
        snprintf(t, sizeof(t), "t undefined (no spread)");
    char x[3][48];
    const char *u = r->unit ? r->unit : "", *sp = r->unit ? " " : "";
    fprintf(f, "  mean   diff  %s [%s, %s]%s%s (%s)   Welch %s, df = %.1f, p = %.3g\n",
            fmt_val(x[0], 48, r, c->diff, true), fmt_val(x[1], 48, r, c->diff_ci_low, true),
            fmt_val(x[2], 48, r, c->diff_ci_high, true), sp, u, pct, t, c->welch.df, c->welch.p);
    fprintf(f, "  median diff  %s [%s, %s]%s%s (bootstrap, %zu resamples)\n",
            fmt_val(x[0], 48, r, c->median_diff, true),
            fmt_val(x[1], 48, r, c->median_diff_ci_low, true),
            fmt_val(x[2], 48, r, c->median_diff_ci_high, true), sp, u, c->median_resamples);
    print_ratios(r, c, f);
    fprintf(f, "  Mann-Whitney U = %.1f, p = %.3g (%s)\n", c->mw.u, c->mw.p,
            c->mw.exact ? "exact" : "normal approximation, tie and continuity corrected");
    char why[512];
    stats_verdict_explain(&c->verdict, c->welch.p, r->opts.noise, why, sizeof(why));
    fprintf(f, "  verdict: %s\n    %s\n", stats_verdict_name(c->verdict.kind), why);
    for (size_t i = 0; i < m->nwarnings; i++)
        fprintf(f, "  warning: %s\n", m->warnings[i].message);
}

int stats_report_print_text(const struct stats_report *r, FILE *f)
{
    if (r->plot)
        print_plot(r, f);
    print_sets(r, f);
    for (size_t i = 0; i + 1 < r->nsets; i++)
        print_comparison(r, &r->cmps[i], f);
    /* A single set has no comparison to carry its warnings. */
    if (r->nsets == 1)
        for (size_t i = 0; i < r->sets[0].nwarnings; i++)
            fprintf(f, "warning: %s\n", r->sets[0].warnings[i].message);
    return ferror(f) ? -EIO : 0;
}
