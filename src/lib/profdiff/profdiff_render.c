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
static void group_text(FILE *f, const struct profdiff *d);

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
    if (d->nev > 1)
        group_text(f, d);
}

/* "12.3>10.1" of a pair of figures (digits after the point), "-" for a NaN, "-" for both. */
static void pair_text(const double *v, int digits, char *out, size_t len)
{
    char a[16] = "-", b[16] = "-";
    if (isfinite(v[0]))
        snprintf(a, sizeof(a), "%.*f", digits, v[0]);
    if (isfinite(v[1]))
        snprintf(b, sizeof(b), "%.*f", digits, v[1]);
    snprintf(out, len, "%s%s%s", a, isfinite(v[0]) || isfinite(v[1]) ? ">" : "",
             isfinite(v[0]) || isfinite(v[1]) ? b : "");
}

/* Text columns for the events after the first (its share is the table's): 2 fit in 72. */
#define TEXT_MEMBERS 2

/*
 * A group of events' figures under the table, within 72 columns: the
 * function (20), the share of each event after the first (at most 2; all
 * of them in Markdown and JSON), IPC and L1-icache misses per 1,000
 * instructions, each base>new.
 */
static void group_text(FILE *f, const struct profdiff *d)
{
    int members = d->nev - 1 < TEXT_MEMBERS ? d->nev - 1 : TEXT_MEMBERS;
    fputs("  per event, base>new (% of each event's count; from the runs' top 30):\n", f);
    fprintf(f, "  %-20s", "function");
    for (int k = 1; k <= members; k++)
        fprintf(f, " %11.11s", d->ev[k]);
    fprintf(f, " %11s %11s\n", "IPC", "L1i/kI");
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_group *g = &d->rows[i].g;
        char b[40];
        fprintf(f, "  %-20.20s", d->rows[i].symbol);
        for (int k = 1; k <= members; k++) {
            double v[2] = {g->share[0][k], g->share[1][k]};
            pair_text(v, 1, b, sizeof(b));
            fprintf(f, " %11.11s", b);
        }
        pair_text(g->ipc, 2, b, sizeof(b));
        fprintf(f, " %11.11s", b);
        pair_text(g->l1i_mpki, 1, b, sizeof(b));
        fprintf(f, " %11.11s\n", b);
    }
}

/* The group's figures as a Markdown table: every event's share, IPC, L1i misses per 1k. */
static void group_markdown(FILE *f, const struct profdiff *d)
{
    fputs("Per event, base > new (% of each event's count, from the runs' top 30 functions):\n\n"
          "| function | module |",
          f);
    for (int k = 0; k < d->nev; k++)
        fprintf(f, " %s %% |", d->ev[k]);
    fputs(" IPC | L1i misses / 1k instr. |\n|---|---|", f);
    for (int k = 0; k < d->nev + 2; k++)
        fputs("---:|", f);
    fputs("\n", f);
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_group *g = &d->rows[i].g;
        char b[40];
        fprintf(f, "| `%s` | %s |", d->rows[i].symbol, d->rows[i].module);
        for (int k = 0; k < d->nev; k++) {
            double v[2] = {g->share[0][k], g->share[1][k]};
            pair_text(v, 2, b, sizeof(b));
            fprintf(f, " %s |", b);
        }
        pair_text(g->ipc, 2, b, sizeof(b));
        fprintf(f, " %s |", b);
        pair_text(g->l1i_mpki, 2, b, sizeof(b));
        fprintf(f, " %s |\n", b);
    }
    fputs("\n", f);
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
    if (d->nev > 1)
        group_markdown(f, d);
}

static json_t *num_or_null(bool ok, double v)
{
    return ok && isfinite(v) ? json_real(v) : json_null();
}

/* One side's group figures: {"shares_pct": [...], "ipc", "l1i_mpki"}, null for NaN. */
static json_t *group_side_json(const struct profdiff *d, const struct profdiff_group *g, int side)
{
    json_t *sh = json_array();
    for (int k = 0; k < d->nev; k++)
        json_array_append_new(sh, num_or_null(true, g->share[side][k]));
    return json_pack("{s:o, s:o, s:o}", "shares_pct", sh, "ipc", num_or_null(true, g->ipc[side]),
                     "l1i_mpki", num_or_null(true, g->l1i_mpki[side]));
}

json_t *profdiff_json(const struct profdiff *d)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *r = &d->rows[i];
        bool iv = r->have_interval && r->kind == PROFDIFF_CHANGED;
        json_t *o =
            json_pack("{s:s, s:s, s:f, s:f, s:f, s:o, s:o, s:o, s:s}", "symbol", r->symbol,
                      "module", r->module, "base_pct", r->base_pct, "other_pct", r->other_pct,
                      "change_pp", r->other_pct - r->base_pct, "ci_low",
                      num_or_null(iv, r->w.ci_low), "ci_high", num_or_null(iv, r->w.ci_high), "p",
                      num_or_null(iv, r->w.p), "verdict", profdiff_word(r));
        if (o && d->nev > 1)
            json_object_set_new(o, "group",
                                json_pack("{s:o, s:o}", "base", group_side_json(d, &r->g, 0),
                                          "other", group_side_json(d, &r->g, 1)));
        json_array_append_new(rows, o);
    }
    json_t *o = json_pack("{s:I, s:I, s:f, s:f, s:o}", "base_runs", (json_int_t)d->base_runs,
                          "other_runs", (json_int_t)d->other_runs, "floor_pct", d->floor_pct,
                          "confidence", d->conf, "functions", rows);
    if (o && d->nev > 1) {
        json_t *evs = json_array();
        for (int k = 0; k < d->nev; k++)
            json_array_append_new(evs, json_string(d->ev[k]));
        json_object_set_new(o, "events", evs);
    }
    return o;
}
