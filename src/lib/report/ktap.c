/*
 * `netab report --format ktap`: the model's verdicts as KTAP version 1 for
 * kernel CI (docs/ci.md). One test per (cell, variant against the
 * baseline) on the cell's deciding metric: "not ok" when it regressed, a
 * SKIP with the model's reason when it was not compared. Computes nothing:
 * the figures, changes, sentences and exit status are the model's.
 */
#include <errno.h>
#include <stdio.h>

#include "report/report.h"
#include "report/tables.h"
#include "util/ktap.h"

/* The test's name: "CELL: VARIANT vs BASELINE: METRIC" (no "CELL: " without a cell name). */
static void test_name(const struct creport *r, size_t c, size_t v, char *b, size_t n)
{
    const struct creport_cell *cell = &r->cells[c];
    int d = cell->decide;
    snprintf(b, n, "%s%s%s vs %s: %s", cell->name, *cell->name ? ": " : "", r->variants[v],
             r->variants[0], d >= 0 ? r->metrics[d].name : "no deciding metric");
}

/* The figures behind the test line: both means' medians, the change and its sentence. */
static void figures(FILE *f, const struct creport *r, size_t c, size_t v)
{
    const struct creport_metric *m = &r->metrics[r->cells[c].decide];
    const struct creport_entry *b = creport_at(r, 0, c, (size_t)r->cells[c].decide);
    const struct creport_entry *o = creport_at(r, v, c, (size_t)r->cells[c].decide);
    const char *sp = *m->unit ? " " : "";
    char fails[400], chg[160];
    ktap_diag(f, "%s: median %.6g%s%s over %zu runs; %s: median %.6g%s%s over %zu runs",
              r->variants[0], b->median, sp, m->unit, b->n, r->variants[v], o->median, sp, m->unit,
              o->n);
    const size_t who[2] = {0, v};
    for (size_t i = 0; i < 2; i++) {
        creport_fail_text(r, who[i], c, fails, sizeof(fails));
        if (*fails)
            ktap_diag(f, "%s: %s", r->variants[who[i]], fails);
    }
    if (!o->has_cmp)
        return;
    creport_fmt_change_full(chg, sizeof(chg), &o->chg);
    ktap_diag(f, "change %s at %g%% confidence: %s", chg, r->opts.confidence * 100, o->words);
    if (o->detail)
        ktap_diag(f, "%s", o->detail);
}

int creport_print_ktap(const struct creport *r, FILE *f)
{
    size_t pass = 0, fail = 0, skip = 0, n = 0;
    ktap_header(f, r->ncells * (r->nvariants ? r->nvariants - 1 : 0));
    ktap_diag(f, "netab report: experiment %lld '%s', baseline '%s', noise floor %g%%",
              (long long)r->id, r->name ? r->name : "", r->nvariants ? r->variants[0] : "",
              r->opts.noise * 100);
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t v = 1; v < r->nvariants; v++) {
            char name[512];
            test_name(r, c, v, name, sizeof(name));
            int d = r->cells[c].decide;
            const struct creport_entry *en = d >= 0 ? creport_at(r, v, c, (size_t)d) : NULL;
            if (en)
                figures(f, r, c, v);
            if (!en || !en->has_cmp) {
                ktap_result(f, ++n, true, name,
                            !en        ? "the cell has no deciding metric"
                            : *en->why ? en->why
                                       : "not compared");
                skip++;
                continue;
            }
            bool regressed = en->cmp.verdict.kind == STATS_REGRESSED;
            ktap_result(f, ++n, !regressed, name, NULL);
            regressed ? fail++ : pass++;
        }
    ktap_diag(f, "exit status %d: %s", r->exit_status, r->exit_reason);
    ktap_totals(f, pass, fail, skip);
    return fflush(f) || ferror(f) ? -EIO : 0;
}
