/* What netab bisect prints (docs/bisect.md): every number is in the result already. */
#ifndef NETAB_BISECT_REPORT_H
#define NETAB_BISECT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "bisect/bisect.h"

/* "+1.23% [+0.50, +1.96]", the change against GOOD with its interval; "-" when there is none. */
void bisect_change_text(const struct bisect_step *s, char *buf, size_t len);

/*
 * The first bad commit (or why there is none), the references' change, and
 * one line per step: commit, runs, change, decision, experiment, subject.
 */
void bisect_print_text(FILE *out, const struct bisect_result *res);

/* `netab bisect step`'s one line: commit, subject, change, runs, decision and why. */
void bisect_print_step(FILE *out, const struct bisect_step *s);

/*
 * Why res stopped with the DUT lost (res->dut_lost), and how to go on: the
 * resume command for the store at db, and what resuming does with the run
 * that lost it (the commit's: skipped; GOOD's: measured again).
 */
void bisect_lost_text(const struct bisect_result *res, const char *db, char *buf, size_t len);

/* The --json document of res, which exits with exit_status; NULL when out of memory. */
json_t *bisect_document(const struct bisect_result *res, int exit_status);

#endif
