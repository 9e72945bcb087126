/* Helpers shared by the subcommands' option parsers. */
#ifndef NETAB_CLI_COMMON_H
#define NETAB_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/optmatch.h"
#include "util/optval.h"

/* Prints "netab CMD: <message>" and a hint to use --help; returns the usage exit code. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Prints "metric names (--metric):" and the names of the figures of
 * metric/metric.h that have flag (METRIC_COMPARE, METRIC_REPORT), wrapped at
 * 78 columns: the end of a usage text.
 */
void cli_print_metric_names(unsigned flag);

/*
 * After optmatch_next() returned '?': prints "netab CMD: unknown option 'X'"
 * (X as typed; -c for a bad short option) with a "did you mean" hint from
 * longopts and the --help pointer; returns the usage exit code.
 */
int cli_unknown_option(const char *cmd, char *const argv[], const struct option *longopts);

/*
 * Prints doc (taking it; NULL means out of memory) on standard output,
 * indented, reals with 17 significant digits (enough to read back the same
 * double), and a newline. Returns 0, or -EIO / -ENOMEM after saying
 * "netab CMD: ..." on stderr.
 */
int cli_json_print(const char *cmd, json_t *doc);

#endif
