/* netab history's figure: one panel per series, stacked, the change points marked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "history/changes.h"
#include "plot/plot.h"
#include "plot/plot_history.h"

int history_draw(const struct history_analysis *a, const char *path, char *err, size_t errlen)
{
    const struct history *h = a->h;
    const struct history_changes *an = a->series;
    struct plot_history *figs = calloc(h->n, sizeof(*figs));
    struct plot_stack_part *parts = calloc(h->n, sizeof(*parts));
    size_t **cuts = calloc(h->n, sizeof(*cuts));
    char(*titles)[160] = calloc(h->n, sizeof(*titles)), axis[160];
    int rc = figs && parts && cuts && titles ? 0 : -ENOMEM;
    snprintf(axis, sizeof(axis), "%.100s%s%.30s%s", h->metric, *h->unit ? " (" : "", h->unit,
             *h->unit ? ")" : "");
    for (size_t i = 0; !rc && i < h->n; i++) {
        if (!(cuts[i] = calloc(an[i].ncp + 1, sizeof(**cuts)))) {
            rc = -ENOMEM;
            break;
        }
        for (size_t k = 0; k < an[i].ncp; k++)
            cuts[i][k] = an[i].cp[k].index;
        snprintf(titles[i], sizeof(titles[i]), "%.79s%s%.40s: %zu change point%s", h->metric,
                 h->series[i].variant ? " of " : "",
                 h->series[i].variant ? h->series[i].variant : "", an[i].ncp,
                 an[i].ncp == 1 ? "" : "s");
        figs[i] =
            (struct plot_history){titles[i], axis, an[i].y, h->series[i].n, cuts[i], an[i].ncp};
        parts[i] = (struct plot_stack_part){plot_draw_history, &figs[i], 1};
    }
    struct plot_stack st = {parts, h->n};
    if (!rc)
        rc = plot_write_file(path, PLOT_DEFAULT_WIDTH, PLOT_DEFAULT_HEIGHT * (double)h->n,
                             plot_draw_stack, &st, err, errlen);
    else
        err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; cuts && i < h->n; i++)
        free(cuts[i]);
    free(cuts);
    free(figs);
    free(parts);
    free(titles);
    return rc;
}
