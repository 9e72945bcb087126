/*
 * The experiment report for people: plain text that fits 72 columns (for
 * mailing lists) and Markdown. Tables have variants as rows and matrix cells
 * as columns, one table per metric; cells that do not fit side by side are
 * stacked into further tables rather than widening the line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/sections.h"
#include "report/brief.h"
#include "report/codelayout.h"
#include "report/counters.h"
#include "report/cpu.h"
#include "report/env.h"
#include "report/profile.h"
#include "report/headline.h"
#include "report/tables.h"
#include "report/fails.h"
#include "report/model.h"
#include "util/textwrap.h"

#define W CREPORT_TEXT_WIDTH

static void wrap(FILE *f, const char *first, const char *rest, const char *text)
{
    text_wrap(f, W, first, rest, text);
}

void creport_wrap(FILE *f, const char *first, const char *rest, const char *text)
{
    wrap(f, first, rest, text);
}

static void wrapf(FILE *f, const char *first, const char *rest, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void wrapf(FILE *f, const char *first, const char *rest, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    wrap(f, first, rest, buf);
}

static const char *cell_display(const struct creport *r, size_t c)
{
    return r->cells[c].name[0] ? r->cells[c].name : "(all)";
}

/* One table per metric the report shows (tables.c). */
static int print_metric_tables(FILE *f, const struct creport *r, bool *legend)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    for (size_t i = 0; i < r->norder; i++) {
        size_t m = r->order[i];
        bool any = false;
        for (size_t c = 0; c < r->ncells; c++)
            any |= creport_at(r, 0, c, m)->shown;
        if (!any)
            continue;
        fprintf(f, "\n%s, %s (%s is better)\n", md[m].title, md[m].unit,
                md[m].lower_is_better ? "lower" : "higher");
        int e = creport_text_table(f, r, m, legend);
        if (e)
            return e;
    }
    return 0;
}

static void print_details(FILE *f, const struct creport *r)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    if (r->nvariants < 2)
        return;
    fprintf(f, "\nChanges against %s: mean, [%g%% CI], Welch p; > deciding\n", r->variants[0],
            r->opts.confidence * 100);
    for (size_t v = 1; v < r->nvariants; v++)
        for (size_t c = 0; c < r->ncells; c++) {
            bool any = false;
            for (size_t i = 0; i < r->norder; i++)
                any |= creport_at(r, v, c, r->order[i])->shown;
            if (!any)
                continue;
            wrapf(f, "", "    ", "%s @ %s%s%s%s:", r->variants[v], cell_display(r, c),
                  r->cells[c].test[0] ? " (" : "", r->cells[c].test,
                  r->cells[c].test[0] ? ")" : "");
            for (size_t i = 0; i < r->norder; i++) {
                size_t m = r->order[i];
                const struct creport_entry *en = creport_at(r, v, c, m);
                if (!en->shown)
                    continue;
                const char *lead = (int)m == r->cells[c].decide ? "> " : "  ";
                if (!en->has_cmp) {
                    wrapf(f, lead, "    ", "%-11s not compared: %s", md[m].label, en->why);
                    continue;
                }
                char chg[96];
                creport_fmt_change_full(chg, sizeof(chg), &en->chg);
                wrapf(f, lead, "    ", "%-11s %s %s", md[m].label, chg, en->words);
            }
        }
}

/* The one-line gist of a layout summary: hot functions moved, all moved, size change. */
static void layout_gist(const struct layout_summary *sum, char *b, size_t n)
{
    snprintf(b, n,
             "%lld of %lld hot functions (%lld of %lld in all) changed offset; size %+lld bytes",
             (long long)sum->hot.offset_changed, (long long)sum->hot.in_both,
             (long long)sum->offset_changed, (long long)sum->common, (long long)sum->size.delta);
}

/*
 * The hot patterns of a layout summary that matched no function, as one
 * phrase ("" when all matched), so that an empty hot set is never silent.
 */
static void layout_unmatched(const struct layout_summary *sum, char *b, size_t n)
{
    size_t k = 0;
    b[0] = '\0';
    for (size_t i = 0; i < sum->hot.nunmatched; i++) {
        k += (size_t)snprintf(b + k, n - k, "%s%s",
                              i ? ", "
                                : "hot patterns that match no "
                                  "function in either build: ",
                              sum->hot.unmatched[i]);
        if (k >= n)
            break;
    }
}

/* The hot set's source of the section, as its heading names it. */
static const char *layout_source(const struct creport *r)
{
    for (size_t i = 0; i < r->nlayout; i++) {
        const char *src = r->layout[i].compared ? r->layout[i].sum.hot.source : NULL;
        if (src && strcmp(src, "built-in network paths"))
            return src;
    }
    return NULL;
}

/* The "Code layout" section: each variant's layout file against the baseline's. */
static void print_layout(FILE *f, const struct creport *r)
{
    if (!r->nlayout)
        return;
    const char *src = layout_source(r);
    if (src)
        fprintf(f, "Code layout against %s (netab layout, hot set: %s):\n", r->variants[0], src);
    else
        fprintf(f, "Code layout against %s (netab layout, built-in network hot set):\n",
                r->variants[0]);
    for (size_t i = 0; i < r->nlayout; i++) {
        const struct creport_codelayout *x = &r->layout[i];
        if (!x->compared) {
            wrapf(f, "  ", "    ", "%s: not compared: %s", x->variant, x->error);
            continue;
        }
        char gist[256];
        layout_gist(&x->sum, gist, sizeof(gist));
        wrapf(f, "  ", "    ", "%s: %s.", x->variant, gist);
        wrap(f, "    ", "    ", x->sum.verdict);
        layout_unmatched(&x->sum, gist, sizeof(gist));
        if (gist[0])
            wrapf(f, "    ", "    ", "%s.", gist);
    }
}

/* The environment differences of each variant's first run from the baseline's. */
static void print_environment(FILE *f, const struct creport *r)
{
    if (!r->nenv_diffs)
        return;
    fprintf(f, "Environment differences from %s (first ok run of each):\n", r->variants[0]);
    for (size_t i = 0; i < r->nenv_diffs; i++) {
        const struct creport_env_diff *d = &r->env_diffs[i];
        for (size_t j = 0; j < d->nidentity_notes; j++)
            wrapf(f, "  ", "    ", "%s: %s", d->variant, d->identity_notes[j]);
        if (!d->ndifferences)
            wrapf(f, "  ", "    ", "%s: none", d->variant);
        for (size_t j = 0; j < d->ndifferences; j++) {
            const struct creport_env_fact *x = &d->differences[j];
            /* A value shown whole would swamp the section: 255 bytes of it at most. */
            wrapf(f, "  ", "    ", "%s: %s: %.255s -> %.255s", d->variant, x->path,
                  x->baseline.shown, x->variant.shown);
        }
    }
}

/* Every warning, one line each, as the report's JSON lists them. */
static void print_warnings(FILE *f, const struct creport *r)
{
    size_t i;
    if (r->nenv_warnings) {
        fprintf(f, "Environment warnings (any run):\n");
        for (i = 0; i < r->nenv_warnings; i++)
            wrap(f, "- ", "  ", r->env_warnings[i]);
    }
    if (r->nstats_warnings) {
        fprintf(f, "Statistics warnings (deciding metrics):\n");
        for (i = 0; i < r->nstats_warnings; i++) {
            const struct creport_stats_warning *w = &r->stats_warnings[i];
            wrapf(f, "- ", "  ", "%s @ %s, %s: %s", w->variant, w->cell, w->metric, w->message);
        }
    }
}

/* The verdict counts (the short report's are creport_print_verdicts_brief()'s) and regression. */
static void print_verdict(FILE *f, const struct creport *r, bool brief)
{
    if (!brief)
        wrapf(f, "", "  ",
              "Verdicts: %zu improved, %zu regressed, %zu within noise, %zu no difference "
              "proven, %zu not compared.",
              r->n_improved, r->n_regressed, r->n_within, r->n_unproven, r->n_nocmp);
    if (r->exit_status == 2)
        wrapf(f, "", "  ", "NO VERDICT: %s (exit status 2).", r->exit_reason);
    if (r->n_regressed_deciding)
        wrapf(f, "", "  ", "REGRESSION: %zu deciding-metric comparison%s regressed%s.",
              r->n_regressed_deciding, r->n_regressed_deciding == 1 ? "" : "s",
              r->exit_status == 1 ? " (exit status 1)" : "");
    else if (r->exit_status != 2)
        wrapf(f, "", "  ", "No deciding-metric comparison regressed.");
}

/* The run counts, the measured runs per variant and cell, and the rules of the verdicts. */
static int print_runs(FILE *f, const struct creport *r, bool *legend)
{
    wrapf(f, "", "  ", "Experiment %lld \"%s\" (%s), seed %llu.", (long long)r->id, r->name,
          r->status, (unsigned long long)r->seed);
    wrapf(f, "", "  ",
          "Runs: %ld planned, %ld measured, %ld warm-ups excluded; %ld failed, %ld "
          "interrupted%s (attempts, not used).",
          r->runs.planned, r->runs.measured, r->runs.warmup, r->runs.failed, r->runs.interrupted,
          r->runs.running ? ", some still running" : "");
    fprintf(f, "Measured runs (n) per variant and cell:\n");
    int e = creport_text_table(f, r, CREPORT_TABLE_N, legend);
    if (*legend)
        creport_print_legend(f, r);
    *legend = false;
    wrapf(f, "", "  ",
          "Noise floor %g%%, confidence %g%%: a change is improved or regressed only when p "
          "< %g and its whole interval lies beyond the floor; within noise when the whole "
          "interval lies inside it. Marks: * improved, ! regressed, = within noise, ? no "
          "difference proven. Changes of metrics in %% are in percentage points (pp), others "
          "in %% of the baseline's mean.",
          r->opts.noise * 100, r->opts.confidence * 100, 1 - r->opts.confidence);
    return e;
}

/* The footer: sections after the tables, in their order, after the signature line. */
static int print_footer(FILE *f, const struct creport *r, unsigned s, bool brief, bool *legend)
{
    int e = 0;
    if (s & (CREPORT_SEC_RUNS | CREPORT_SEC_ENVIRONMENT) && !brief)
        fprintf(f, "\n-- \n");
    else if (r->nlayout && (s & CREPORT_SEC_LAYOUT))
        fputc('\n', f);
    if (s & CREPORT_SEC_RUNS)
        e = print_runs(f, r, legend);
    if (s & CREPORT_SEC_LAYOUT)
        print_layout(f, r);
    if (s & CREPORT_SEC_ENVIRONMENT)
        print_environment(f, r);
    if (brief)
        creport_print_environment_brief(f, r);
    if ((s & CREPORT_SEC_COUNTERS) && brief)
        creport_print_counters_brief(f, r);
    else if (s & CREPORT_SEC_COUNTERS)
        creport_print_counters(f, r);
    if ((s & CREPORT_SEC_WARNINGS) && brief)
        creport_print_warnings_brief(f, r);
    else if (s & CREPORT_SEC_WARNINGS)
        print_warnings(f, r);
    if (s & CREPORT_SEC_VERDICT) {
        if (brief)
            fputc('\n', f);
        print_verdict(f, r, brief);
    }
    if (*legend)
        creport_print_legend(f, r);
    return e;
}

/* The title: experiment, variants and, in full, the matrix and what the entries are. */
static void print_title(FILE *f, const struct creport *r, bool brief)
{
    wrapf(f, "", "  ", "netab report: experiment %lld \"%s\"", (long long)r->id, r->name);
    char list[1024] = "";
    for (size_t v = 0, u = 0; v < r->nvariants && u < sizeof(list); v++)
        u += (size_t)snprintf(list + u, sizeof(list) - u, "%s%s%s", v ? ", " : "", r->variants[v],
                              v ? "" : " (baseline)");
    wrapf(f, "", "  ", "Variants: %s", r->nvariants ? list : "none");
    /* Headings show values only ("tcp_stream 1"): say once which axis each value is of. */
    if (r->naxes) {
        char axes[512] = "";
        for (size_t a = 0, u = 0; a < r->naxes && u < sizeof(axes); a++)
            u += (size_t)snprintf(axes + u, sizeof(axes) - u, "%s%s", a ? " x " : "", r->axes[a]);
        wrapf(f, "", "  ", "Matrix: %s%s", axes,
              brief ? "" : " (cells in the experiment file's order)");
    }
    if (!r->runs.measured)
        fprintf(f, "\nNo measured ok runs yet.\n");
    else if (!brief)
        wrapf(f, "", "  ",
              "Entries: the mean of the measured runs and, for other variants, the change of "
              "the mean against the baseline, on which the verdict mark is decided.");
}

int creport_print_text(const struct creport *r, FILE *f)
{
    bool legend = false, brief = !r->opts.sections;
    unsigned s = brief ? CREPORT_SEC_DEFAULT : r->opts.sections;
    int e = 0;
    print_title(f, r, brief);
    if ((s & CREPORT_SEC_HEADLINE) && r->runs.measured) {
        fputc('\n', f);
        e = creport_print_headline_text(f, r, &legend);
    }
    if (s & CREPORT_SEC_HEADLINE)
        creport_print_fails_text(f, r);
    /* The short report: the CPU cost column's basis and the marks, once, under the headline. */
    if (brief && r->runs.measured) {
        fputc('\n', f);
        creport_print_cpu_line(f, r);
        wrapf(f, "", "  ", "* improved, ! regressed, = within noise, ? not proven; --full: all");
    }
    if ((s & CREPORT_SEC_CHANGES) && brief)
        creport_print_verdicts_brief(f, r);
    else if (s & CREPORT_SEC_CHANGES)
        creport_print_changes_brief(f, r);
    if (!e && (s & CREPORT_SEC_TABLES))
        e = print_metric_tables(f, r, &legend);
    if (s & CREPORT_SEC_DETAILS)
        print_details(f, r);
    /* The short report names the CPU cost's figure in one line under the headline instead. */
    if ((s & CREPORT_SEC_CPU) && !brief)
        creport_print_cpu_text(f, r, false);
    if (s & CREPORT_SEC_PROFILE)
        creport_print_profile_text(f, r);
    if (s & CREPORT_SEC_PAIRS)
        creport_print_pairs_text(f, r);
    if (s & CREPORT_SEC_EFFECTS)
        creport_print_effects_text(f, r);
    if (!e && (s & CREPORT_SEC_VALUES))
        e = creport_print_values_text(r, f);
    if (!e)
        e = print_footer(f, r, s, brief, &legend);
    if (e)
        return e;
    return ferror(f) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------ */

/*
 * One table per metric, then each comparison with its interval, p and
 * verdict as a list: the tables stay narrow enough to read unrendered.
 */
static void md_metric_tables(FILE *f, const struct creport *r)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    for (size_t i = 0; i < r->norder; i++) {
        size_t m = r->order[i];
        bool any = false;
        for (size_t c = 0; c < r->ncells; c++)
            any |= creport_at(r, 0, c, m)->shown;
        if (!any)
            continue;
        fprintf(f, "\n### %s, %s (%s is better)\n\n", md[m].title, md[m].unit,
                md[m].lower_is_better ? "lower" : "higher");
        creport_md_table(f, r, m);
        if (r->nvariants > 1)
            fputc('\n', f);
        for (size_t v = 1; v < r->nvariants; v++)
            for (size_t c = 0; c < r->ncells; c++) {
                const struct creport_entry *en = creport_at(r, v, c, m);
                char head[96], chg[96];
                if (!en->shown)
                    continue;
                creport_cell_heading(r, c, CREPORT_HEAD_FULL, head, sizeof(head));
                fputs("- ", f);
                creport_md_text(f, r->variants[v]);
                fputs(" @ ", f);
                creport_md_text(f, head);
                if (!en->has_cmp) {
                    fputs(": not compared: ", f);
                    creport_md_text(f, en->why);
                    fputc('\n', f);
                    continue;
                }
                creport_fmt_change_full(chg, sizeof(chg), &en->chg);
                fprintf(f, ": %s, %s%s\n", chg, en->words,
                        (int)m == r->cells[c].decide ? " (deciding)" : "");
            }
    }
    fprintf(f,
            "\nMarks: \\* improved, ! regressed, = within noise, ? no difference proven; "
            "changes against %s [%g%% CI].\n",
            r->nvariants ? r->variants[0] : "the baseline", r->opts.confidence * 100);
}

/* The code layout section as a table: one row per variant with a layout file. */
static void md_layout(FILE *f, const struct creport *r)
{
    if (!r->nlayout)
        return;
    fprintf(f, "\n### Code layout against ");
    creport_md_text(f, r->variants[0]);
    if (layout_source(r)) {
        fputs(" (hot set: ", f);
        creport_md_text(f, layout_source(r));
        fputs(")", f);
    }
    fprintf(f, "\n\n| variant | layout | verdict |\n|---|---|---|\n");
    for (size_t i = 0; i < r->nlayout; i++) {
        const struct creport_codelayout *x = &r->layout[i];
        char gist[256] = "not compared";
        if (x->compared)
            layout_gist(&x->sum, gist, sizeof(gist));
        fputs("| ", f);
        creport_md_text(f, x->variant);
        fputs(" | ", f);
        creport_md_text(f, gist);
        fputs(" | ", f);
        creport_md_text(f, x->compared ? x->sum.verdict : x->error);
        gist[0] = '\0';
        if (x->compared)
            layout_unmatched(&x->sum, gist, sizeof(gist));
        if (gist[0]) {
            fputs(" ", f);
            creport_md_text(f, gist);
            fputs(".", f);
        }
        fputs(" |\n", f);
    }
}

/* The sections after the tables that s (enum creport_section) holds. */
static void md_footer(FILE *f, const struct creport *r, unsigned s)
{
    size_t i;
    if (s & (CREPORT_SEC_RUNS | CREPORT_SEC_VERDICT)) {
        fprintf(f, "\n### Runs\n\n");
        creport_md_table(f, r, CREPORT_TABLE_N);
        fprintf(
            f,
            "\n- Experiment %lld \"%s\" (%s), seed %llu\n- Runs: %ld planned, %ld measured, %ld "
            "warm-ups excluded, %ld failed, %ld interrupted\n- Noise floor %g%%, confidence "
            "%g%%\n- Verdicts: %zu improved, %zu regressed, %zu within noise, %zu no difference "
            "proven, %zu not compared\n- ",
            (long long)r->id, r->name, r->status, (unsigned long long)r->seed, r->runs.planned,
            r->runs.measured, r->runs.warmup, r->runs.failed, r->runs.interrupted,
            r->opts.noise * 100, r->opts.confidence * 100, r->n_improved, r->n_regressed,
            r->n_within, r->n_unproven, r->n_nocmp);
        if (r->exit_status == 2) {
            fputs("**No verdict** (exit status 2): ", f);
            creport_md_text(f, r->exit_reason);
            fputc('\n', f);
        } else if (r->exit_status == 1) {
            fputs("**A deciding metric regressed** (exit status 1): ", f);
            creport_md_text(f, r->exit_reason);
            fputc('\n', f);
        } else
            fputs("No deciding metric regressed\n", f);
    }
    if (s & CREPORT_SEC_LAYOUT)
        md_layout(f, r);
    if (r->nenv_diffs && (s & CREPORT_SEC_ENVIRONMENT)) {
        fprintf(f,
                "\n### Environment differences from %s\n\n| variant | fact | %s | variant |\n"
                "|---|---|---|---|\n",
                r->variants[0], r->variants[0]);
        for (i = 0; i < r->nenv_diffs; i++) {
            const struct creport_env_diff *d = &r->env_diffs[i];
            for (size_t j = 0; j < d->nidentity_notes; j++) {
                fputs("| ", f);
                creport_md_text(f, d->variant);
                fputs(" | build | ", f);
                creport_md_text(f, d->identity_notes[j]);
                fputs(" | |\n", f);
            }
            for (size_t j = 0; j < d->ndifferences; j++) {
                /* 255 bytes of a value at most, as in the text. */
                char a[256], b[256];
                snprintf(a, sizeof(a), "%s", d->differences[j].baseline.shown);
                snprintf(b, sizeof(b), "%s", d->differences[j].variant.shown);
                fputs("| ", f);
                creport_md_text(f, d->variant);
                fputs(" | `", f);
                creport_md_text(f, d->differences[j].path);
                fputs("` | ", f);
                creport_md_text(f, a);
                fputs(" | ", f);
                creport_md_text(f, b);
                fputs(" |\n", f);
            }
        }
    }
    if ((r->nenv_warnings || r->nstats_warnings) && (s & CREPORT_SEC_WARNINGS)) {
        fprintf(f, "\n### Warnings\n\n");
        for (i = 0; i < r->nenv_warnings; i++)
            fprintf(f, "- %s\n", r->env_warnings[i]);
        for (i = 0; i < r->nstats_warnings; i++) {
            const struct creport_stats_warning *w = &r->stats_warnings[i];
            fprintf(f, "- %s @ %s, %s: %s\n", w->variant, w->cell, w->metric, w->message);
        }
    }
}

int creport_print_markdown(const struct creport *r, FILE *f)
{
    fprintf(f, "## netab report: experiment %lld \"", (long long)r->id);
    creport_md_text(f, r->name);
    fprintf(f, "\"\n\nBaseline: **");
    creport_md_text(f, r->nvariants ? r->variants[0] : "none");
    fprintf(f,
            "**. Each entry: the mean of the measured runs; for other variants the change of "
            "the mean against the baseline [%g%% CI] and the verdict, both computed on the "
            "mean (medians are in the JSON and CSV forms).\n",
            r->opts.confidence * 100);
    /* Every section, or those of --sections. */
    unsigned s = r->opts.sections ? r->opts.sections : CREPORT_SEC_ALL;
    if (r->runs.measured && (s & CREPORT_SEC_HEADLINE)) {
        fprintf(f, "\n### Headline\n");
        creport_print_headline_markdown(f, r);
    }
    if (s & CREPORT_SEC_HEADLINE)
        creport_print_fails_markdown(f, r);
    if (s & CREPORT_SEC_TABLES)
        md_metric_tables(f, r);
    if (s & CREPORT_SEC_CPU)
        creport_print_cpu_markdown(f, r);
    if (s & CREPORT_SEC_PROFILE)
        creport_print_profile_markdown(f, r);
    if (s & CREPORT_SEC_PAIRS)
        creport_print_pairs_markdown(f, r);
    if (s & CREPORT_SEC_EFFECTS)
        creport_print_effects_markdown(f, r);
    int e = (s & CREPORT_SEC_VALUES) ? creport_print_values_markdown(r, f) : 0;
    md_footer(f, r, s);
    if (e)
        return e;
    return ferror(f) ? -EIO : 0;
}
