/* The interval timeline of one run, from the client's interval reports. */
#include "runout/run_plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot/plot.h"
#include "plot/plot_figures.h"

/* Per-interval arrays: both byte directions and the transaction rate. */
struct columns {
    double *t0, *t1, *sent, *recv, *rate;
};

static void columns_free(struct columns *c)
{
    free(c->t0);
    free(c->t1);
    free(c->sent);
    free(c->recv);
    free(c->rate);
}

static int columns_fill(struct columns *c, const struct run_result *r)
{
    size_t n = r->nintervals;
    c->t0 = malloc(n * sizeof(double));
    c->t1 = malloc(n * sizeof(double));
    c->sent = malloc(n * sizeof(double));
    c->recv = malloc(n * sizeof(double));
    c->rate = malloc(n * sizeof(double));
    if (!c->t0 || !c->t1 || !c->sent || !c->recv || !c->rate)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct interval_report *iv = &r->intervals[i];
        double dt = iv->end - iv->start > 0 ? iv->end - iv->start : 1;
        c->t0[i] = iv->start;
        c->t1[i] = iv->end;
        c->sent[i] = (double)iv->sent * 8 / dt / 1e6;
        c->recv[i] = (double)iv->received * 8 / dt / 1e6;
        c->rate[i] = (double)iv->packets / dt;
    }
    return 0;
}

int run_plot_timeline(const struct run_result *r, const char *path, double w, double h,
                      size_t *npoints, char *err, size_t errlen)
{
    if (!r->nintervals)
        return err_set(err, errlen, ENODATA, "%s: the run has no intervals to draw (-i 0?)", path);
    struct columns c = {0};
    if (columns_fill(&c, r)) {
        columns_free(&c);
        return err_set(err, errlen, ENOMEM, "out of memory drawing %s", path);
    }
    size_t n = r->nintervals;
    struct plot_series s[2];
    size_t ns = 0;
    const struct test_params *p = &r->params;
    const char *axis = "throughput (Mbit/s)";
    if (params_is_rr(p->kind)) {
        axis = "transactions per second (1/s)";
        s[ns++] = (struct plot_series){"transactions", c.t0, c.t1, c.rate, n};
    } else {
        /* The client's view: what it sent (upload) and received (download, -R or --bidir). */
        if (!p->reverse || p->bidir)
            s[ns++] = (struct plot_series){"client sends", c.t0, c.t1, c.sent, n};
        if (p->reverse || p->bidir)
            s[ns++] = (struct plot_series){"client receives", c.t0, c.t1, c.recv, n};
    }
    char title[320];
    snprintf(title, sizeof(title), "netab run: %s to %s, per interval", params_kind_name(p->kind),
             r->server);
    struct plot_timeline t = {title, axis, s, ns, p->omit_s};
    int e = plot_write_file(path, w > 0 ? w : PLOT_DEFAULT_WIDTH, h > 0 ? h : PLOT_DEFAULT_HEIGHT,
                            plot_draw_timeline, &t, err, errlen);
    columns_free(&c);
    if (!e && npoints)
        *npoints = n * ns;
    return e;
}
