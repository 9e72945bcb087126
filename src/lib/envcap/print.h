/*
 * The environment snapshot as `netab env` prints it (print.c): one
 * "path = value" line per fact, then the warnings.
 */
#ifndef NETAB_ENVCAP_PRINT_H
#define NETAB_ENVCAP_PRINT_H

#include <jansson.h>
#include <stdio.h>

#include "util/err.h"

/*
 * Every leaf of env as "path value" ("host.kernel  \"6.1\""), then
 * "warnings:" and each warning of warn (" none" without any) to f. 0 or
 * -EIO.
 */
NB_MUST_CHECK int env_print_text(FILE *f, const json_t *env, const json_t *warn);

#endif
