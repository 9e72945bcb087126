/* The human-readable report of one test (`netab run` without --json). */
#ifndef NETAB_RUNOUT_RUN_TEXT_H
#define NETAB_RUNOUT_RUN_TEXT_H

#include <stdio.h>

#include "engine/run_result.h"

/* The line printed before a test starts: what runs, where. */
void run_text_header(FILE *f, const struct run_result *r);

/* One interval line, printed while the test runs. */
void run_text_interval(FILE *f, const struct interval_report *iv);

/*
 * The summary after the test: per stream, sender/receiver, retransmits, CPU;
 * what it quotes of the peer with control bytes as \xNN (util/printable).
 */
void run_text_summary(FILE *f, const struct run_result *r);

#endif
