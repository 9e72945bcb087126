/*
 * Every pair of variants in every cell (pairs.h); the
 * comparisons, the correction and the lines are report/pairs.h's, shared
 * with `netab compare --pairs all`.
 */
#include "report/pairs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "statsreport/pairs.h"

void creport_pairs_correct(struct creport *r)
{
    r->family_confidence = r->opts.confidence;
    r->npairs = report_pairs_count(r->nvariants);
    if (!r->opts.pairs_all || r->npairs < 2)
        return;
    r->opts.confidence = report_pairs_level(r->family_confidence, r->npairs);
}

/* The pairs of cell c on metric m into out ([r->npairs]). */
static int cell_pairs(const struct creport *r, size_t c, size_t m, const struct stats_opts *so,
                      struct creport_pair *out, char *err, size_t errlen)
{
    struct report_pair_set *sets = calloc(r->nvariants ? r->nvariants : 1, sizeof(*sets));
    struct report_pair *p = calloc(r->npairs ? r->npairs : 1, sizeof(*p));
    int e = sets && p ? 0 : -ENOMEM;
    for (size_t v = 0; v < r->nvariants && !e; v++) {
        const struct creport_entry *en = creport_at(r, v, c, m);
        sets[v] = (struct report_pair_set){r->variants[v], en->values, en->n, en->mean};
    }
    if (!e)
        e = report_pairs_compute(sets, r->nvariants, so, r->npairs, p, err, errlen);
    for (size_t i = 0; i < r->npairs && !e; i++)
        out[i] = (struct creport_pair){c, m, p[i]};
    free(p);
    free(sets);
    return e;
}

int creport_pairs(struct creport *r, uint64_t seed, char *err, size_t errlen)
{
    const struct creport_metric *md = r->metrics; /* built-ins, then --metric paths */
    if (!r->opts.pairs_all)
        return 0;
    /* Every cell with a deciding metric has the same r->npairs pairs; non-NULL even for none. */
    size_t max = r->ncells * r->npairs;
    if (!(r->pairs = calloc(max ? max : 1, sizeof(*r->pairs))))
        return -ENOMEM;
    struct stats_opts so;
    stats_opts_default(&so);
    so.confidence = r->opts.confidence;
    so.noise = r->opts.noise;
    so.seed = seed;
    for (size_t c = 0; c < r->ncells; c++) {
        int m = r->cells[c].decide;
        if (m < 0)
            continue;
        so.lower_is_better = md[m].lower_is_better;
        int e = cell_pairs(r, c, (size_t)m, &so, r->pairs + r->npair_rows, err, errlen);
        if (e)
            return e;
        r->npair_rows += r->npairs;
    }
    return 0;
}

/* Pair p as the JSON's "pairs" member holds it: the cell's and metric's names, then the pair. */
static json_t *pair_json(const struct creport *r, const struct creport_pair *p)
{
    json_t *o =
        json_pack("{s:s, s:s}", "cell", r->cells[p->c].name, "metric", r->metrics[p->m].name);
    json_t *more = report_pair_json(&p->p, r->variants[p->p.a], r->variants[p->p.b]);
    if (!o || !more || json_object_update(o, more)) {
        json_decref(o);
        o = NULL;
    }
    json_decref(more);
    return o;
}

json_t *creport_pairs_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->npair_rows; i++)
        if (json_array_append_new(a, pair_json(r, &r->pairs[i]))) {
            json_decref(a);
            a = NULL;
        }
    return a;
}
