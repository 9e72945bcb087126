/* Helpers shared by the subcommands' option parsers. */
#ifndef NETAB_CLI_COMMON_H
#define NETAB_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Each parser converts optarg for option `opt`; on a bad value it writes
 * "OPT: <reason>" (naming the option and the value) to err and returns
 * false. They print nothing: the caller reports the message once, on stderr
 * and, for 'netab run --json', in the JSON document too.
 */
bool cli_parse_size(const char *opt, const char *arg, uint64_t max, uint64_t *out, char *err,
                    size_t errlen);
bool cli_parse_seconds(const char *opt, const char *arg, double min, double max, double *out,
                       char *err, size_t errlen);
bool cli_parse_int(const char *opt, const char *arg, long min, long max, long *out, char *err,
                   size_t errlen);

/* Prints "netab CMD: <message>" and a hint to use --help; returns the usage exit code. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
