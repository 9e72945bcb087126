/*
 * The latency-under-load test's figures (rrul_priv.h): per phase from the
 * probes sent in it (the phase of a probe is that of its send time, so a
 * probe that waited in the load's queue counts where it was sent), and per
 * interval of the probes' run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "measure/histogram.h"
#include "rrul/probe_stats.h"
#include "rrul/rrul_priv.h"

/* The phase bounds on the probes' clock: [open, close] is the load's window. */
struct bounds {
    uint64_t start, open, close, end;
};

static int phase_of(const struct bounds *b, uint64_t t)
{
    return t < b->open ? PROBE_IDLE : t <= b->close ? PROBE_LOADED : PROBE_RECOVERY;
}

static double secs(uint64_t a, uint64_t b)
{
    return b > a ? (double)(b - a) / 1e9 : 0;
}

/* The UDP probes sent in [from, to): counts and round trips (µs) into ph. */
static int udp_phase(const struct probe_log *log, uint64_t from, uint64_t to, bool rpm,
                     struct rrul_end *e, struct rrul_phase *ph)
{
    double *rtt = malloc((log->sent ? log->sent : 1) * sizeof(double));
    if (!rtt)
        return -ENOMEM;
    size_t n = 0;
    for (uint64_t k = 0; k < log->sent; k++) {
        const struct probe_rec *r = &log->rec[k];
        if (r->sent_ns < from || r->sent_ns >= to)
            continue;
        ph->sent++;
        if (!r->answers)
            continue;
        ph->received++;
        ph->duplicates += r->answers - 1;
        ph->reordered += r->reordered;
        rtt[n++] = (double)r->rtt_ns / 1e3;
    }
    ph->lost = ph->sent - ph->received;
    ph->loss_percent = ph->sent ? 100.0 * (double)ph->lost / (double)ph->sent : NAN;
    struct probe_summary s;
    probe_summarize(rtt, n, &s);
    ph->p50_us = s.p50;
    ph->p90_us = s.p90;
    ph->p99_us = s.p99;
    ph->p999_us = s.p999;
    ph->max_us = s.max;
    ph->min_us = s.min;
    ph->mean_us = s.mean;
    int rc = 0;
    if (rpm) {
        for (size_t i = 0; i < n; i++)
            rtt[i] /= 1e3; /* RPM is defined on milliseconds */
        rc = probe_rpm(rtt, n, 0.95, &e->rpm, &e->rpm_lo, &e->rpm_hi);
        rc = rc == -EDOM ? 0 : rc;
    }
    free(rtt);
    return rc;
}

/*
 * The one-way delays of the probes sent in [from, to) that the server
 * stamped: up is its receive time less the send time, down the answer's
 * arrival less it; meaningful only as far as the two clocks agree
 * (measure/clocksync.h: the log's stamp clock, judged after the run).
 * Returns whether any probe was stamped, or -ENOMEM.
 */
static int one_way_phase(const struct probe_log *log, uint64_t from, uint64_t to,
                         struct rrul_one_way *ow)
{
    size_t cap = log->sent ? log->sent : 1, n = 0;
    double *up = malloc(cap * sizeof(double)), *down = malloc(cap * sizeof(double));
    if (!up || !down) {
        free(up);
        free(down);
        return -ENOMEM;
    }
    for (uint64_t k = 0; k < log->sent; k++) {
        const struct probe_rec *r = &log->rec[k];
        if (r->sent_ns < from || r->sent_ns >= to || !r->answers || !r->srv_ns)
            continue;
        up[n] = ((double)r->srv_ns - (double)r->sent_ns) / 1e3;
        down[n++] = ((double)(r->sent_ns + r->rtt_ns) - (double)r->srv_ns) / 1e3;
    }
    struct probe_summary su, sd;
    probe_summarize(up, n, &su);
    probe_summarize(down, n, &sd);
    *ow = (struct rrul_one_way){su.p50, su.p99, sd.p50, sd.p99};
    free(up);
    free(down);
    return n > 0;
}

/* The TCP probe's transactions of one phase, and the load's throughput and RTT. */
static void tcp_and_load(const struct rrul_parts *pa, int i, double len, struct rrul_phase *ph)
{
    const struct histogram *h = pa->log->hist[i];
    uint64_t n = hist_count(h);
    ph->tcp_tps = len > 0 ? (double)n / len : NAN;
    ph->tcp_p50_us = n ? hist_percentile(h, 50) / 1e3 : NAN;
    ph->tcp_p99_us = n ? hist_percentile(h, 99) / 1e3 : NAN;
    ph->load_srtt_us = NAN;
    if (i != PROBE_LOADED)
        return;
    struct direction_totals up, down;
    run_result_totals(pa->load, 0, &up);
    run_result_totals(pa->load, 1, &down);
    ph->up_bps =
        up.receiver_seconds > 0 ? 8.0 * (double)up.receiver_bytes / up.receiver_seconds : 0;
    ph->down_bps =
        down.receiver_seconds > 0 ? 8.0 * (double)down.receiver_bytes / down.receiver_seconds : 0;
    double sum = 0;
    size_t k = 0;
    for (size_t j = 0; j < pa->ivs->n; j++)
        if (pa->ivs->v[j].have_srtt) {
            sum += pa->ivs->v[j].srtt_us;
            k++;
        }
    ph->load_srtt_us = k ? sum / (double)k : NAN;
}

/*
 * The load's bits per second up and down over [a, b], its intervals shared
 * by overlap. The intervals are in time order and so are the calls': *from
 * is the first that may still overlap, so all calls together read each once.
 */
static void load_over(const struct rrul_load_ivs *l, uint64_t a, uint64_t b, size_t *from,
                      double *up, double *down)
{
    double su = 0, sd = 0;
    while (*from < l->n && l->v[*from].end_ns <= a)
        (*from)++;
    for (size_t j = *from; j < l->n; j++) {
        const struct rrul_load_iv *v = &l->v[j];
        uint64_t e = v->end_ns, s = e - (uint64_t)(v->seconds * 1e9);
        uint64_t lo = s > a ? s : a, hi = e < b ? e : b;
        if (s >= b)
            break;
        if (hi <= lo || v->seconds <= 0)
            continue;
        double f = secs(lo, hi) / v->seconds;
        su += f * (double)v->sent;
        sd += f * (double)v->received;
    }
    double len = secs(a, b);
    *up = len > 0 ? 8 * su / len : 0;
    *down = len > 0 ? 8 * sd / len : 0;
}

/* Each interval of the probes' run: its probes' percentiles and loss, the load's throughput. */
static int intervals(const struct rrul_parts *pa, const struct bounds *b, struct run_result *res)
{
    const struct probe_log *log = pa->log;
    double *rtt = malloc((log->sent ? log->sent : 1) * sizeof(double));
    if (!rtt)
        return -ENOMEM;
    /* Probes are in send-time order and intervals in time order: one pass over each. */
    uint64_t k = 0;
    size_t j = 0;
    for (size_t i = 0; i < res->nintervals; i++) {
        struct interval_report *iv = &res->intervals[i];
        uint64_t a = b->start + (uint64_t)(iv->start * 1e9),
                 z = b->start + (uint64_t)(iv->end * 1e9);
        size_t n = 0;
        struct rrul_interval *r = &iv->rrul;
        *r = (struct rrul_interval){.phase = phase_of(b, a + (z - a) / 2)};
        while (k < log->sent && log->rec[k].sent_ns < a)
            k++;
        for (; k < log->sent && log->rec[k].sent_ns < z; k++) {
            const struct probe_rec *p = &log->rec[k];
            if (p->answers)
                rtt[n++] = (double)p->rtt_ns / 1e3;
            else
                r->lost++;
        }
        struct probe_summary s;
        probe_summarize(rtt, n, &s);
        r->p50_us = s.p50;
        r->p99_us = s.p99;
        load_over(pa->ivs, a, z, &j, &r->up_bps, &r->down_bps);
        iv->have_rrul = true;
    }
    free(rtt);
    return 0;
}

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

int rrul_figures(const struct rrul_parts *pa, struct run_result *res)
{
    const struct probe_log *log = pa->log;
    struct rrul_end *e = &res->rrul;
    *e = (struct rrul_end){.probe_rate = pa->o->probe_rate,
                           .load_flows = pa->o->load_flows,
                           .load = rrul_load_name(pa->o->load),
                           .rpm = NAN,
                           .rpm_lo = NAN,
                           .rpm_hi = NAN,
                           .one_way = false,
                           .one_way_clock = log->stamp == STAMP_MONOTONIC  ? "CLOCK_MONOTONIC"
                                            : log->stamp == STAMP_REALTIME ? "CLOCK_REALTIME"
                                                                           : NULL,
                           .one_way_error_us = NAN};
    bool stamps = log->stamp != STAMP_NONE;
    if (log->stamp == STAMP_REALTIME)
        e->one_way_error_us = (double)(log->local.maxerror_us + log->peer.maxerror_us);
    snprintf(e->one_way_reason, sizeof(e->one_way_reason), "%s",
             stamps ? "not measured: the server stamped no probe" : log->why);
    struct bounds b = {.start = log->start_ns};
    b.end = b.start + (uint64_t)((double)log->sent * 1e9 / log->rate);
    b.open = log->load_open_ns ? log->load_open_ns : b.end;
    b.close = log->load_close_ns > b.open ? log->load_close_ns : b.open;
    uint64_t edge[RRUL_PHASES + 1] = {b.start, b.open, b.close, b.end > b.close ? b.end : b.close};
    int rc = 0;
    for (int i = 0; i < RRUL_PHASES && !rc; i++) {
        e->start[i] = secs(b.start, edge[i]);
        e->end[i] = secs(b.start, edge[i + 1]);
        struct rrul_phase *ph = &e->phase[i];
        rc = udp_phase(log, edge[i], edge[i + 1], i == PROBE_LOADED, e, ph);
        tcp_and_load(pa, i, e->end[i] - e->start[i], ph);
        int ow = rc || !stamps ? 0 : one_way_phase(log, edge[i], edge[i + 1], &e->ow[i]);
        rc = ow < 0 ? ow : rc;
        e->one_way |= ow > 0;
    }
    if (e->one_way) {
        snprintf(e->one_way_reason, sizeof(e->one_way_reason), "%s", log->why);
        e->one_way = clock_judge(log->stamp, &log->local, &log->peer, e->ow[PROBE_IDLE].up_p50_us,
                                 e->ow[PROBE_IDLE].down_p50_us, e->one_way_reason,
                                 sizeof(e->one_way_reason));
    }
    const struct rrul_phase *idle = &e->phase[PROBE_IDLE], *loaded = &e->phase[PROBE_LOADED];
    e->inc_p50_us = loaded->p50_us - idle->p50_us; /* NAN when either is */
    e->inc_p99_us = loaded->p99_us - idle->p99_us;
    e->inc_p50_ratio = ratio(loaded->p50_us, idle->p50_us);
    e->inc_p99_ratio = ratio(loaded->p99_us, idle->p99_us);
    if (!rc)
        rc = intervals(pa, &b, res);
    res->have_rrul = !rc;
    return rc;
}
