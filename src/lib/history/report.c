/* netab history's text and JSON (docs/history.md); every number computed already. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "history/changes.h"
#include "util/units.h"
#include "judge/judge.h"

/* A value in the metric's unit. */
static void fmt_value(const struct history *h, double v, char *buf, size_t len)
{
    if (!strcmp(h->unit, "bit/s"))
        units_format_rate(v, buf, len);
    else
        snprintf(buf, len, "%.6g%s%s", v, *h->unit ? " " : "", h->unit);
}

/* What a point is, as text ("CSV line") or in JSON ("csv"). */
static const char *by_name(const struct history_analysis *a, bool json)
{
    if (a->csv)
        return json ? "csv" : "CSV line";
    return a->by == HISTORY_BY_COMMIT   ? "commit"
           : a->by == HISTORY_BY_KERNEL ? "kernel"
                                        : "experiment";
}

static void print_method(FILE *out, const struct history_analysis *a)
{
    const struct history *h = a->h;
    fprintf(out, "netab history: %s%s%s%s, %s is better; by %s\n", h->metric, *h->unit ? " (" : "",
            h->unit, *h->unit ? ")" : "", h->lower_is_better ? "lower" : "higher",
            by_name(a, false));
    fprintf(out,
            "change points: E-divisive means, significance %g%% per split (%zu permutations, "
            "seed %llu), minimum segment %zu points, %g%% intervals\n",
            a->opts.alpha * 100, a->opts.permutations, (unsigned long long)a->opts.seed,
            a->opts.min_seg, a->opts.confidence * 100);
}

static void print_series(FILE *out, const struct history *h, const struct history_series *s,
                         const struct history_changes *an, bool all)
{
    char b[48], c[48];
    fprintf(out, "\n%s%s%s%zu point%s, %zu change point%s\n", s->variant ? "variant '" : "",
            s->variant ? s->variant : "", s->variant ? "': " : "", s->n, s->n == 1 ? "" : "s",
            an->ncp, an->ncp == 1 ? "" : "s");
    if (an->ncp)
        fprintf(out, "  %-6s %-28s %14s %14s  %-26s %s\n", "point", "first point after", "before",
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
        fprintf(out, "  %-6zu %-28.28s %14s %14s  %-26s %.3g\n", cp->index + 1,
                s->pts[cp->index].label, b, c, ch, cp->p);
    }
    fprintf(out, "  segments:");
    for (size_t k = 0; k <= an->ncp; k++) {
        size_t from = k ? an->cp[k - 1].index : 0, to = k < an->ncp ? an->cp[k].index : s->n;
        double m = 0;
        for (size_t i = from; i < to; i++)
            m += an->y[i] / (double)(to - from);
        fmt_value(h, m, b, sizeof(b));
        fprintf(out, "%s %zu-%zu mean %s", k ? ";" : "", from + 1, to, b);
    }
    fprintf(out, "\n");
    for (size_t i = 0; all && i < s->n; i++) {
        fmt_value(h, s->pts[i].value, b, sizeof(b));
        fprintf(out, "  %4zu  %-40s %14s  %zu run%s%s%s\n", i + 1, s->pts[i].label, b,
                s->pts[i].nruns, s->pts[i].nruns == 1 ? "" : "s", s->pts[i].when ? "  " : "",
                s->pts[i].when ? s->pts[i].when : "");
    }
}

void history_print_text(FILE *out, const struct history_analysis *a, bool all_points)
{
    print_method(out, a);
    for (size_t i = 0; i < a->h->n; i++)
        print_series(out, a->h, &a->h->series[i], &a->series[i], all_points);
}

static json_t *series_json(const struct history_series *s, const struct history_changes *an)
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

json_t *history_document(const struct history_analysis *a)
{
    const struct history *h = a->h;
    json_t *series = json_array();
    for (size_t i = 0; series && i < h->n; i++)
        json_array_append_new(series, series_json(&h->series[i], &a->series[i]));
    json_t *j =
        json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:f, s:I, s:I, s:I, s:f}, s:o}", "metric",
                  h->metric, "unit", h->unit, "direction", judge_direction(h->lower_is_better),
                  "by", by_name(a, true), "method", "method", "e-divisive means", "significance",
                  a->opts.alpha, "permutations", (json_int_t)a->opts.permutations, "min_segment",
                  (json_int_t)a->opts.min_seg, "seed", (json_int_t)a->opts.seed, "confidence",
                  a->opts.confidence, "series", series ? series : json_array());
    return j;
}
