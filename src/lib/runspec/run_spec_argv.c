/*
 * run_spec_to_argv(): a spec back into `netab run` options, and the
 * run's expected duration and deadline (run_spec.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/path_rx.h"
#include "proto/iperf3_wire.h"
#include "runspec/run_spec.h"
#include "runspec/run_spec_path.h"
#include "runspec/run_spec_rrul.h"

/* A NULL-terminated vector of owned strings that grows; `failed` sticks after ENOMEM. */
struct argvec {
    char **v;
    int n, cap;
    bool failed;
};

static void push(struct argvec *a, const char *s)
{
    if (a->failed)
        return;
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? a->cap * 2 : 32;
        char **v = realloc(a->v, (size_t)cap * sizeof(*v));
        if (!v) {
            a->failed = true;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s))) {
        a->failed = true;
        return;
    }
    a->v[++a->n] = NULL;
}

static void push_opt(struct argvec *a, const char *opt, const char *value)
{
    push(a, opt);
    push(a, value);
}

static void push_uint(struct argvec *a, const char *opt, unsigned long long v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%llu", v);
    push_opt(a, opt, buf);
}

/* The shortest decimal that reads back as exactly x, so the child measures what was parsed. */
static void push_seconds(struct argvec *a, const char *opt, double x)
{
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    push_opt(a, opt, buf);
}

static void push_flag(struct argvec *a, bool on, const char *opt)
{
    if (on)
        push(a, opt);
}

/* push() for run_spec_path_argv(). */
static void push_word(void *a, const char *word)
{
    push(a, word);
}

/* The test's own options: whatever differs from an empty command line of the same kind. */
static void push_params(struct argvec *a, const struct run_spec *s, const struct run_spec *d)
{
    const struct test_params *p = &s->params, *q = &d->params;
    if (p->kind != TEST_TCP_STREAM)
        push_opt(a, "--test", params_kind_name(p->kind));
    run_spec_rrul_argv(s, push_word, a); /* --test rrul (issue 31) */
    if (p->duration_s != q->duration_s)
        push_seconds(a, "--time", p->duration_s);
    if (p->bytes != q->bytes)
        push_uint(a, "--bytes", p->bytes);
    /* --flows F sets the streams to F: spelled as --flows, never as -P too. */
    if (p->flows)
        push_uint(a, "--flows", (unsigned)p->flows);
    else if (p->streams != q->streams)
        push_uint(a, "--parallel", (unsigned)p->streams);
    if (p->threads)
        push_uint(a, "--threads", (unsigned)p->threads);
    push_flag(a, p->reverse, "--reverse");
    push_flag(a, p->bidir, "--bidir");
    if (p->block != q->block)
        push_uint(a, "--length", p->block);
    if (p->sockbuf != q->sockbuf)
        push_uint(a, "--window", p->sockbuf);
    if (p->mss != q->mss)
        push_uint(a, "--set-mss", p->mss);
    push_flag(a, p->nodelay, "--no-delay");
    if (p->cc[0])
        push_opt(a, "--congestion", p->cc);
    if (p->omit_s != q->omit_s)
        push_seconds(a, "--omit", p->omit_s);
    if (p->interval_s != q->interval_s)
        push_seconds(a, "--interval", p->interval_s);
    if (p->rate_bps != q->rate_bps)
        push_uint(a, "--bitrate", p->rate_bps);
    push_flag(a, p->gso, "--gso");
    push_flag(a, p->gro, "--gro");
    if (p->req_size != q->req_size)
        push_uint(a, "--req-size", p->req_size);
    if (p->resp_size != q->resp_size)
        push_uint(a, "--resp-size", p->resp_size);
    if (p->outstanding != q->outstanding)
        push_uint(a, "--outstanding", (unsigned)p->outstanding);
    if (p->rr_timeout_ms != q->rr_timeout_ms)
        push_uint(a, "--rr-timeout", p->rr_timeout_ms);
    push_flag(a, p->linger0, "--linger0");
    push_flag(a, p->udp_default_buffers, "--udp-default-buffers");
    push_flag(a, p->perf, "--perf");
    if (p->profile[0]) {
        char opt[PARAMS_PROFILE_LEN + 16];
        snprintf(opt, sizeof(opt), "--profile=%s", p->profile);
        push_flag(a, true, opt);
        if (p->profile_system)
            push_opt(a, "--profile-scope", "system");
    }
    run_spec_path_argv(s, push_word, a); /* send path (issue 32) */
    /* receive and socket paths (issue 32) */
    push_flag(a, p->skip_rx_copy, "--skip-rx-copy");
    if (p->busy_poll_us)
        push_uint(a, "--busy-poll", p->busy_poll_us);
    push_flag(a, p->mptcp, "--mptcp");
    push_flag(a, p->io_uring == PATH_URING_PLAIN, "--io-uring");
    push_flag(a, p->io_uring == PATH_URING_ZC, "--io-uring=zc");
    push_flag(a, p->ktls, "--ktls");
}

/* Where and how to connect, and what to do with the result. */
static void push_client(struct argvec *a, const struct run_spec *s, const struct run_spec *d)
{
    const struct client_config *c = &s->client, *k = &d->client;
    if (s->host)
        push_opt(a, "--client", s->host);
    push_flag(a, c->iperf3, "--iperf3");
    /* With --iperf3 the default port is iperf3's. */
    if (c->port != (c->iperf3 ? IPERF3_DEFAULT_PORT : k->port))
        push_uint(a, "--port", c->port);
    push_flag(a, c->family == AF_INET, "-4");
    push_flag(a, c->family == AF_INET6, "-6");
    if (c->bind_addr)
        push_opt(a, "--bind", c->bind_addr);
    if (c->cport)
        push_uint(a, "--cport", c->cport);
    if (c->cport_lo) {
        char range[16];
        snprintf(range, sizeof(range), "%u-%u", c->cport_lo, c->cport_hi);
        push_opt(a, "--cport-range", range);
    }
    if (c->cpu >= 0 || s->params.server_cpu >= 0) {
        /* -A takes the client's CPU first; a server CPU alone is not expressible. */
        char cpus[24];
        if (s->params.server_cpu >= 0)
            snprintf(cpus, sizeof(cpus), "%d,%d", c->cpu, s->params.server_cpu);
        else
            snprintf(cpus, sizeof(cpus), "%d", c->cpu);
        push_opt(a, "--affinity", cpus);
    }
    if (c->connect_timeout_ms != k->connect_timeout_ms)
        push_uint(a, "--connect-timeout", (unsigned)c->connect_timeout_ms);
    if (c->idle_timeout_ms != k->idle_timeout_ms)
        push_uint(a, "--idle-timeout", (unsigned)c->idle_timeout_ms);
    if (s->auth_key_file)
        push_opt(a, "--auth-key", s->auth_key_file);
    push_flag(a, s->json, "--json");
    /* A campaign sets json on a spec that may ask for the stream: its child writes one document. */
    push_flag(a, s->json_stream && !s->json, "--json-stream");
    push_flag(a, s->per_flow, "--per-flow");
    if (s->db)
        push_opt(a, "--db", s->db);
    if (s->db_label)
        push_opt(a, "--db-label", s->db_label);
    if (s->plot)
        push_opt(a, "--plot", s->plot);
    if (s->plot_width)
        push_uint(a, "--plot-width", (unsigned)s->plot_width);
    if (s->plot_height)
        push_uint(a, "--plot-height", (unsigned)s->plot_height);
}

int run_spec_to_argv(const struct run_spec *spec, char ***argv, int *argc)
{
    /* The reference is an empty command line of the same test kind, with its kind's defaults. */
    struct run_spec d;
    char *kind_argv[] = {"run", "--test", (char *)params_kind_name(spec->params.kind), NULL};
    if (run_spec_parse(3, kind_argv, &d, NULL, 0))
        return -EINVAL;
    struct argvec a = {0};
    push(&a, "run");
    push_params(&a, spec, &d);
    push_client(&a, spec, &d);
    *argv = NULL;
    *argc = 0;
    if (a.failed) {
        run_spec_argv_free(a.v);
        return -ENOMEM;
    }
    *argv = a.v;
    *argc = a.n;
    return 0;
}

void run_spec_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

double run_spec_expected_seconds(const struct run_spec *spec)
{
    if (spec->params.bytes)
        return NAN;
    /* --test rrul: its idle and recovery phases around the loaded -t. */
    if (spec->rrul)
        return spec->rrul_opts.idle_s + spec->params.duration_s + spec->rrul_opts.recovery_s;
    return spec->params.duration_s + spec->params.omit_s;
}

double run_spec_deadline(const struct run_spec *spec)
{
    double t = run_spec_expected_seconds(spec);
    return isnan(t) ? RUN_SPEC_BYTES_DEADLINE_S : 2 * t + 60;
}
