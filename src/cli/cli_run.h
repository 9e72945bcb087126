/* netab run: the parsed command line, exposed so that the parser can be unit tested. */
#ifndef NETAB_CLI_CLI_RUN_H
#define NETAB_CLI_CLI_RUN_H

#include <stdbool.h>

#include "engine/params.h"
#include "proto/client.h"

struct run_opts {
    struct test_params params;
    struct client_config client;
    const char *host; /* NULL = in-process loopback server */
    bool json;
    const char *db;         /* --db: results store to record the run in, or NULL */
    const char *db_label;   /* --db-label: stored as the run's variant */
    bool req_set, resp_set; /* --req-size / --resp-size given */
    bool block_set;         /* -l given; otherwise the test kind's default block */
    bool usage_reported;    /* a usage error was already printed (and, with --json, its document) */
};

/*
 * Parses the arguments of 'netab run' (argv[0] is "run") into *o, which it
 * initialises first. Returns -1 when the test should run, or the exit code
 * to return at once: EXIT_OK after --help, EXIT_USAGE after printing a usage
 * error (with --json also the one JSON document). Strings in *o point into
 * argv. Safe to call repeatedly in one process.
 */
int cli_run_parse(int argc, char **argv, struct run_opts *o);

#endif
