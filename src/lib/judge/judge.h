/*
 * The one judgement (docs/architecture.md, "One judgement"): which figure
 * decides a test kind's verdict, how a direction is spelled, the default
 * noise floor and confidence, and which figure decides CPU cost and why.
 * compare, report, history, bisect and stats ask this module; none keeps a
 * default or a sentence of its own, so that the same stored runs get the
 * same deciding metric and the same verdict from every command. The verdict
 * rule itself and its words are stats/verdict.h's, which every command
 * already shares. Uses metric (the figures) and util only.
 */
#ifndef NETAB_JUDGE_JUDGE_H
#define NETAB_JUDGE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "metric/metric.h"

/* The noise floor (a fraction) and the confidence every command uses unless told otherwise. */
#define JUDGE_NOISE_DEFAULT 0.01
#define JUDGE_CONFIDENCE_DEFAULT 0.95

/*
 * Percent of the system-wide busy CPU time at or above which a run's
 * system-wide CPU cost is taken to be polluted by other processes, so that
 * every command decides CPU cost on the process figure (docs/json.md, "CPU
 * cost").
 */
#define JUDGE_POLLUTED_PCT 25.0

/*
 * The figure that decides a verdict for tests of kind (one enum metric_kind
 * bit, metric_kind_of()): receive throughput for streams (and for runs of
 * unknown kind, such as other tools' imported runs), transactions per second
 * for tcp_rr and udp_rr, connections per second for tcp_crr, responsiveness
 * under load (rpm) for rrul. Never NULL.
 */
const struct metric *judge_decider(unsigned kind);

/* judge_decider() of the test called test ("tcp_rr", ...; NULL or unknown: a stream). */
const struct metric *judge_decider_of_test(const char *test);

/*
 * The one spelling of a direction in every JSON document:
 * "lower_is_better" or "higher_is_better". Static strings.
 */
const char *judge_direction(bool lower_is_better);

/* The word text output uses, as in "(bit/s, higher is better)": "lower" or "higher". */
const char *judge_direction_word(bool lower_is_better);

/* Which CPU cost figure decides, and why (judge_cost_choose()). */
struct judge_cost {
    const struct metric *decides; /* NULL: no cost figure for this kind */
    const struct metric *system;  /* the system-wide figure, whether or not it decides */
    bool polluted;                /* others_pct >= JUDGE_POLLUTED_PCT */
    double others_pct;            /* worst median share of other processes; NaN unknown */
};

/*
 * The CPU-cost rule for tests of kind: the system-wide cost figure
 * (/proc/stat, softirq included) decides unless other processes took
 * JUDGE_POLLUTED_PCT or more of the busy CPU time (others_pct, the largest
 * over the variants of each one's median; NaN when unknown), or unless it
 * was not measured (has_system false); then the process's own figure
 * decides when it was measured (has_process). Fills out.
 */
void judge_cost_choose(unsigned kind, double others_pct, bool has_system, bool has_process,
                       struct judge_cost *out);

/*
 * The sentence that says which figure decided CPU cost, with the labels the
 * caller shows for the two figures, into buf: "decided on loc proc us/KiB;
 * the system-wide loc us/KiB is polluted (other processes 40% of busy CPU;
 * threshold 25%)". Empty when k->decides is NULL.
 */
void judge_cost_sentence(const struct judge_cost *k, const char *decides_label,
                         const char *system_label, char *buf, size_t len);

/* The median of x[0..n) (sorts x); NaN when n is 0. */
double judge_median(double *x, size_t n);

#endif
