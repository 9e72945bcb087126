/* A differential profile as text, Markdown and JSON: printing only, the numbers are profdiff.c's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profdiff/profdiff.h"

const char *profdiff_word(const struct profdiff_row *r)
{
    if (r->kind == PROFDIFF_APPEARED)
        return "appeared";
    if (r->kind == PROFDIFF_VANISHED)
        return "vanished";
    return r->verdict > 0 ? "grew" : r->verdict < 0 ? "shrank" : "within noise";
}

/*
 * "+3.7 [+2.9,+4.5]", or "+3.7" where there is no interval (fewer than 2
 * runs a side). compact (text): bounds of 10 points or more without their
 * decimal ("+1.0 [-11,+13]"), so that the column stays 16 wide.
 */
static void change_text(const struct profdiff_row *r, bool compact, char *out, size_t len)
{
    double d = r->other_pct - r->base_pct, lo = r->w.ci_low, hi = r->w.ci_high;
    if (!r->have_interval || r->kind != PROFDIFF_CHANGED)
        snprintf(out, len, "%+.1f", d);
    else if (compact)
        snprintf(out, len, "%+.1f [%+.*f,%+.*f]", d, fabs(lo) < 9.95, lo, fabs(hi) < 9.95, hi);
    else
        snprintf(out, len, "%+.1f [%+.1f,%+.1f]", d, lo, hi);
}

/* A share in 4 columns: "12.3", " 0.4", and "100" where one decimal does not fit. */
static const char *share4(double pct, char out[8])
{
    snprintf(out, 8, pct < 99.95 ? "%4.1f" : "%4.0f", pct);
    return out;
}

/*
 * Within 72 columns: the function (20), its module (9: "[kernel]", a
 * program's or library's base name, cut), both shares, the change with its
 * interval (16, compact; wider only for a change beyond 100 points) and
 * the verdict.
 */
void profdiff_text(FILE *f, const char *title, const struct profdiff *d)
{
    fprintf(f, "%s\n", title);
    fprintf(f, "  %-20s %-9s %4s %4s %s\n", "function", "module", "base", "new", "change, pp");
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *r = &d->rows[i];
        char ch[48], b[8], o[8];
        change_text(r, true, ch, sizeof(ch));
        fprintf(f, "  %-20.20s %-9.9s %s %s %-16s %s\n", r->symbol, r->module,
                share4(r->base_pct, b), share4(r->other_pct, o), ch, profdiff_word(r));
    }
    if (d->floor_pct > 0)
        fprintf(f,
                "  (%zu and %zu profiled runs; a function missing from a run's list\n"
                "   counts 0 there: it had less than %.2f%%)\n",
                d->base_runs, d->other_runs, d->floor_pct);
    else
        fprintf(f, "  (%zu and %zu profiled runs, every function with samples counted)\n",
                d->base_runs, d->other_runs);
}

void profdiff_markdown(FILE *f, const char *title, const struct profdiff *d)
{
    fprintf(f,
            "%s\n\n| function | module | base %% | new %% | change, pp | |\n"
            "|---|---|---:|---:|---|---|\n",
            title);
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *r = &d->rows[i];
        char ch[48];
        change_text(r, false, ch, sizeof(ch));
        fprintf(f, "| `%s` | %s | %.2f | %.2f | %s | %s |\n", r->symbol, r->module, r->base_pct,
                r->other_pct, ch, profdiff_word(r));
    }
    if (d->floor_pct > 0)
        fprintf(f,
                "\n%zu and %zu profiled runs; a function below a run's listed top counts 0 "
                "there (at most %.2f%%).\n\n",
                d->base_runs, d->other_runs, d->floor_pct);
    else
        fprintf(f, "\n%zu and %zu profiled runs, every function with samples counted.\n\n",
                d->base_runs, d->other_runs);
}

static json_t *num_or_null(bool ok, double v)
{
    return ok && isfinite(v) ? json_real(v) : json_null();
}

json_t *profdiff_json(const struct profdiff *d)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *r = &d->rows[i];
        bool iv = r->have_interval && r->kind == PROFDIFF_CHANGED;
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:f, s:f, s:f, s:o, s:o, s:o, s:s}", "symbol", r->symbol,
                            "module", r->module, "base_pct", r->base_pct, "other_pct", r->other_pct,
                            "change_pp", r->other_pct - r->base_pct, "ci_low",
                            num_or_null(iv, r->w.ci_low), "ci_high", num_or_null(iv, r->w.ci_high),
                            "p", num_or_null(iv, r->w.p), "verdict", profdiff_word(r)));
    }
    return json_pack("{s:I, s:I, s:f, s:f, s:o}", "base_runs", (json_int_t)d->base_runs,
                     "other_runs", (json_int_t)d->other_runs, "floor_pct", d->floor_pct,
                     "confidence", d->conf, "functions", rows);
}
