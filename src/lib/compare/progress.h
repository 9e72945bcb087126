/*
 * The progress lines of `netab compare` on stderr, without the "netab
 * compare: " prefix or a newline: the plan before the first run, one line
 * per finished run, one per adaptive look.
 */
#ifndef NETAB_COMPARE_PROGRESS_H
#define NETAB_COMPARE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"
#include "compare/result.h"
#include "util/err.h"

/*
 * res prepared for compare_execute() on camp (compare_campaign_init()ed from
 * cfg, its timeout set here): the statistics' noise floor, confidence and
 * seed from cfg, adaptive with --until-ci.
 */
void compare_result_prepare(struct compare_result *res, struct compare_campaign *camp,
                            const struct compare_config *cfg);

/* "N variants (baseline 'B'), R runs each + W warm-up, interleaved, seed S, timeout T s per run" */
void compare_plan_text(const struct compare_campaign *c, char *buf, size_t len);

/*
 * Run r of total (warm-ups included) finished: "run SEQ/TOTAL round R[
 * (warm-up)] VARIANT: METRIC VALUE (S s)" with the deciding metric's value
 * (bit/s as a rate, else 4 digits and the unit; "-" when absent), or
 * "...: FAILED: why".
 */
void compare_run_text(const struct compare_campaign *c, const struct compare_run *r, size_t total,
                      char *buf, size_t len);

/*
 * Look number look of looks after rounds rounds: the widest interval of the
 * relative change against --until-ci's target, and whether it was reached.
 */
void compare_look_text(const struct compare_result *res, size_t look, size_t looks, unsigned rounds,
                       bool reached, char *buf, size_t len);

/*
 * The progress bar's ETA after done of total runs (warm-ups included) in
 * elapsed seconds, at the mean pace so far: "M:SS", or "--:--" before the
 * first run has finished.
 */
void compare_eta_text(double elapsed, size_t done, size_t total, char *buf, size_t len);

/* The progress bar's tail after run r: "last: round R VARIANT[ (warm-up)]". */
void compare_last_text(const struct compare_campaign *c, const struct compare_run *r, char *buf,
                       size_t len);

#endif
