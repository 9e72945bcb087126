/* The interval timeline of one run, from the client's interval reports. */
#include "runout/run_plot.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot/plot.h"
#include "plot/plot_figures.h"

/*
 * Per-interval arrays: both byte directions and the transaction rate; the
 * sending connections' congestion window (KiB, summed) and smoothed RTT
 * (us: the mean, and the lowest and highest connection's).
 */
struct columns {
    double *t0, *t1, *sent, *recv, *rate;
    double *cwnd, *srtt, *srtt_min, *srtt_max;
};

/* The timeline's height with the congestion panels, when none is asked: the throughput keeps 500.
 */
#define TCP_PANELS_HEIGHT 900

static void columns_free(struct columns *c)
{
    free(c->t0);
    free(c->t1);
    free(c->sent);
    free(c->recv);
    free(c->rate);
    free(c->cwnd);
    free(c->srtt);
    free(c->srtt_min);
    free(c->srtt_max);
}

/* True when every interval has the client's sending connections' state (tcp_stream, tcp_rr). */
static bool has_tcp(const struct run_result *r)
{
    for (size_t i = 0; i < r->nintervals; i++)
        if (!r->intervals[i].have_tcp || !r->intervals[i].tcp.sender)
            return false;
    return r->nintervals > 0;
}

static int columns_fill(struct columns *c, const struct run_result *r)
{
    size_t n = r->nintervals;
    c->t0 = malloc(n * sizeof(double));
    c->t1 = malloc(n * sizeof(double));
    c->sent = malloc(n * sizeof(double));
    c->recv = malloc(n * sizeof(double));
    c->rate = malloc(n * sizeof(double));
    c->cwnd = malloc(n * sizeof(double));
    c->srtt = malloc(n * sizeof(double));
    c->srtt_min = malloc(n * sizeof(double));
    c->srtt_max = malloc(n * sizeof(double));
    if (!c->t0 || !c->t1 || !c->sent || !c->recv || !c->rate || !c->cwnd || !c->srtt ||
        !c->srtt_min || !c->srtt_max)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct interval_report *iv = &r->intervals[i];
        double dt = iv->end - iv->start > 0 ? iv->end - iv->start : 1;
        c->t0[i] = iv->start;
        c->t1[i] = iv->end;
        c->sent[i] = (double)iv->sent * 8 / dt / 1e6;
        c->recv[i] = (double)iv->received * 8 / dt / 1e6;
        c->rate[i] = (double)iv->packets / dt;
        c->cwnd[i] = (double)iv->tcp.cwnd_bytes / 1024;
        c->srtt[i] = iv->tcp.srtt_us;
        c->srtt_min[i] = iv->tcp.srtt_min_us;
        c->srtt_max[i] = iv->tcp.srtt_max_us;
    }
    return 0;
}

/*
 * Writes the throughput timeline t, and below it, when the intervals carry
 * the sending connections' TCP state, its congestion window and RTT.
 */
static int draw(const struct run_result *r, const struct columns *c, const struct plot_timeline *t,
                const char *path, double w, double h, char *err, size_t errlen)
{
    w = w > 0 ? w : PLOT_DEFAULT_WIDTH;
    if (!has_tcp(r))
        return plot_write_file(path, w, h > 0 ? h : PLOT_DEFAULT_HEIGHT, plot_draw_timeline, t, err,
                               errlen);
    size_t n = r->nintervals;
    bool several = r->intervals[0].tcp.n > 1;
    struct plot_series cw = {several ? "cwnd, summed" : "cwnd", c->t0, c->t1, c->cwnd, n};
    struct plot_series rtt[3] = {{several ? "srtt, mean" : "srtt", c->t0, c->t1, c->srtt, n},
                                 {"srtt, lowest", c->t0, c->t1, c->srtt_min, n},
                                 {"srtt, highest", c->t0, c->t1, c->srtt_max, n}};
    struct plot_timeline tc = {"congestion window (TCP_INFO, the client's sending connections)",
                               "cwnd (KiB)",
                               &cw,
                               1,
                               t->omit,
                               0,
                               0,
                               NULL};
    struct plot_timeline tr = {"smoothed RTT (TCP_INFO, the client's sending connections)",
                               "srtt (us)",
                               rtt,
                               several ? 3 : 1,
                               t->omit,
                               0,
                               0,
                               NULL};
    struct plot_stack_part parts[] = {
        {plot_draw_timeline, t, 5}, {plot_draw_timeline, &tc, 2}, {plot_draw_timeline, &tr, 2}};
    struct plot_stack st = {parts, 3};
    return plot_write_file(path, w, h > 0 ? h : TCP_PANELS_HEIGHT, plot_draw_stack, &st, err,
                           errlen);
}

/*
 * --test rrul (issue 31): the probes' round trips per interval (p50, p99;
 * intervals without an answered probe left out) above the load's
 * throughput each way, the loaded phase shaded in both. Returns the points
 * drawn, or -ENOMEM.
 */
static long draw_rrul(const struct run_result *r, const char *path, double w, double h, char *err,
                      size_t errlen)
{
    size_t n = r->nintervals, k = 0;
    double *a = malloc(9 * n * sizeof(double));
    if (!a)
        return -ENOMEM;
    double *t0 = a, *t1 = a + n, *p50 = a + 2 * n, *p99 = a + 3 * n, *u0 = a + 4 * n,
           *u1 = a + 5 * n, *up = a + 6 * n, *down = a + 7 * n;
    for (size_t i = 0; i < n; i++) {
        const struct interval_report *iv = &r->intervals[i];
        u0[i] = iv->start;
        u1[i] = iv->end;
        up[i] = iv->rrul.up_bps / 1e6;
        down[i] = iv->rrul.down_bps / 1e6;
        if (!isfinite(iv->rrul.p50_us) || !isfinite(iv->rrul.p99_us))
            continue;
        t0[k] = iv->start;
        t1[k] = iv->end;
        p50[k] = iv->rrul.p50_us / 1e3;
        p99[k++] = iv->rrul.p99_us / 1e3;
    }
    const struct rrul_end *e = &r->rrul;
    struct plot_series lat[2] = {{"probes p50", t0, t1, p50, k}, {"probes p99", t0, t1, p99, k}};
    struct plot_series thr[2] = {{"load up", u0, u1, up, n}, {"load down", u0, u1, down, n}};
    char title[320];
    snprintf(title, sizeof(title), "netab run: rrul with %s, probe round trips per interval",
             r->server);
    struct plot_timeline tl = {title, "round trip (ms)", lat,       2,
                               0,     e->start[1],       e->end[1], "loaded"};
    struct plot_timeline tt = {"the load's throughput",
                               "throughput (Mbit/s)",
                               thr,
                               2,
                               0,
                               e->start[1],
                               e->end[1],
                               "loaded"};
    struct plot_stack_part parts[] = {{plot_draw_timeline, &tl, 3}, {plot_draw_timeline, &tt, 2}};
    struct plot_stack st = {parts, 2};
    int rc = plot_write_file(path, w > 0 ? w : PLOT_DEFAULT_WIDTH, h > 0 ? h : TCP_PANELS_HEIGHT,
                             plot_draw_stack, &st, err, errlen);
    free(a);
    return rc ? rc : (long)(2 * k + 2 * n);
}

int run_plot_timeline(const struct run_result *r, const char *path, double w, double h,
                      size_t *npoints, char *err, size_t errlen)
{
    if (!r->nintervals)
        return err_set(err, errlen, ENODATA, "%s: the run has no intervals to draw (-i 0?)", path);
    if (r->have_rrul) {
        long drawn = draw_rrul(r, path, w, h, err, errlen);
        if (drawn == -ENOMEM)
            return err_set(err, errlen, ENOMEM, "out of memory drawing %s", path);
        if (drawn >= 0 && npoints)
            *npoints = (size_t)drawn;
        return drawn < 0 ? (int)drawn : 0;
    }
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
    struct plot_timeline t = {title, axis, s, ns, p->omit_s, 0, 0, NULL};
    int e = draw(r, &c, &t, path, w, h, err, errlen);
    columns_free(&c);
    if (!e && npoints)
        *npoints = n * ns;
    return e;
}
