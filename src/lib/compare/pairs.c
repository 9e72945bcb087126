/*
 * `netab compare --pairs all`: every pair of variants on the deciding metric
 * under the Bonferroni correction of `netab report --pairs all`; the
 * statistics and the JSON are report/pairs.h's, so both commands say the
 * same thing the same way.
 */
#include <errno.h>
#include <stdlib.h>

#include "compare/result.h"
#include "statsreport/pairs.h"

void compare_pairs_correct(struct compare_result *res)
{
    res->family_confidence = res->opts.confidence;
    res->npairs = report_pairs_count(res->c->cfg->nvariants);
    if (res->c->cfg->pairs_all)
        res->opts.confidence = report_pairs_level(res->family_confidence, res->npairs);
}

int compare_pairs_of(const struct compare_result *res, const struct compare_metric_report *d,
                     json_t *out, char *err, size_t errlen)
{
    size_t n = d->r.nsets;
    struct report_pair_set *sets = calloc(n, sizeof(*sets));
    json_t *head = json_pack("{s:s}", "metric", d->m->name);
    int e = sets && head ? 0 : -ENOMEM;
    for (size_t v = 0; v < n && !e; v++) {
        const struct stats_report_set *s = &d->r.sets[v];
        sets[v] = (struct report_pair_set){s->name, s->values, s->n, s->sum.mean};
    }
    if (!e)
        e = report_pairs_add(out, head, sets, n, &d->r.opts, res->npairs, err, errlen);
    json_decref(head);
    free(sets);
    return e;
}

int compare_pairs(struct compare_result *res, char *err, size_t errlen)
{
    const struct compare_campaign *c = res->c;
    if (!c->cfg->pairs_all)
        return 0;
    if (!(res->pairs = json_array()))
        return -ENOMEM;
    const struct compare_metric_report *d = &res->metrics[c->decide];
    if (!d->ok)
        return 0; /* the exit reason says why there is no verdict */
    return compare_pairs_of(res, d, res->pairs, err, errlen);
}
