/*
 * The parts of the text report that only the short report has: the
 * changes beyond noise, the warnings aggregated and the counter differences
 * where a change was found, and the section names of --sections.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/sections.h"
#include "report/brief.h"
#include "report/counters.h"
#include "report/env.h"
#include "report/tables.h"
#include "report/matrix.h"
#include "report/model.h"

static const struct {
    const char *name;
    unsigned bit;
} sections[] = {
    {"headline", CREPORT_SEC_HEADLINE}, {"changes", CREPORT_SEC_CHANGES},
    {"tables", CREPORT_SEC_TABLES},     {"details", CREPORT_SEC_DETAILS},
    {"pairs", CREPORT_SEC_PAIRS},       {"effects", CREPORT_SEC_EFFECTS},
    {"values", CREPORT_SEC_VALUES},     {"runs", CREPORT_SEC_RUNS},
    {"layout", CREPORT_SEC_LAYOUT},     {"environment", CREPORT_SEC_ENVIRONMENT},
    {"counters", CREPORT_SEC_COUNTERS}, {"warnings", CREPORT_SEC_WARNINGS},
    {"verdict", CREPORT_SEC_VERDICT},   {"cpu", CREPORT_SEC_CPU},
    {"profile", CREPORT_SEC_PROFILE},
};
#define NSECTIONS (sizeof(sections) / sizeof(*sections))

const char *creport_section_name(unsigned mask)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (mask & sections[i].bit)
            return sections[i].name;
    return "";
}

int creport_section_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < NSECTIONS &&
               (strlen(sections[i].name) != len || strncmp(p, sections[i].name, len)))
            i++;
        if (i == NSECTIONS) {
            char names[256] = "";
            for (size_t k = 0, u = 0; k < NSECTIONS && u < sizeof(names); k++)
                u += (size_t)snprintf(names + u, sizeof(names) - u, "%s%s", k ? ", " : "",
                                      sections[k].name);
            return err_set(err, errlen, EINVAL, "--sections: no section '%.*s' (sections: %s)",
                           (int)len, p, names);
        }
        *mask |= sections[i].bit;
        p += len;
        p += *p == ',';
    }
    if (!*mask)
        return err_set(err, errlen, EINVAL, "--sections: no section named");
    return 0;
}

/* One comparison: "b @ tcp_stream 1: recv Mbit/s +5.32% [+4.27%, +6.36%] p=2.7e-05 improved". */
static void change_line(FILE *f, const struct creport *r, size_t v, size_t c, size_t m)
{
    const struct creport_entry *en = creport_at(r, v, c, m);
    char head[96], chg[128], line[640];
    creport_cell_heading(r, c, CREPORT_HEAD_FULL, head, sizeof(head));
    creport_fmt_change_full(chg, sizeof(chg), &en->chg);
    snprintf(line, sizeof(line), "%s @ %s: %s %s %s", r->variants[v], head, r->metrics[m].label,
             chg, en->words);
    creport_wrap(f, "  ", "    ", line);
}

/* The proven changes of the other metrics, one count per metric. */
static void print_others(FILE *f, const struct creport *r)
{
    for (size_t i = 0; i < r->norder; i++) {
        size_t m = r->order[i];
        size_t up = r->tally_metric[m].kind[STATS_IMPROVED];
        size_t down = r->tally_metric[m].kind[STATS_REGRESSED];
        if (up || down) {
            char line[256];
            snprintf(line, sizeof(line), "%s: %zu improved, %zu regressed (--sections details)",
                     r->metrics[m].label, up, down);
            creport_wrap(f, "  ", "    ", line);
        }
    }
}

/*
 * The headline metrics' comparisons (deciding and cost) that found a
 * change, one line each; those that proved nothing counted in one line
 * (within noise is no news); for every other metric a count of the changes
 * found.
 */
void creport_print_changes_brief(FILE *f, const struct creport *r)
{
    const struct creport_tally *hl = &r->tally_headline;
    if (r->nvariants < 2)
        return;
    fprintf(f, "\nChanges of the headline's figures against %s (%g%% CI, Welch p):\n",
            r->variants[0], r->opts.confidence * 100);
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t v = 1; r->cells[c].decide >= 0 && v < r->nvariants; v++) {
            int ms[2] = {r->cells[c].decide, r->cells[c].cost};
            for (size_t i = 0; i < 2; i++) {
                const struct creport_entry *en =
                    ms[i] >= 0 ? creport_at(r, v, c, (size_t)ms[i]) : NULL;
                if (en && en->shown && creport_entry_changed(en))
                    change_line(f, r, v, c, (size_t)ms[i]);
            }
        }
    if (!hl->kind[STATS_IMPROVED] && !hl->kind[STATS_REGRESSED])
        fprintf(f, "  none in the headline's figures\n");
    if (hl->kind[STATS_NO_DIFFERENCE]) {
        char line[256];
        snprintf(line, sizeof(line),
                 "%zu of these %zu comparisons prove no difference either way (more runs may; "
                 "--sections details lists them)",
                 hl->kind[STATS_NO_DIFFERENCE], hl->n);
        creport_wrap(f, "  ", "    ", line);
    }
    print_others(f, r);
}

/* "headline (16): 1 improved, 5 regressed, 10 no difference proven", wrapped. */
static void tally_line(FILE *f, const char *what, const struct creport_tally *t, const char *tail)
{
    /* The verdict line's order: improved, regressed, within noise, no difference, not compared. */
    static const size_t order[5] = {STATS_IMPROVED, STATS_REGRESSED, STATS_WITHIN_NOISE,
                                    STATS_NO_DIFFERENCE, 4};
    char line[512];
    size_t u = (size_t)snprintf(line, sizeof(line), "%s (%zu):", what, t->n);
    bool first = true;
    for (size_t i = 0; i < 5 && u < sizeof(line); i++) {
        size_t k = order[i];
        if (!t->kind[k])
            continue;
        u += (size_t)snprintf(line + u, sizeof(line) - u, "%s %zu %s", first ? "" : ",", t->kind[k],
                              k < 4 ? stats_verdict_name((enum stats_verdict_kind)k)
                                    : "not compared");
        first = false;
    }
    if (u < sizeof(line))
        snprintf(line + u, sizeof(line) - u, "%s", tail);
    creport_wrap(f, "  ", "    ", line);
}

void creport_print_verdicts_brief(FILE *f, const struct creport *r)
{
    const struct creport_tally *hl = &r->tally_headline, *other = &r->tally_others;
    if (r->nvariants < 2)
        return;
    fprintf(f, "\nVerdicts against %s (%g%% CI, %g%% noise floor):\n", r->variants[0],
            r->opts.confidence * 100, r->opts.noise * 100);
    tally_line(f, "headline", hl, "");
    if (other->n)
        tally_line(f, "others", other, "");
    if (hl->significant) {
        char line[256];
        snprintf(line, sizeof(line),
                 "%zu headline \"%s\" with p < %g: the interval reaches inside the %g%% noise "
                 "floor",
                 hl->significant, stats_verdict_name(STATS_NO_DIFFERENCE), 1 - r->opts.confidence,
                 r->opts.noise * 100);
        creport_wrap(f, "  ", "    ", line);
    }
}

void creport_print_warnings_brief(FILE *f, const struct creport *r)
{
    if (!r->nwarning_summary)
        return;
    fprintf(f, "\nWarnings:\n");
    for (size_t i = 0; i < r->nwarning_summary; i++)
        creport_wrap(f, "- ", "  ", r->warning_summary[i]);
}

void creport_print_counters_brief(FILE *f, const struct creport *r)
{
    size_t n = r->ncounters_notable;
    if (!n)
        return;
    char line[200];
    snprintf(line, sizeof(line),
             "Counters: %zu difference%s where a deciding metric changed (--full)", n,
             n == 1 ? "" : "s");
    creport_wrap(f, "", "  ", line);
}

/* The short report's pointer to the environment differences: how many facts differ. */
void creport_print_environment_brief(FILE *f, const struct creport *r)
{
    size_t n = 0;
    char line[200];
    for (size_t i = 0; i < r->nenv_diffs; i++)
        n += r->env_diffs[i].ndifferences + r->env_diffs[i].nidentity_notes;
    if (!n)
        return;
    snprintf(line, sizeof(line),
             "Environment: %zu difference%s from %s's first run (--sections environment).", n,
             n == 1 ? "" : "s", r->variants[0]);
    creport_wrap(f, "", "  ", line);
}
