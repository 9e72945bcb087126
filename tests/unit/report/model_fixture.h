/*
 * A report model built by hand (no store, no creport_build()), for the tests
 * that show the renderers compute nothing: its figures are ones the data
 * could not give, so that a renderer recomputing a mean, a change, a verdict
 * or a count from the values prints something else than the model says.
 *
 * Two variants, zebra-base (the baseline) and quokka-v2, in two cells,
 * okapi=7 and okapi=9 (tcp_stream), on two metrics: gnu_rate (deciding,
 * higher is better) and yak_cost (the headline's cost, lower is better).
 *
 *   zebra-base @ okapi=7, gnu_rate: values 3 1 2, sorted 11.5 12.5 13.5,
 *     mean 42.5, median 17.25
 *   quokka-v2 @ okapi=7, gnu_rate: values 6 4 5, sorted 14.5 15.5 16.5,
 *     mean 77.75, median 33.125; change +12.5 % [+4.25, +21.5], p 0.0123,
 *     regressed (a rise of a higher-is-better metric)
 *   quokka-v2 @ okapi=7, yak_cost: mean 0.875, change -7.5 % [-9.25, -5.5],
 *     within noise (beyond a 3 % floor)
 *   quokka-v2 @ okapi=9: every run failed, "peer vanished: yak herd stampede"
 *
 * Run counts, verdict counts and measured runs per cell are set directly,
 * none of them what the entries would add up to. The json_t members stay
 * NULL. Release with creport_free().
 */
#ifndef NETAB_TEST_MODEL_FIXTURE_H
#define NETAB_TEST_MODEL_FIXTURE_H

#include "report/report.h"

/* The model above; sections is the opts.sections mask (0: each format's default). */
struct creport *model_fixture(unsigned sections);

/* What renderer print wrote to a memory FILE, NUL-terminated; the caller frees it. */
char *model_fixture_render(const struct creport *r, int (*print)(const struct creport *, FILE *));

#endif
