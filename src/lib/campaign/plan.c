/* The randomized interleaved order of a campaign (campaign.h). */
#include <errno.h>
#include <stdlib.h>

#include "campaign/campaign.h"

/* splitmix64: small, well mixed and the same on every platform, so a seed replays anywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias. */
static uint64_t uniform_below(uint64_t *state, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = splitmix64(state);
    while (x >= limit);
    return x % bound;
}

int campaign_plan(size_t nvariants, size_t ncells, long runs, long warmup, uint64_t seed,
                  struct campaign_slot **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!nvariants || !ncells || runs < 1 || warmup < 0 || nvariants > UINT32_MAX / ncells)
        return -EINVAL;
    size_t per_round = nvariants * ncells;
    size_t rounds = (size_t)runs + (size_t)warmup;
    if (rounds > (size_t)INT32_MAX / per_round)
        return -EINVAL; /* seq must fit the store's int */
    struct campaign_slot *s = calloc(rounds * per_round, sizeof(*s));
    unsigned *order = malloc(per_round * sizeof(*order));
    if (!s || !order) {
        free(s);
        free(order);
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t r = 1; r <= rounds; r++) {
        /* Each round's permutation depends on the seed and the round only. */
        uint64_t state = seed ^ ((uint64_t)r * 0xd1b54a32d192ed03ULL);
        (void)splitmix64(&state);
        for (size_t i = 0; i < per_round; i++)
            order[i] = (unsigned)i;
        for (size_t i = per_round; i > 1; i--) { /* Fisher-Yates */
            size_t j = (size_t)uniform_below(&state, i);
            unsigned t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < per_round; i++, k++)
            s[k] = (struct campaign_slot){.variant = order[i] / (unsigned)ncells,
                                          .cell = order[i] % (unsigned)ncells,
                                          .round = (unsigned)r,
                                          .seq = (unsigned)k + 1,
                                          .warmup = r <= (size_t)warmup};
    }
    free(order);
    *out = s;
    *n = k;
    return 0;
}

int campaign_create(struct store *db, const struct experiment *e, const char *file_text,
                    uint64_t seed, int64_t *id, char *err, size_t errlen)
{
    struct exp_cell *cells = NULL;
    size_t ncells = 0, n = 0;
    struct campaign_slot *slots = NULL;
    struct store_plan_entry *plan = NULL;
    char *spec = NULL;
    json_t *j = experiment_to_json(e);
    int rc = experiment_cells(e, &cells, &ncells);
    if (!rc)
        rc = campaign_plan(e->nvariants, ncells, e->runs, e->warmup, seed, &slots, &n);
    if (!rc && j) {
        /* The spec records the seed actually used, also when the file has none. */
        json_object_set_new(j, "seed", json_integer((json_int_t)seed));
        spec = json_dumps(j, JSON_COMPACT);
    }
    if (!rc && (!spec || !(plan = calloc(n, sizeof(*plan)))))
        rc = -ENOMEM;
    if (rc) {
        err_set(err, errlen, -rc, "cannot plan experiment %s: %s", e->name,
                rc == -EINVAL ? "the plan is too large" : "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        plan[i] = (struct store_plan_entry){.seq = (int)slots[i].seq,
                                            .variant = e->variants[slots[i].variant].name,
                                            .cell = cells[slots[i].cell].name,
                                            .warmup = slots[i].warmup,
                                            .round = (int)slots[i].round};
    rc = store_experiment_create(db, e->name, file_text, spec, seed, plan, n, id, err, errlen);
out:
    json_decref(j);
    free(spec);
    free(plan);
    free(slots);
    exp_cells_free(cells, ncells);
    return rc;
}
