/*
 * The CPU cost of each cell of a campaign report: which figure decides it
 * (the local end's system-wide cost, or its process cost when other
 * processes polluted the system-wide one), and its verdict beside the
 * deciding metric's. Computation (creport_cpu_cost) and its two renderings
 * (text, JSON) are separate functions so that a report model can take them
 * as one section.
 */
#ifndef NETAB_REPORT_CAMPAIGN_REPORT_CPU_H
#define NETAB_REPORT_CAMPAIGN_REPORT_CPU_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "creport/campaign_report.h"
#include "judge/judge.h"

struct creport_cpu_cost {
    int metric;        /* index in r->metrics of the figure deciding CPU cost; -1: none shown */
    int system;        /* index of the system-wide figure; -1 when not shown */
    bool polluted;     /* system-wide polluted (others_pct >= JUDGE_POLLUTED_PCT) */
    double others_pct; /* largest median over variants and the kind's cells; NaN unknown */
    struct judge_cost rule; /* the judgement's choice (judge.h) */
};

/*
 * The CPU cost decision of cell c: the process figure when the system-wide
 * one is polluted in some variant in some cell of c's test kind (median
 * end.cpu.local.others_pct of its measured runs at or above
 * JUDGE_POLLUTED_PCT) or not shown; else the system-wide one. Every cell of
 * a kind is so decided on the same figure. Pure: reads r only.
 */
void creport_cpu_cost(const struct creport *r, size_t c, struct creport_cpu_cost *out);

/*
 * "CPU cost against BASE" section: per variant and cell, "throughput within
 * noise, CPU cost regressed" and the figure it was decided on and why.
 * Nothing when there is one variant or no cell shows a CPU cost.
 */
void creport_print_cpu_text(FILE *f, const struct creport *r, bool polluted_only);

/*
 * The headline's CPU cost column in one line, for the short report: which
 * figure decided it and why, judge_cost_sentence() of the cell where other
 * processes took the most CPU (the worst case), with how many of the cells
 * had their system-wide figure polluted. Nothing when no cell has a cost.
 */
void creport_print_cpu_line(FILE *f, const struct creport *r);

/* The same section in Markdown: a heading and a nested list. */
void creport_print_cpu_markdown(FILE *f, const struct creport *r);

/*
 * [{cell, metric, system_metric, polluted, others_pct, threshold_pct,
 * verdicts: [{variant, verdict, rel_change_pct}]}], one per cell with a CPU
 * cost; NULL when out of memory.
 */
json_t *creport_cpu_json(const struct creport *r);

#endif
