/*
 * The CLI's side of the option tables (util/opttable.h): what a parse means
 * for the process, and the setters of values only netab's commands take.
 */
#ifndef NETAB_CLI_CLI_OPTS_H
#define NETAB_CLI_CLI_OPTS_H

#include "util/opttable.h"

/*
 * opt_table_parse() of t into args, its answer as an exit status: -1 to go
 * on (operands from optind); EXIT_OK after printing the help on stdout;
 * EXIT_USAGE after saying "netab NAME: <what is wrong>" and the --help
 * pointer on stderr.
 */
int cli_opts_parse(const struct opt_table *t, int argc, char **argv, void *args);

/* --pairs all|baseline: true for all (a bool). */
opt_setter cli_set_pairs;
/*
 * --noise PCT: a percentage in [0, 100) stored as a fraction (double), else
 * "--noise: 'V' is not a number strictly between 0 and 100".
 */
opt_setter cli_set_noise;

/*
 * Rows that several commands' tables share word for word; field is the
 * offset of the value in the command's argument struct.
 */
// clang-format off
#define CLI_DB_OPT(field)                                                                      \
    {"db", 0, "PATH", "the results store (default: $NETAB_DB, else\n"                          \
     "$XDG_DATA_HOME/netab/results.db)", opt_set_string, field, 0, 0, NULL}
#define CLI_CONFIDENCE_OPT(field)                                                              \
    {"confidence", 0, "P", "confidence level in percent, 50..99.99 (default 95)", opt_set_pct, \
     field, 50, 99.99, NULL}
#define CLI_NOISE_OPT(field)                                                                   \
    {"noise", 0, "PCT", "noise floor in percent of the baseline (default 1)", cli_set_noise,   \
     field, 0, 100, NULL}
// clang-format on

#endif
