/* The DUT columns of the headline (duts.h): the model's part. */
#include "report/duts.h"
#include "report/matrix.h"
#include "report/place.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index of the axis called dut, or -1. */
static int dut_axis(const struct creport *r)
{
    for (size_t a = 0; a < r->naxes; a++)
        if (r->axes[a] && !strcmp(r->axes[a], "dut"))
            return (int)a;
    return -1;
}

/* Adds an empty group headed h; returns it, or NULL on ENOMEM. */
static struct creport_dutgroup *add_group(struct creport_dutcols *d, size_t ncells, const char *h)
{
    struct creport_dutgroup *g = &d->groups[d->ngroups];
    g->heading = strdup(h);
    g->cells = malloc(ncells * sizeof(*g->cells));
    if (!g->heading || !g->cells) {
        free(g->heading);
        free(g->cells);
        return NULL;
    }
    for (size_t k = 0; k < ncells; k++)
        g->cells[k] = -1;
    d->ngroups++;
    return g;
}

int creport_dutcols_build(struct creport *r)
{
    int a = dut_axis(r);
    if (a < 0 || !r->ncells)
        return 0;
    struct creport_dutcols *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    r->dutcols = d;
    /* At most one column and one group per cell: sized once, never grown. */
    d->cols = calloc(r->ncells, sizeof(*d->cols));
    d->groups = calloc(r->ncells, sizeof(*d->groups));
    if (!d->cols || !d->groups)
        return -ENOMEM;
    for (size_t c = 0; c < r->ncells; c++) {
        const char *dut = r->cells[c].values ? r->cells[c].values[a] : NULL;
        if (!dut)
            continue; /* not a cell of the matrix */
        long k = creport_find_name(d->cols, d->ncols, dut);
        if (k < 0) {
            if (!(d->cols[d->ncols] = strdup(dut)))
                return -ENOMEM;
            k = (long)d->ncols++;
        }
        char h[256];
        creport_cell_axes_but(r, c, a, -1, h, sizeof(h));
        struct creport_dutgroup *g = NULL;
        for (size_t i = 0; i < d->ngroups && !g; i++)
            if (!strcmp(d->groups[i].heading, h))
                g = &d->groups[i];
        if (!g && !(g = add_group(d, r->ncells, h)))
            return -ENOMEM;
        g->cells[k] = (long)c;
    }
    for (size_t i = 0; i < d->ngroups; i++) {
        struct creport_dutgroup *g = &d->groups[i];
        g->first = -1;
        for (size_t k = 0; k < d->ncols && g->first < 0; k++)
            if (g->cells[k] >= 0 && r->cells[g->cells[k]].decide >= 0)
                g->first = g->cells[k];
    }
    return 0;
}

void creport_dutcols_free(struct creport *r)
{
    struct creport_dutcols *d = r->dutcols;
    if (!d)
        return;
    for (size_t i = 0; d->cols && i < d->ncols; i++)
        free(d->cols[i]);
    for (size_t i = 0; d->groups && i < d->ngroups; i++) {
        free(d->groups[i].heading);
        free(d->groups[i].cells);
    }
    free(d->cols);
    free(d->groups);
    free(d);
    r->dutcols = NULL;
}

void creport_duts_sentence(const struct creport *r, char *b, size_t n)
{
    size_t u = 0;
    *b = '\0';
    if (!r->nduts)
        return;
    u += (size_t)snprintf(b, n, "DUTs: ");
    for (size_t i = 0; i < r->nduts && u < n; i++)
        u += (size_t)snprintf(b + u, n - u, "%s%s", i ? ", " : "", r->duts[i]);
    if (u < n)
        snprintf(b + u, n - u, "; %s.",
                 r->duts_concurrent
                     ? "their runs ran concurrently (parallel: duts), each DUT one run at a time"
                     : "one run at a time over all of them");
}
