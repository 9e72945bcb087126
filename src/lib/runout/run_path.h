/*
 * send path (issue 32): a run's send path in its JSON document (end.path)
 * and its text summary: what each end's senders asked and what the kernel
 * did (engine/path_tx.h; docs/json.md).
 */
#ifndef NETAB_RUNOUT_RUN_PATH_H
#define NETAB_RUNOUT_RUN_PATH_H

#include <jansson.h>
#include <stdio.h>

#include "engine/run_result.h"

/* end.path: {send_path, local, remote}, or NULL when the test asked for no send path. */
json_t *run_path_json(const struct run_result *r);

/* The text lines, one per fact and sending end; nothing for a plain test. */
void run_path_text(FILE *f, const struct run_result *r);

#endif
