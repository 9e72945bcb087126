/* The hot set of `netab layout --hot-from` (cli_layout_hot.c). */
#ifndef NETAB_CLI_LAYOUT_HOT_H
#define NETAB_CLI_LAYOUT_HOT_H

#include <stddef.h>

#include "layout/layout_hot.h"

/*
 * Fills hot from the profiles in arg: an existing file (one `netab run
 * --profile --json` document), else EXPERIMENT[:VARIANT] of the store at db
 * (NULL: the default store), its ok runs (of that variant). Functions with
 * at least 0.5% of all samples are hot. Returns 0 or a negative errno with
 * a sentence in err.
 */
int cli_layout_hot_from(const char *arg, const char *db, struct layout_hot *hot, char *err,
                        size_t errlen);

#endif
