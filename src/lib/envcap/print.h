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
 * `netab env --json`'s document: {"environment": env_capture(ifname,
 * sysfs_root, procfs_root), "warnings": its env_warnings()}. NULL only when
 * out of memory. Caller has ownership.
 */
json_t *env_document(const char *ifname, const char *sysfs_root, const char *procfs_root);

/*
 * Every leaf of env as "path value" ("host.kernel  \"6.1\""), then
 * "warnings:" and each warning of warn (" none" without any) to f. 0 or
 * -EIO.
 */
NB_MUST_CHECK int env_print_text(FILE *f, const json_t *env, const json_t *warn);

/*
 * The build identity alone (`netab env --identity`): identity_capture() of
 * this host with ifname's module, as identity_write_text()'s "key: value"
 * lines on f, flushed. 0, -ENOMEM or -EIO.
 */
NB_MUST_CHECK int env_print_identity(FILE *f, const char *ifname);

#endif
