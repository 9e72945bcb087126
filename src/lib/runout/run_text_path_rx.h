/*
 * The receive and socket paths (issue 32) in `netab run`'s text summary:
 * one line per end saying what its kernel did (engine/path_rx.h).
 */
#ifndef NETAB_RUNOUT_RUN_TEXT_PATH_RX_H
#define NETAB_RUNOUT_RUN_TEXT_PATH_RX_H

#include <stdio.h>

#include "engine/run_result.h"

/* "rx path local  ..." and "rx path remote ..." for the ends that ran a path; nothing otherwise. */
void run_text_path_rx(FILE *f, const struct run_result *r);

#endif
