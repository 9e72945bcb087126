/* The text report of `netab compare`, from an analysed result (compare_analyse()). */
#ifndef NETAB_COMPARE_TEXT_H
#define NETAB_COMPARE_TEXT_H

#include <stdio.h>

#include "compare/result.h"

/*
 * Writes res's report to out: the header (variants, schedule, failed runs),
 * one section per metric the test has, the pairs of --pairs all, the result
 * lines, the CPU cost, the differential profiles, the exit status. A write
 * error is left in out's error flag for the caller to check.
 */
void compare_text_print(FILE *out, const struct compare_result *res);

#endif
