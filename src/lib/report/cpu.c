/* Which figure decides a cell's CPU cost, and its verdicts (cpu.h). */
#include "report/cpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge.h"
#include "metric/metric.h"
#include "report/tables.h"
#include "report/metric.h"

/* The index in r->metrics of the table figure with flag for kind, if shown in cell c; else -1. */
static int shown_figure(const struct creport *r, size_t c, unsigned flag)
{
    const struct metric *t = metric_with_flag(flag, r->cells[c].test_kind);
    size_t m = t ? creport_metric_index(r->metrics, r->nmetrics, t->name) : r->nmetrics;
    if (m >= r->nmetrics)
        return -1;
    /* The pollution figure is never shown; the cost figures must be. */
    return flag == METRIC_POLLUTION || creport_at(r, 0, c, m)->shown ? (int)m : -1;
}

/* The median of en's values; NaN when it has none or out of memory. */
static double median(const struct creport_entry *en)
{
    double *x = en->n ? malloc(en->n * sizeof(double)) : NULL;
    if (!x)
        return NAN;
    memcpy(x, en->values, en->n * sizeof(double));
    double m = judge_median(x, en->n);
    free(x);
    return m;
}

void creport_cpu_cost(const struct creport *r, size_t c, struct creport_cpu_cost *out)
{
    *out = (struct creport_cpu_cost){.metric = -1, .system = -1, .others_pct = NAN};
    int sys = shown_figure(r, c, METRIC_COST_SYSTEM);
    int proc = shown_figure(r, c, METRIC_COST_PROCESS);
    int pol = shown_figure(r, c, METRIC_POLLUTION);
    /*
     * The worst variant's median over every cell of the same test kind: one
     * figure decides a kind's CPU cost in every cell, so that the headline's
     * cost column means the same thing down the table.
     */
    for (size_t c2 = 0; pol >= 0 && c2 < r->ncells; c2++)
        for (size_t v = 0; r->cells[c2].test_kind == r->cells[c].test_kind && v < r->nvariants;
             v++) {
            double m = median(creport_at(r, v, c2, (size_t)pol));
            if (isfinite(m) && !(out->others_pct >= m))
                out->others_pct = m;
        }
    judge_cost_choose(r->cells[c].test_kind, out->others_pct, sys >= 0, proc >= 0, &out->rule);
    out->system = sys;
    out->polluted = out->rule.polluted;
    out->metric = !out->rule.decides ? -1 : out->rule.decides == out->rule.system ? sys : proc;
    if (out->metric >= 0)
        judge_cost_sentence(&out->rule, r->metrics[out->metric].label,
                            sys >= 0 ? r->metrics[sys].label : "", out->why, sizeof(out->why));
}

int creport_cpu_finish(struct creport *r)
{
    if (!(r->cpu = calloc(r->ncells ? r->ncells : 1, sizeof(*r->cpu))))
        return -ENOMEM;
    for (size_t c = 0; c < r->ncells; c++) {
        creport_cpu_cost(r, c, &r->cpu[c]);
        r->cpu_costed += r->cpu[c].metric >= 0;
        r->cpu_polluted += r->cpu[c].metric >= 0 && r->cpu[c].polluted;
    }
    return 0;
}

void creport_cpu_worst(struct creport *r)
{
    r->cpu_worst = -1;
    r->cpu_worst_of = 0;
    for (size_t c = 0; c < r->ncells; c++) {
        const struct creport_cpu_cost *k = &r->cpu[c];
        if (k->metric < 0 || k->metric != r->cells[c].cost)
            continue;
        r->cpu_worst_of++;
        /* The worst case: the most CPU taken by others; NaN (unknown) only when none is known. */
        if (r->cpu_worst < 0 ||
            (isfinite(k->others_pct) && !(r->cpu[r->cpu_worst].others_pct >= k->others_pct)))
            r->cpu_worst = (long)c;
    }
}

/* "within noise", or "not compared" when the entry has no comparison. */
static const char *verdict_of(const struct creport_entry *en)
{
    return en->has_cmp ? stats_verdict_name(en->cmp.verdict.kind) : "not compared";
}

/* Why the figure k->metric decides cell c: the judgement's sentence, after the cell's name. */
static void basis(const struct creport *r, size_t c, const struct creport_cpu_cost *k, char *b,
                  size_t n)
{
    snprintf(b, n, "%s: %s", r->cells[c].name[0] ? r->cells[c].name : "(all)", k->why);
}

/* One variant and cell into line: "V @ C: throughput within noise, CPU cost regressed +9.1%". */
static void verdicts(const struct creport *r, size_t v, size_t c, const struct creport_cpu_cost *k,
                     char *line, size_t len)
{
    const struct creport_entry *cost = creport_at(r, v, c, (size_t)k->metric);
    int d = r->cells[c].decide;
    char head[256] = "", chg[64] = "";
    if (d >= 0 && d != k->metric)
        snprintf(head, sizeof(head), "%s %s, ", r->metrics[d].name,
                 verdict_of(creport_at(r, v, c, (size_t)d)));
    if (cost->has_cmp && !cost->cmp.verdict.on_difference) {
        char x[16];
        creport_fmt_pct(x, sizeof(x), cost->cmp.verdict.rel * 100, true, 1);
        snprintf(chg, sizeof(chg), " %s", x);
    }
    snprintf(line, len, "%s @ %s: %sCPU cost %s%s", r->variants[v],
             r->cells[c].name[0] ? r->cells[c].name : "(all)", head, verdict_of(cost), chg);
}

/*
 * The section's lines, through print(f, depth, text): depth 0 a cell's
 * basis, 1 a variant's verdicts. Text and Markdown differ only in print.
 * polluted_only: only the cells whose system-wide figure is polluted, where
 * the CPU cost is decided on another figure than the headline's.
 */
static void walk(FILE *f, const struct creport *r, bool polluted_only,
                 void (*print)(FILE *, int, const char *))
{
    for (size_t c = 0; r->nvariants > 1 && c < r->ncells; c++) {
        const struct creport_cpu_cost *k = &r->cpu[c];
        if (k->metric < 0 || (polluted_only && !k->polluted))
            continue;
        char line[512];
        basis(r, c, k, line, sizeof(line));
        print(f, 0, line);
        for (size_t v = 1; v < r->nvariants; v++) {
            verdicts(r, v, c, k, line, sizeof(line));
            print(f, 1, line);
        }
    }
}

static void text_line(FILE *f, int depth, const char *text)
{
    creport_wrap(f, depth ? "    " : "  ", depth ? "      " : "    ", text);
}

static void md_line(FILE *f, int depth, const char *text)
{
    fprintf(f, "%s- ", depth ? "  " : "");
    creport_md_text(f, text);
    fputc('\n', f);
}

/* True when some cell has a CPU cost to show (and there is a variant to compare). */
static bool any_cost(const struct creport *r, bool polluted_only)
{
    return r->nvariants > 1 && (polluted_only ? r->cpu_polluted : r->cpu_costed);
}

void creport_print_cpu_markdown(FILE *f, const struct creport *r)
{
    if (!any_cost(r, false))
        return;
    fprintf(f, "\n### CPU cost against ");
    creport_md_text(f, r->variants[0]);
    fprintf(f, " (local end, per KiB or transaction)\n\n");
    walk(f, r, false, md_line);
}

void creport_print_cpu_text(FILE *f, const struct creport *r, bool polluted_only)
{
    if (!any_cost(r, polluted_only))
        return;
    fprintf(f, "\nCPU cost against %s (local end, per KiB or transaction):\n", r->variants[0]);
    walk(f, r, polluted_only, text_line);
}

void creport_print_cpu_line(FILE *f, const struct creport *r)
{
    if (r->cpu_worst < 0)
        return;
    char line[600];
    /* Each table's cost column names its figure; this line says why, for the worst cell. */
    snprintf(line, sizeof(line), "CPU cost%s: %s", r->cpu_worst_of > 1 ? ", worst cell" : "",
             r->cpu[r->cpu_worst].why);
    creport_wrap(f, "", "  ", line);
}

static json_t *name_or_null(const struct creport *r, int m)
{
    return m >= 0 ? json_string(r->metrics[m].name) : json_null();
}

json_t *creport_cpu_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t c = 0; a && c < r->ncells; c++) {
        const struct creport_cpu_cost *k = &r->cpu[c];
        if (k->metric < 0)
            continue;
        json_t *vs = json_array();
        for (size_t v = 1; vs && v < r->nvariants; v++) {
            const struct creport_entry *en = creport_at(r, v, c, (size_t)k->metric);
            bool rel = en->has_cmp && !en->cmp.verdict.on_difference;
            json_array_append_new(
                vs, json_pack("{s:s, s:s, s:o}", "variant", r->variants[v], "verdict",
                              verdict_of(en), "rel_change_pct",
                              rel ? json_real(en->cmp.verdict.rel * 100) : json_null()));
        }
        json_array_append_new(
            a, json_pack("{s:s, s:o, s:o, s:b, s:o, s:f, s:o}", "cell", r->cells[c].name, "metric",
                         name_or_null(r, k->metric), "system_metric", name_or_null(r, k->system),
                         "polluted", k->polluted, "others_pct",
                         isfinite(k->others_pct) ? json_real(k->others_pct) : json_null(),
                         "threshold_pct", JUDGE_POLLUTED_PCT, "verdicts", vs ? vs : json_null()));
    }
    return a;
}
