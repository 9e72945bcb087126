/*
 * Shared between the parts of `netab compare`'s command line: the argument
 * parser (cli_compare_args.c), the progress and process policy
 * (cli_compare.c). The campaign, its adaptive looks, the analysis and its
 * text and JSON reports are libnetab's (compare/result.h, compare/text.h,
 * compare/document.h).
 */
#ifndef NETAB_CLI_COMPARE_H
#define NETAB_CLI_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"
#include "compare/result.h"

/*
 * Parses the command line into cfg (zeroed here; free with
 * compare_config_free() also on failure). Returns -1 to go on, EXIT_OK after
 * --help, or EXIT_USAGE after printing the reason to stderr.
 */
int cli_compare_parse(int argc, char **argv, struct compare_config *cfg);

#endif
