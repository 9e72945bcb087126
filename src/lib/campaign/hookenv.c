/*
 * The environment every hook of a run sees (docs/campaign.md, "Hook
 * environment"): which experiment, variant, cell and place in the plan it
 * belongs to, and which variant comes next, so a hook can prepare the next
 * boot or skip work that the next run would undo.
 */
#include <stdio.h>
#include <stdlib.h>

#include "campaign/campaign_priv.h"

void hook_env_free(struct hook_env *h)
{
    for (size_t i = 0; i < HOOK_ENV_N; i++) {
        free(h->v[i]);
        h->v[i] = NULL;
    }
}

int hook_env_build(struct hook_env *h, const struct hook_env_info *x)
{
    char id[32], seq[16], round[16];
    snprintf(id, sizeof(id), "%lld", (long long)x->experiment_id);
    snprintf(seq, sizeof(seq), "%d", x->seq);
    snprintf(round, sizeof(round), "%d", x->round);
    const char *names[HOOK_ENV_N] = {
        "NETAB_EXPERIMENT", "NETAB_EXPERIMENT_ID", "NETAB_VARIANT", "NETAB_CELL", "NETAB_SEQ",
        "NETAB_ROUND",      "NETAB_NEXT_VARIANT",  "NETAB_DB",      "NETAB_DUT"};
    const char *values[HOOK_ENV_N] = {x->experiment,   id,    x->variant, x->cell, seq, round,
                                      x->next_variant, x->db, x->dut};
    for (size_t i = 0; i < HOOK_ENV_N; i++) {
        h->v[i] = NULL;
        if (asprintf(&h->v[i], "%s=%s", names[i], values[i] ? values[i] : "") < 0) {
            h->v[i] = NULL;
            hook_env_free(h);
            return -1;
        }
    }
    h->v[HOOK_ENV_N] = NULL;
    return 0;
}
