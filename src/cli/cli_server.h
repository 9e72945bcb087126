/* netab server: the parsed command line, exposed so that the parser can be unit tested. */
#ifndef NETAB_CLI_CLI_SERVER_H
#define NETAB_CLI_CLI_SERVER_H

#include <stdbool.h>

#include "proto/server.h"

struct server_opts {
    struct server_config cfg;
    bool daemon;
    const char *logfile, *pidfile, *portfile;
    const char *auth_key_file; /* --auth-key: loaded by cli_server() */
};

/*
 * Parses the arguments of 'netab server' (argv[0] is "server") into *o,
 * which it initialises first. Returns -1 when the server should start, or
 * the exit code to return at once (EXIT_OK after --help, EXIT_USAGE after
 * printing a usage error). Strings in *o point into argv. Safe to call
 * repeatedly in one process.
 */
int cli_server_parse(int argc, char **argv, struct server_opts *o);

#endif
