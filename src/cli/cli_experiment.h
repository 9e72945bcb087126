/* The verbs of `netab experiment` that live outside cli_experiment.c. */
#ifndef NETAB_CLI_EXPERIMENT_H
#define NETAB_CLI_EXPERIMENT_H

#include "experiment/experiment.h"

/* Prints every error as FILE:LINE:COL: message (FILE: message without a position). */
void cli_experiment_print_errors(const char *path, const struct exp_errors *errs);

/* Each takes argv[0] = the verb and returns the exit status. */
int cli_experiment_run(int argc, char **argv);
int cli_experiment_resume(int argc, char **argv);
int cli_experiment_list(int argc, char **argv);
int cli_experiment_status(int argc, char **argv);

#endif
