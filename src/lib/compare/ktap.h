/* `netab compare --format ktap`: the judgement as KTAP for kernel CI (docs/ci.md). */
#ifndef NETAB_COMPARE_KTAP_H
#define NETAB_COMPARE_KTAP_H

#include <stdio.h>

#include "compare/result.h"

/*
 * Writes res's verdicts (compare_analyse()d) as KTAP version 1: one test per
 * variant against the baseline on the deciding metric, "not ok" when it
 * regressed beyond the noise floor, "ok ... # SKIP why" when the metric
 * could not be compared, the figures and intervals as "# " lines. Reads
 * the verdicts only; the exit status stays res->exit_code. A write error is
 * left in out's error flag.
 */
void compare_ktap_print(FILE *out, const struct compare_result *res);

#endif
