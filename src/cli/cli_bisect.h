/* `netab bisect`: the parser (cli_bisect_args.c) and the subcommands (cli_bisect.c). */
#ifndef NETAB_CLI_BISECT_H
#define NETAB_CLI_BISECT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "bisect/bisect.h"
#include "store/store.h"
#include "util/opttable.h"

struct cli_bisect_args {
    struct bisect_config cfg;
    const char *db_given;
    char db[PATH_MAX];
    int64_t id;
    bool json;
    struct opt_given given; /* --seed, --max-runs, --lower/higher-is-better */
};

/* The options of run, step and resume, and the help (cli_bisect_args.c). */
extern const struct opt_table cli_bisect_cmd;

/*
 * Parses the options after `netab bisect run|step|resume` (argv[0] is the
 * subcommand). Returns -1 to go on, EXIT_OK after --help, or EXIT_USAGE
 * after printing the reason.
 */
int cli_bisect_parse(int argc, char **argv, struct cli_bisect_args *a);

#endif
