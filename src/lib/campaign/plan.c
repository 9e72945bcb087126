/* The randomized interleaved order of a campaign (campaign.h). */
#include <errno.h>
#include <stdlib.h>

#include "campaign/campaign.h"
#include "campaign/order.h"
#include "util/jsonout.h"

int campaign_plan_rounds(size_t nvariants, size_t ncells, long first_round, long last_round,
                         long warmup, uint64_t seed, struct campaign_slot **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!nvariants || !ncells || first_round < 1 || last_round < first_round || warmup < 0 ||
        nvariants > UINT32_MAX / ncells)
        return -EINVAL;
    size_t per_round = nvariants * ncells;
    if ((size_t)last_round > (size_t)INT32_MAX / per_round)
        return -EINVAL; /* seq must fit the store's int */
    size_t rounds = (size_t)(last_round - first_round + 1);
    struct campaign_slot *s = calloc(rounds * per_round, sizeof(*s));
    unsigned *order = malloc(per_round * sizeof(*order));
    if (!s || !order) {
        free(s);
        free(order);
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t r = (size_t)first_round; r <= (size_t)last_round; r++) {
        order_round(seed, (unsigned)r, per_round, order);
        for (size_t i = 0; i < per_round; i++, k++)
            s[k] = (struct campaign_slot){.variant = order[i] / (unsigned)ncells,
                                          .cell = order[i] % (unsigned)ncells,
                                          .round = (unsigned)r,
                                          .seq = (unsigned)((r - 1) * per_round + i + 1),
                                          .warmup = r <= (size_t)warmup};
    }
    free(order);
    *out = s;
    *n = k;
    return 0;
}

int campaign_plan(size_t nvariants, size_t ncells, long runs, long warmup, uint64_t seed,
                  struct campaign_slot **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (runs < 1 || warmup < 0 || runs > INT32_MAX - warmup)
        return -EINVAL;
    return campaign_plan_rounds(nvariants, ncells, 1, runs + warmup, warmup, seed, out, n);
}

/* The store's plan rows of slots; strings are borrowed from e and cells. */
static void fill_entries(const struct experiment *e, const struct exp_cell *cells,
                         const struct campaign_slot *slots, size_t n, struct store_plan_entry *plan)
{
    for (size_t i = 0; i < n; i++)
        plan[i] = (struct store_plan_entry){.seq = (int)slots[i].seq,
                                            .variant = e->variants[slots[i].variant].name,
                                            .cell = cells[slots[i].cell].name,
                                            .warmup = slots[i].warmup,
                                            .round = (int)slots[i].round};
}

/* By variant, then by planned seq: qsort() is not stable, the seq makes it so. */
static int by_variant(const void *a, const void *b)
{
    const struct campaign_slot *x = a, *y = b;
    if (x->variant != y->variant)
        return x->variant < y->variant ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void campaign_plan_block(struct campaign_slot *slots, size_t n)
{
    qsort(slots, n, sizeof(*slots), by_variant);
    for (size_t i = 0; i < n; i++)
        slots[i].seq = (unsigned)i + 1;
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
    if (!rc && e->order == EXP_ORDER_BLOCKED)
        campaign_plan_block(slots, n);
    if (!rc && j) {
        /* The spec records the seed actually used, also when the file has none. */
        json_object_set_new(j, "seed", json_integer((json_int_t)seed));
        spec = jsonout_compact(j);
    }
    if (!rc && (!spec || !(plan = calloc(n, sizeof(*plan)))))
        rc = -ENOMEM;
    if (rc) {
        err_set(err, errlen, -rc, "cannot plan experiment %s: %s", e->name,
                rc == -EINVAL ? "the plan is too large" : "out of memory");
        goto out;
    }
    fill_entries(e, cells, slots, n, plan);
    rc = store_experiment_create(db, e->name, file_text, spec, seed, plan, n, id, err, errlen);
out:
    json_decref(j);
    free(spec);
    free(plan);
    free(slots);
    exp_cells_free(cells, ncells);
    return rc;
}

int campaign_extend(struct store *db, const struct experiment *e, int64_t id, long first_round,
                    long last_round, uint64_t seed, char *err, size_t errlen)
{
    struct exp_cell *cells = NULL;
    size_t ncells = 0, n = 0;
    struct campaign_slot *slots = NULL;
    struct store_plan_entry *plan = NULL;
    int rc = experiment_cells(e, &cells, &ncells);
    if (!rc)
        rc = campaign_plan_rounds(e->nvariants, ncells, first_round, last_round, e->warmup, seed,
                                  &slots, &n);
    if (!rc && !(plan = calloc(n, sizeof(*plan))))
        rc = -ENOMEM;
    if (rc) {
        err_set(err, errlen, -rc, "cannot plan rounds %ld to %ld of %s: %s", first_round,
                last_round, e->name, rc == -EINVAL ? "the plan is too large" : "out of memory");
        goto out;
    }
    fill_entries(e, cells, slots, n, plan);
    rc = store_plan_append(db, id, plan, n, err, errlen);
out:
    free(plan);
    free(slots);
    exp_cells_free(cells, ncells);
    return rc;
}
