/* The verbs of `netab experiment` that live outside cli_experiment.c. */
#ifndef NETAB_CLI_EXPERIMENT_H
#define NETAB_CLI_EXPERIMENT_H

#include <stdbool.h>

#include "experiment/experiment.h"

/* Prints every error as FILE:LINE:COL: message (FILE: message without a position). */
void cli_experiment_print_errors(const char *path, const struct exp_errors *errs);

/*
 * Can the plan of the file at path run here (campaign_preflight())? Prints
 * each error as "netab experiment: PATH: refusing to start: MESSAGE" and
 * each warning as "netab experiment: PATH: warning: MESSAGE" on stderr, the
 * same lines for validate and run. Returns the number of errors (0: it can
 * run), or -1 when out of memory (said).
 */
int cli_experiment_preflight(const char *path, const struct experiment *e, bool check_dut);

/* Each takes argv[0] = the verb and returns the exit status. */
int cli_experiment_run(int argc, char **argv);
int cli_experiment_resume(int argc, char **argv);
int cli_experiment_list(int argc, char **argv);
int cli_experiment_status(int argc, char **argv);

#endif
