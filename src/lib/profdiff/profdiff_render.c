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

/* "+3.7 [+2.9,+4.5]", or "+3.7" where there is no interval (fewer than 2 runs a side). */
static void change_text(const struct profdiff_row *r, char *out, size_t len)
{
    double d = r->other_pct - r->base_pct;
    if (r->have_interval && r->kind == PROFDIFF_CHANGED)
        snprintf(out, len, "%+.1f [%+.1f,%+.1f]", d, r->w.ci_low, r->w.ci_high);
    else
        snprintf(out, len, "%+.1f", d);
}

void profdiff_text(FILE *f, const char *title, const struct profdiff *d)
{
    fprintf(f, "%s\n", title);
    fprintf(f, "  %-23s %5s %5s %s\n", "function", "base%", "new%", "change, pp");
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *r = &d->rows[i];
        char ch[48];
        change_text(r, ch, sizeof(ch));
        fprintf(f, "  %-23.23s %5.1f %5.1f %-20.20s %s\n", r->symbol, r->base_pct, r->other_pct, ch,
                profdiff_word(r));
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
        change_text(r, ch, sizeof(ch));
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
