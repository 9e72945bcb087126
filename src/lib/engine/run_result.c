#include "engine/run_result.h"

#include "measure/histogram.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void run_result_latency_summary(struct latency_summary *s, const struct histogram *h)
{
    s->count = hist_count(h);
    if (!s->count) {
        *s = (struct latency_summary){0};
        return;
    }
    s->p50 = hist_percentile(h, 50) / 1e3;
    s->p90 = hist_percentile(h, 90) / 1e3;
    s->p99 = hist_percentile(h, 99) / 1e3;
    s->p999 = hist_percentile(h, 99.9) / 1e3;
    s->p9999 = hist_percentile(h, 99.99) / 1e3;
    s->max = (double)hist_max(h) / 1e3;
    s->min = (double)hist_min(h) / 1e3;
    s->mean = hist_mean(h) / 1e3;
}

void run_result_init(struct run_result *r)
{
    memset(r, 0, sizeof(*r));
    params_defaults(&r->params);
}

void run_result_free(struct run_result *r)
{
    side_report_free(&r->local);
    side_report_free(&r->remote);
    for (size_t i = 0; i < r->nintervals; i++)
        free(r->intervals[i].tcp_streams);
    free(r->intervals);
    json_decref(r->peer);
    r->peer = NULL;
    r->intervals = NULL;
    r->nintervals = r->cap_intervals = 0;
}

int run_result_add_interval(struct run_result *r, const struct interval_report *iv)
{
    if (r->nintervals == r->cap_intervals) {
        size_t cap = r->cap_intervals ? 2 * r->cap_intervals : 64;
        struct interval_report *n = realloc(r->intervals, cap * sizeof(*n));
        if (!n) {
            free(iv->tcp_streams);
            return -ENOMEM;
        }
        r->intervals = n;
        r->cap_intervals = cap;
    }
    r->intervals[r->nintervals++] = *iv;
    return 0;
}

static void add_side(const struct side_report *side, int which, struct direction_totals *t)
{
    for (int i = 0; i < side->n; i++) {
        const struct side_stream *s = &side->streams[i];
        if (which >= 0 && s->server_sends != (which == 1))
            continue;
        if (s->sender) {
            t->sender_bytes += s->bytes;
            t->sender_packets += s->packets;
            t->sender_stalls += s->stalls;
            t->sender_stalled_s += (double)s->stalled_us / 1e6;
            t->retransmits += s->tcpinfo.retransmits;
            t->streams++;
            if (s->seconds > t->sender_seconds)
                t->sender_seconds = s->seconds;
        } else {
            t->receiver_bytes += s->bytes;
            t->receiver_packets += s->packets;
            t->out_of_order += s->rx.out_of_order;
            t->duplicates += s->rx.duplicates;
            t->malformed += s->malformed;
            t->foreign += s->foreign;
            t->jitter_ms += s->rx.jitter_ms;
            t->jitter_mean_abs_ms += s->rx.jitter_mean_abs_ms;
            t->jitter_p99_abs_ms += s->rx.jitter_p99_abs_ms;
            t->receiver_streams++;
            if (s->seconds > t->receiver_seconds)
                t->receiver_seconds = s->seconds;
        }
    }
}

void run_result_totals(const struct run_result *r, int which, struct direction_totals *out)
{
    memset(out, 0, sizeof(*out));
    if (r->have_local)
        add_side(&r->local, which, out);
    if (r->have_remote)
        add_side(&r->remote, which, out);
    if (out->receiver_streams) {
        out->jitter_ms /= out->receiver_streams;
        out->jitter_mean_abs_ms /= out->receiver_streams;
        out->jitter_p99_abs_ms /= out->receiver_streams;
    }
}

uint64_t run_result_lost(const struct direction_totals *t)
{
    return t->sender_packets > t->receiver_packets ? t->sender_packets - t->receiver_packets : 0;
}

void run_result_transactions(const struct run_result *r, struct transaction_totals *out)
{
    memset(out, 0, sizeof(*out));
    for (int i = 0; r->have_local && i < r->local.n; i++) {
        const struct side_stream *s = &r->local.streams[i];
        out->transactions += s->packets;
        out->lost += s->lost;
        out->errors.connect += s->errors.connect;
        out->errors.read += s->errors.read;
        out->errors.write += s->errors.write;
        out->errors.timeout += s->errors.timeout;
        if (s->seconds > out->seconds)
            out->seconds = s->seconds;
    }
    for (int i = 0; r->have_remote && i < r->remote.n; i++)
        out->server_foreign += r->remote.streams[i].foreign;
}

const char *rrul_phase_name(int phase)
{
    static const char *const names[RRUL_PHASES] = {"idle", "loaded", "recovery"};
    return phase >= 0 && phase < RRUL_PHASES ? names[phase] : "unknown";
}
