/*
 * Every pair of variants in every cell (campaign_report_pairs.h); the
 * comparisons, the correction and the lines are report/pairs.h's, shared
 * with `netab compare --pairs all`.
 */
#include "creport/campaign_report_pairs.h"

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

/* The pairs of cell c on metric m, each headed by the cell's and the metric's names. */
static int cell_pairs(struct creport *r, size_t c, size_t m, const struct stats_opts *so, char *err,
                      size_t errlen)
{
    const struct creport_metric *md = r->metrics; /* built-ins, then --metric paths */
    struct report_pair_set *sets = calloc(r->nvariants ? r->nvariants : 1, sizeof(*sets));
    json_t *head = json_pack("{s:s, s:s}", "cell", r->cells[c].name, "metric", md[m].name);
    int e = sets && head ? 0 : -ENOMEM;
    for (size_t v = 0; v < r->nvariants && !e; v++) {
        const struct creport_entry *en = creport_at(r, v, c, m);
        sets[v] = (struct report_pair_set){r->variants[v], en->values, en->n, en->mean};
    }
    if (!e)
        e = report_pairs_add(r->pairs, head, sets, r->nvariants, so, r->npairs, err, errlen);
    json_decref(head);
    free(sets);
    return e;
}

int creport_pairs(struct creport *r, uint64_t seed, char *err, size_t errlen)
{
    const struct creport_metric *md = r->metrics; /* built-ins, then --metric paths */
    if (!r->opts.pairs_all)
        return 0;
    if (!(r->pairs = json_array()))
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
        int e = cell_pairs(r, c, (size_t)m, &so, err, errlen);
        if (e)
            return e;
    }
    return 0;
}
