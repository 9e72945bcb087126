#include "history/changes.h"

#include <errno.h>
#include <stdlib.h>

int history_analyse(const struct history *h, const struct stats_cp_opts *opts, bool csv,
                    enum history_by by, struct history_analysis *out)
{
    *out = (struct history_analysis){.h = h, .opts = *opts, .csv = csv, .by = by};
    out->series = calloc(h->n ? h->n : 1, sizeof(*out->series));
    if (!out->series)
        return -ENOMEM;
    for (size_t i = 0; i < h->n; i++) {
        const struct history_series *s = &h->series[i];
        struct history_changes *c = &out->series[i];
        c->y = malloc((s->n ? s->n : 1) * sizeof(*c->y));
        if (!c->y)
            return -ENOMEM;
        for (size_t k = 0; k < s->n; k++)
            c->y[k] = s->pts[k].value;
        int rc = stats_changepoints(c->y, s->n, opts, &c->cp, &c->ncp);
        if (rc)
            return rc;
        out->found += c->ncp;
    }
    return 0;
}

void history_analysis_free(struct history_analysis *a)
{
    for (size_t i = 0; a->series && i < a->h->n; i++) {
        free(a->series[i].y);
        free(a->series[i].cp);
    }
    free(a->series);
    a->series = NULL;
}
