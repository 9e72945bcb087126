#include "runspec/run_spec_rrul.h"

#include <errno.h>
#include <stdio.h>

/* The first option given that --test rrul does not take, or NULL. */
static const char *refused(const struct run_spec *o)
{
    const struct test_params *p = &o->params;
    const struct {
        bool given;
        const char *what;
    } no[] = {
        {p->kind != TEST_TCP_STREAM, "-u (the probes are its own UDP)"},
        {p->flows != 0, "--flows (use --load-flows)"},
        {p->threads != 0, "--threads"},
        {p->streams != 1, "-P (use --load-flows)"},
        {p->bytes != 0, "-n (the phases are timed)"},
        {p->reverse, "-R (use --load down)"},
        {p->bidir, "--bidir (use --load both)"},
        {p->omit_s != 0, "-O"},
        {o->client.iperf3, "--iperf3 (an iperf3 server has no probe echo)"},
        {o->req_set || o->resp_set, "--req-size and --resp-size"},
        {p->outstanding != 1, "--outstanding"},
        {p->rr_timeout_ms != 200, "--rr-timeout"},
        {o->client.cport != 0, "--cport (its parts' connections would share the ports)"},
        {o->client.cport_lo != 0, "--cport-range"},
        {o->per_flow, "--per-flow"},
        {o->json_stream, "--json-stream (its figures come at the end)"},
        {p->perf || p->profile[0], "--perf and --profile"},
    };
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (no[i].given)
            return no[i].what;
    return NULL;
}

int run_spec_rrul_finish(const struct run_spec *o, char *err, size_t errlen)
{
    if (!o->rrul) {
        if (o->load_flows_set || o->load_set || o->probe_rate_set || o->phases_set)
            return err_set(err, errlen, EINVAL,
                           "--load-flows, --load, --probe-rate and --rrul-phases apply to "
                           "--test rrul");
        return 0;
    }
    const char *what = refused(o);
    if (what)
        return err_set(err, errlen, EINVAL, "--test rrul does not take %s", what);
    const struct rrul_opts *r = &o->rrul_opts;
    double probes = r->probe_rate * (r->idle_s + o->params.duration_s + r->recovery_s);
    if (probes > RRUL_MAX_PROBES)
        return err_set(err, errlen, EINVAL,
                       "--probe-rate %g for %g s is %.0f probes, more than the %d one run keeps",
                       r->probe_rate, r->idle_s + o->params.duration_s + r->recovery_s, probes,
                       RRUL_MAX_PROBES);
    return 0;
}

void run_spec_rrul_argv(const struct run_spec *s, void (*push)(void *ctx, const char *word),
                        void *ctx)
{
    if (!s->rrul)
        return;
    char buf[64];
    push(ctx, "--test");
    push(ctx, "rrul");
    if (s->rrul_opts.load_flows != RRUL_DEFAULT_FLOWS) {
        snprintf(buf, sizeof(buf), "%d", s->rrul_opts.load_flows);
        push(ctx, "--load-flows");
        push(ctx, buf);
    }
    if (s->rrul_opts.load != RRUL_LOAD_BOTH) {
        push(ctx, "--load");
        push(ctx, rrul_load_name(s->rrul_opts.load));
    }
    if (s->rrul_opts.probe_rate != RRUL_DEFAULT_RATE) {
        snprintf(buf, sizeof(buf), "%.17g", s->rrul_opts.probe_rate);
        push(ctx, "--probe-rate");
        push(ctx, buf);
    }
    if (s->rrul_opts.idle_s != RRUL_IDLE_S || s->rrul_opts.recovery_s != RRUL_RECOVERY_S) {
        snprintf(buf, sizeof(buf), "%.17g,%.17g", s->rrul_opts.idle_s, s->rrul_opts.recovery_s);
        push(ctx, "--rrul-phases");
        push(ctx, buf);
    }
}
