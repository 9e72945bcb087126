/* The verbs of `netab experiment` that live outside cli_experiment.c. */
#ifndef NETAB_CLI_EXPERIMENT_H
#define NETAB_CLI_EXPERIMENT_H

#include <stdbool.h>

#include "experiment/experiment.h"
#include "store/store.h"
#include "util/opttable.h"

/* The options of every verb: one table (cli_experiment.c), each verb taking some. */
struct exp_args {
    const char *verb, *db, *operand;
    bool json, all, check_dut;
    char path[4096]; /* the store's path (verbs that take --db) */
};

enum {
    EXP_OPT_DB = 1 << 0,
    EXP_OPT_JSON = 1 << 1,
    EXP_OPT_ALL = 1 << 2,
    EXP_OPT_CHECK_DUT = 1 << 3,
};

/* The table and the help of `netab experiment`. */
extern const struct opt_table cli_experiment_cmd;

/*
 * Parses argv (argv[0] the verb) into a, refusing the options of the table
 * that the verb does not take (allowed: EXP_OPT_*) and a second operand;
 * with EXP_OPT_DB, resolves the store's path. Returns -1 to go on, else the
 * exit status (after saying why).
 */
int cli_exp_parse(int argc, char **argv, struct exp_args *a, unsigned allowed);
/* Opens a's store (STORE_OPEN_* flags); says why on failure. */
int cli_exp_open_db(const struct exp_args *a, unsigned flags, struct store **s);

/* Each takes argv[0] = the verb and returns the exit status. */
int cli_experiment_run(int argc, char **argv);
int cli_experiment_resume(int argc, char **argv);
int cli_experiment_list(int argc, char **argv);
int cli_experiment_status(int argc, char **argv);

#endif
