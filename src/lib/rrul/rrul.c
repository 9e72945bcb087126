/*
 * The latency-under-load test's run (rrul.h): three client runs at once on
 * threads of their own, each a session with the one server: the open-loop
 * UDP prober and the TCP request/response probe for the whole test, the
 * load (tcp_stream with N flows up, down or both ways) from the end of the
 * idle phase for -t seconds. The load's client marks its window's opening
 * and close into the probe logs, which is where the phases begin and end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/stream.h"
#include "engine/udp_wire.h"
#include "proto/server.h"
#include "rrul/rrul_priv.h"
#include "util/clock.h"

void rrul_opts_defaults(struct rrul_opts *o)
{
    *o = (struct rrul_opts){.load_flows = RRUL_DEFAULT_FLOWS,
                            .load = RRUL_LOAD_BOTH,
                            .probe_rate = RRUL_DEFAULT_RATE,
                            .idle_s = RRUL_IDLE_S,
                            .recovery_s = RRUL_RECOVERY_S};
}

int rrul_load_from_name(const char *name, enum rrul_load *load)
{
    static const char *names[] = {NULL, "up", "down", "both"};
    for (int i = 1; i < 4; i++)
        if (!strcmp(name, names[i])) {
            *load = (enum rrul_load)i;
            return 0;
        }
    return -EINVAL;
}

const char *rrul_load_name(enum rrul_load load)
{
    return load == RRUL_LOAD_UP ? "up" : load == RRUL_LOAD_DOWN ? "down" : "both";
}

/*
 * The parts' shared fate: the first part to fail (the load refused by a
 * busy server, a probe's session refused, the server gone) makes fd
 * readable, which stops the others at once (client_config.cancel_fd), and
 * is the one the run reports; the others' "stopped" is only its echo.
 */
struct fate {
    int fd;            /* an eventfd, written once */
    _Atomic int first; /* the index of the first part that failed + 1; 0: none */
};

/* One part: its settings, its result, its thread. */
struct part {
    const char *name;
    struct client_config cfg;
    struct test_params p;
    struct run_result res, *out; /* out: the caller's result for the probes' run */
    int rc, index;
    struct fate *fate;
    pthread_t t;
    bool started;
};

/* Wakes every part's wait for good: the counter stays non-zero (nobody reads it). */
static void fate_stop_all(struct fate *f)
{
    /* At most two writes of 1: the counter cannot overflow, the write cannot fail. */
    (void)eventfd_write(f->fd, 1);
}

static void *part_thread(void *arg)
{
    struct part *pt = arg;
    pt->rc = client_run(&pt->cfg, &pt->p, pt->out);
    int none = 0;
    if (pt->rc && atomic_compare_exchange_strong(&pt->fate->first, &none, pt->index + 1))
        fate_stop_all(pt->fate);
    return NULL;
}

static int part_start(struct part *pt, char *err, size_t len)
{
    if (pthread_create(&pt->t, NULL, part_thread, pt))
        return err_set(err, len, EAGAIN, "cannot start the %s's thread", pt->name);
    pt->started = true;
    return 0;
}

/* The load's client reports an interval: kept with the clock it ended at. */
static void on_load_interval(const struct interval_report *iv, void *ctx)
{
    struct rrul_load_ivs *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct rrul_load_iv *v = realloc(l->v, cap * sizeof(*v));
        if (!v)
            return; /* the interval's figures are missing, the run goes on */
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct rrul_load_iv){.end_ns = clock_now_ns(),
                                         .seconds = iv->end - iv->start,
                                         .sent = iv->sent,
                                         .received = iv->received,
                                         .have_srtt = iv->have_tcp && iv->tcp.n > 0,
                                         .srtt_us = iv->tcp.srtt_us};
}

/* The three parts' parameters from the load's (-t, -C, -i ...) and the options. */
static void parts_setup(struct part *pt, const struct client_config *cfg,
                        const struct test_params *load, const struct rrul_opts *o)
{
    double whole = o->idle_s + load->duration_s + o->recovery_s;
    for (int i = 0; i < 3; i++) {
        pt[i].cfg = *cfg;
        pt[i].cfg.on_interval = NULL;
        pt[i].out = &pt[i].res;
        run_result_init(&pt[i].res);
        params_defaults(&pt[i].p);
        pt[i].p.interval_s = load->interval_s;
        pt[i].p.duration_s = whole;
    }
    pt[0].name = "UDP probes";
    pt[0].p.kind = TEST_UDP_RR;
    pt[0].p.req_size = pt[0].p.resp_size = UDP_WIRE_STAMP_LEN;
    pt[0].p.rr_timeout_ms = RRUL_PROBE_TIMEOUT_MS;
    pt[0].p.block = params_default_block(TEST_UDP_RR);
    pt[1].name = "TCP request/response probe";
    pt[1].p.kind = TEST_TCP_RR;
    pt[1].p.nodelay = true;
    pt[1].p.block = params_default_block(TEST_TCP_RR);
    pt[2].name = "load";
    pt[2].p = *load;
    pt[2].p.streams = o->load_flows;
    pt[2].p.reverse = o->load == RRUL_LOAD_DOWN;
    pt[2].p.bidir = o->load == RRUL_LOAD_BOTH;
}

/* Waits until the clock reaches deadline_ns or a part failed: a deadline, not a period. */
static void wait_until(uint64_t deadline_ns, struct fate *f)
{
    while (clock_now_ns() < deadline_ns && !atomic_load(&f->first))
        stream_wait(-1, 0, f->fd, deadline_ns);
}

/* The run's error: the first part's failure (the others were stopped because of it). */
static int first_failure(struct part *pt, struct fate *f, struct run_result *res)
{
    int i = atomic_load(&f->first) - 1;
    if (i < 0)
        return 0;
    char why[sizeof(res->error)];
    snprintf(why, sizeof(why), "%s", pt[i].out->error);
    return err_set(res->error, sizeof(res->error), -pt[i].rc, "the %s failed: %s", pt[i].name, why);
}

/* The parts against cfg's server, into res. */
static int run_parts(struct part *pt, const struct rrul_opts *o, const struct test_params *load,
                     struct run_result *res)
{
    /* One log for both probes: the load marks its window once for both (engine/probe_log.h). */
    struct probe_log log;
    struct rrul_load_ivs ivs = {0};
    double whole = o->idle_s + load->duration_s + o->recovery_s;
    if (probe_log_init(&log, o->probe_rate, whole, true, 1))
        return err_set(res->error, sizeof(res->error), ENOMEM, "out of memory");
    pt[0].out = res;
    pt[0].cfg.probe = &log;
    pt[1].cfg.probe = &log;
    pt[2].cfg.mark = &log;
    struct fate fate = {.fd = eventfd(0, EFD_CLOEXEC)};
    if (fate.fd < 0) {
        probe_log_free(&log);
        return err_set(res->error, sizeof(res->error), errno, "eventfd: %s", strerror(errno));
    }
    for (int i = 0; i < 3; i++) {
        pt[i].index = i;
        pt[i].fate = &fate;
        pt[i].cfg.cancel_fd = &fate.fd;
    }
    pt[2].cfg.on_interval = on_load_interval;
    pt[2].cfg.ctx = &ivs;
    uint64_t t0 = clock_now_ns();
    int rc = part_start(&pt[0], res->error, sizeof(res->error));
    if (!rc)
        rc = part_start(&pt[1], res->error, sizeof(res->error));
    if (!rc) {
        wait_until(t0 + (uint64_t)(o->idle_s * 1e9), &fate);
        /* A probe that failed in the idle phase has ended the test: no load after it. */
        if (!atomic_load(&fate.first))
            rc = part_start(&pt[2], res->error, sizeof(res->error));
    }
    /* A thread that could not start stops those that did. */
    if (rc)
        fate_stop_all(&fate);
    for (int i = 0; i < 3; i++)
        if (pt[i].started)
            pthread_join(pt[i].t, NULL);
    close(fate.fd);
    if (!rc)
        rc = first_failure(pt, &fate, res);
    if (!rc) {
        struct rrul_parts parts = {o, &log, &pt[2].res, &ivs};
        rc = rrul_figures(&parts, res);
        if (rc)
            err_set(res->error, sizeof(res->error), -rc, "out of memory");
    }
    free(ivs.v);
    probe_log_free(&log);
    return rc;
}

static void *server_thread(void *arg)
{
    server_run(arg);
    return NULL;
}

/* The in-process server for all three parts, as proto/loopback.c's for one test. */
static int open_server(struct server **srv, const struct client_config *cfg, char *err, size_t len)
{
    struct server_config sc;
    server_config_defaults(&sc);
    sc.bind_addr = cfg->family == AF_INET6 ? "::1" : "127.0.0.1";
    sc.port = 0;
    sc.log = NULL;
    sc.max_clients = 3;
    sc.max_duration = PARAMS_MAX_DURATION;
    sc.max_streams = 2 * PARAMS_MAX_STREAMS;
    sc.idle_timeout_ms = cfg->idle_timeout_ms;
    sc.liveness_timeout_ms = 3600000; /* client and server share this process */
    sc.max_test_memory = UINT64_MAX;
    sc.max_memory = UINT64_MAX;
    sc.no_counters = cfg->no_counters;
    sc.in_process = true;
    sc.auth_key = cfg->auth_key;
    return server_open(srv, &sc, err, len);
}

int rrul_run(const struct client_config *cfg, const char *host, const struct test_params *load,
             const struct rrul_opts *o, struct run_result *res)
{
    struct part pt[3];
    memset(pt, 0, sizeof(pt));
    struct client_config c = *cfg;
    struct server *srv = NULL;
    pthread_t st;
    int rc = 0;
    if (!host) {
        if ((rc = open_server(&srv, cfg, res->error, sizeof(res->error))))
            return rc;
        if (pthread_create(&st, NULL, server_thread, srv)) {
            server_free(srv);
            return err_set(res->error, sizeof(res->error), EAGAIN,
                           "cannot start the server thread");
        }
        c.host = cfg->family == AF_INET6 ? "::1" : "127.0.0.1";
        c.port = server_port(srv);
        c.in_process = true;
    } else {
        c.host = host;
    }
    parts_setup(pt, &c, load, o);
    rc = run_parts(pt, o, load, res);
    res->in_process = !host;
    for (int i = 1; i < 3; i++)
        run_result_free(&pt[i].res);
    run_result_free(&pt[0].res);
    if (srv) {
        server_stop(srv);
        pthread_join(st, NULL);
        server_free(srv);
    }
    return rc;
}
