/* netab run: the parsed command line, exposed so that the parser can be unit tested. */
#ifndef NETAB_CLI_CLI_RUN_H
#define NETAB_CLI_CLI_RUN_H

#include <stdbool.h>

#include "runspec/run_spec.h"

/*
 * Parses the arguments of 'netab run' (argv[0] is "run") into *o, which it
 * initialises first. Returns -1 when the test should run, or the exit code
 * to return at once: EXIT_OK after --help, EXIT_USAGE after printing a usage
 * error (with --json also the one JSON document). Strings in *o point into
 * argv. Safe to call repeatedly in one process. The parsing itself is
 * run_spec_parse() (runspec/run_spec.h); this adds the printing.
 */
int cli_run_parse(int argc, char **argv, struct run_spec *o);

#endif
