/*
 * compare_early_stop() (result.h): a comparison whose variant cannot run
 * stops at once instead of running every planned run to the same error.
 */
#include <stdio.h>
#include <string.h>

#include "compare/result.h"

void compare_early_stop(struct compare_result *res)
{
    if (!res->nruns || res->stopped_early[0])
        return;
    const struct compare_run *last = &res->runs[res->nruns - 1];
    if (last->status == COMPARE_RUN_OK)
        return;
    const char *name = last->slot.variant < res->c->cfg->nvariants
                           ? res->c->cfg->variants[last->slot.variant].name
                           : "?";
    /* A failed setup hook fails every later run of its variant the same way. */
    if (!strncmp(last->error, "setup failed", 12)) {
        snprintf(res->stopped_early, sizeof(res->stopped_early),
                 "variant '%s': its setup hook failed (%.300s)", name, last->error);
        return;
    }
    /* The variant's first two runs failed alike: the rest would too. */
    const struct compare_run *first = NULL;
    size_t n = 0;
    for (size_t k = 0; k < res->nruns; k++)
        if (res->runs[k].slot.variant == last->slot.variant && n++ == 0)
            first = &res->runs[k];
    if (n == 2 && first->status != COMPARE_RUN_OK && !strcmp(first->error, last->error))
        snprintf(res->stopped_early, sizeof(res->stopped_early),
                 "variant '%s': its first two runs failed alike (%.300s)", name, last->error);
}
