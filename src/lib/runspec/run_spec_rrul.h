/* --test rrul's options in the run specification (issue 31; run_spec_rrul.c). */
#ifndef NETAB_RUNSPEC_RUN_SPEC_RRUL_H
#define NETAB_RUNSPEC_RUN_SPEC_RRUL_H

#include <stddef.h>

#include "runspec/run_spec.h"

/*
 * The checks of --test rrul against the other options: an option that makes
 * no sense with it (-u, --flows, -P, -n, --iperf3, ...) is refused by name,
 * and so are its own options without it. Returns 0 or -EINVAL.
 */
int run_spec_rrul_finish(const struct run_spec *o, char *err, size_t errlen);

/* rrul's options back into words (push(ctx, word)), for run_spec_to_argv(). */
void run_spec_rrul_argv(const struct run_spec *s, void (*push)(void *ctx, const char *word),
                        void *ctx);

#endif
