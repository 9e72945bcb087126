/*
 * An experiment file as `netab experiment validate` and `run` tell it: its
 * errors, or the campaign it plans.
 */
#ifndef NETAB_EXPERIMENT_SUMMARY_H
#define NETAB_EXPERIMENT_SUMMARY_H

#include <stdio.h>

#include "experiment/experiment.h"

/* Prints every error on out as FILE:LINE:COL: message (FILE: message without a position). */
void experiment_errors_print(FILE *out, const char *path, const struct exp_errors *errs);

/*
 * experiment_load() of path, every error printed on out as
 * experiment_errors_print() does (a file that cannot be read: "FILE:
 * reason"). Returns 0 with *e owned by the caller, or experiment_load()'s
 * negative errno.
 */
NB_MUST_CHECK int experiment_load_print(const char *path, struct experiment **e, FILE *out);

/*
 * The summary of a valid file on out: "PATH: valid", then the experiment's
 * name, variants, matrix cells, runs, estimated duration (a lower bound
 * where runs are byte-bounded or reboots add time), seed, a blocked
 * order's warning and the DUTs.
 */
void experiment_summary_print(FILE *out, const char *path, const struct experiment *e);

#endif
