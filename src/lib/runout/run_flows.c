#include "runout/run_flows.h"

#include <stdlib.h>

#include "engine/flowstat.h"

/* One end's transactions per flow as doubles (n = side->n), or NULL. */
static double *side_transactions(const struct side_report *side)
{
    double *v = malloc((size_t)(side->n ? side->n : 1) * sizeof(double));
    for (int i = 0; v && i < side->n; i++)
        v[i] = (double)side->streams[i].packets;
    return v;
}

static json_t *spread_json(const struct flow_spread *s, bool fairness)
{
    json_t *o = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "flows", s->n, "min", s->min,
                          "p1", s->p1, "p10", s->p10, "median", s->median, "p90", s->p90, "max",
                          s->max, "mean", s->mean);
    if (fairness) {
        json_object_set_new(o, "sum", json_integer((json_int_t)s->sum));
        /* Undefined (no flow got anything): null, never a number that looks measured. */
        json_object_set_new(o, "fairness", s->jain >= 0 ? json_real(s->jain) : json_null());
        json_object_set_new(o, "flows_with_nothing", json_integer(s->zero));
    }
    return o;
}

/* One end's transactions spread, or null when that end is missing. */
static json_t *side_json(const struct side_report *side, bool have)
{
    struct flow_spread s;
    double *v = have ? side_transactions(side) : NULL;
    json_t *o = v && !flowstat_spread(v, side->n, &s) ? spread_json(&s, true) : json_null();
    free(v);
    return o;
}

/* The spread of the p99 of the flows that completed a transaction. */
static json_t *p99_json(const struct run_result *r)
{
    const double *p = r->local.flow_p99_us;
    double *v = p ? malloc((size_t)(r->local.n ? r->local.n : 1) * sizeof(double)) : NULL;
    int m = 0;
    for (int i = 0; v && i < r->local.n; i++)
        if (r->local.streams[i].packets)
            v[m++] = p[i];
    struct flow_spread s;
    json_t *o = v && m && !flowstat_spread(v, m, &s) ? spread_json(&s, false) : json_null();
    free(v);
    return o;
}

/* Connection errors by kind, summed over one end's flows. */
static json_t *errors_json(const struct side_report *side, bool have)
{
    if (!have)
        return json_null();
    uint64_t refused = 0, reset = 0, timeout = 0;
    for (int i = 0; i < side->n; i++) {
        refused += side->streams[i].errors.connect;
        reset += side->streams[i].errors.read + side->streams[i].errors.write;
        timeout += side->streams[i].errors.timeout;
    }
    return json_pack("{s:I, s:I, s:I}", "refused", (json_int_t)refused, "reset", (json_int_t)reset,
                     "timeout", (json_int_t)timeout);
}

/* --per-flow: each flow's transactions at both ends, its p99 and errors. */
static json_t *per_flow_json(const struct run_result *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->local.n; i++) {
        const struct side_stream *c = &r->local.streams[i];
        const struct side_stream *s =
            r->have_remote && i < r->remote.n ? &r->remote.streams[i] : NULL;
        json_array_append_new(
            arr, json_pack("{s:i, s:I, s:o, s:o, s:I, s:I, s:I}", "id", i, "client_transactions",
                           (json_int_t)c->packets, "server_transactions",
                           s ? json_integer((json_int_t)s->packets) : json_null(), "p99_us",
                           r->local.flow_p99_us && c->packets ? json_real(r->local.flow_p99_us[i])
                                                              : json_null(),
                           "refused", (json_int_t)c->errors.connect, "reset",
                           (json_int_t)(c->errors.read + c->errors.write), "timeout",
                           (json_int_t)c->errors.timeout));
    }
    return arr;
}

/*
 * Streams: each connection's bytes as its receiving end counted them (the
 * exact delivered count), or NULL without both ends.
 */
static double *received_bytes(const struct run_result *r)
{
    int n = r->local.n;
    if (!r->have_remote || r->remote.n != n)
        return NULL;
    double *v = malloc((size_t)(n ? n : 1) * sizeof(double));
    for (int i = 0; v && i < n; i++) {
        const struct side_stream *l = &r->local.streams[i], *m = &r->remote.streams[i];
        v[i] = (double)(l->sender ? m->bytes : l->bytes);
    }
    return v;
}

/* tcp_stream's flows: the spread of the bytes each connection delivered, and errors. */
static json_t *stream_flows_json(const struct run_result *r, json_t *o)
{
    struct flow_spread s;
    double *v = received_bytes(r);
    json_object_set_new(
        o, "bytes", v && !flowstat_spread(v, r->local.n, &s) ? spread_json(&s, true) : json_null());
    json_object_set_new(o, "connection_errors",
                        json_pack("{s:o, s:o}", "client", errors_json(&r->local, true), "server",
                                  errors_json(&r->remote, r->have_remote)));
    if (r->per_flow && v) {
        json_t *arr = json_array();
        for (int i = 0; i < r->local.n; i++)
            json_array_append_new(arr, json_pack("{s:i, s:b, s:I}", "id", i, "server_sends",
                                                 r->local.streams[i].server_sends, "bytes",
                                                 (json_int_t)v[i]));
        json_object_set_new(o, "per_flow", arr);
    }
    free(v);
    return o;
}

json_t *run_flows_json(const struct run_result *r)
{
    if (!r->params.flows || !r->have_local)
        return NULL;
    json_t *o = json_pack("{s:i, s:o}", "count", r->params.flows, "threads",
                          r->params.threads ? json_integer(r->params.threads) : json_null());
    if (!params_is_rr(r->params.kind))
        return stream_flows_json(r, o);
    json_object_set_new(o, "transactions",
                        json_pack("{s:o, s:o}", "client", side_json(&r->local, true), "server",
                                  side_json(&r->remote, r->have_remote)));
    json_object_set_new(o, "latency_p99_us", p99_json(r));
    json_object_set_new(o, "connection_errors",
                        json_pack("{s:o, s:o}", "client", errors_json(&r->local, true), "server",
                                  errors_json(&r->remote, r->have_remote)));
    if (r->per_flow)
        json_object_set_new(o, "per_flow", per_flow_json(r));
    return o;
}

void run_flows_text(FILE *f, const struct run_result *r)
{
    if (!r->params.flows || !r->have_local)
        return;
    struct flow_spread s;
    bool rr = params_is_rr(r->params.kind);
    double *v = rr ? side_transactions(&r->local) : received_bytes(r);
    if (v && !flowstat_spread(v, r->local.n, &s)) {
        fprintf(f,
                "flows: %d; %s per flow min %.0f, p10 %.0f, median %.0f, p90 %.0f, max %.0f; "
                "%d got nothing\n",
                s.n, rr ? "transactions" : "bytes", s.min, s.p10, s.median, s.p90, s.max, s.zero);
        if (s.jain >= 0)
            fprintf(f, "fairness (Jain's index): %.4f (1 = equal, %.6f = one flow took all)\n",
                    s.jain, 1.0 / s.n);
    }
    free(v);
}
