/* Helpers shared by the subcommands' option parsers. */
#ifndef NETAB_CLI_COMMON_H
#define NETAB_CLI_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Each parser converts optarg for option `opt` of command `cmd`; on a bad
 * value it prints "netab CMD: OPT: <reason>" to stderr and returns false.
 */
bool cli_parse_size(const char *cmd, const char *opt, const char *arg, uint64_t max, uint64_t *out);
bool cli_parse_seconds(const char *cmd, const char *opt, const char *arg, double min, double max,
                       double *out);
bool cli_parse_int(const char *cmd, const char *opt, const char *arg, long min, long max,
                   long *out);

/* Prints "netab CMD: <message>" and a hint to use --help; returns the usage exit code. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
