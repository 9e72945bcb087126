/*
 * The CPU cost of each cell of a campaign report: which figure decides it
 * (the local end's system-wide cost, or its process cost when other
 * processes polluted the system-wide one), and its verdict beside the
 * deciding metric's. The model computes the decisions once
 * (creport_cpu_finish(), creport_cpu_worst()) into r->cpu; the renderings
 * (text, Markdown, JSON) only walk them.
 */
#ifndef NETAB_REPORT_CPU_H
#define NETAB_REPORT_CPU_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"
#include "judge/judge.h"

struct creport_cpu_cost {
    int metric;        /* index in r->metrics of the figure deciding CPU cost; -1: none shown */
    int system;        /* index of the system-wide figure; -1 when not shown */
    bool polluted;     /* system-wide polluted (others_pct >= JUDGE_POLLUTED_PCT) */
    double others_pct; /* largest median over variants and the kind's cells; NaN unknown */
    struct judge_cost rule; /* the judgement's choice (judge.h) */
    char why[400];          /* judge_cost_sentence() with the figures' labels; "" when metric < 0 */
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
 * The model's part: r->cpu[c] = creport_cpu_cost() of every cell, and
 * r->cpu_costed and r->cpu_polluted counted over them. 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_cpu_finish(struct creport *r);

/*
 * After the cells' headline cost columns are chosen (struct creport_cell's
 * cost): r->cpu_worst, the cell whose cost column is its CPU cost figure
 * where other processes took the most CPU (the first such when none is
 * known), and r->cpu_worst_of, how many cells it was chosen from.
 */
void creport_cpu_worst(struct creport *r);

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
