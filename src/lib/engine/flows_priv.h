/*
 * The flow engine's state (engine/flows.h), shared by flows.c (tcp_rr,
 * tcp_stream and the threads) and flows_kinds.c (udp_rr and tcp_crr).
 */
#ifndef NETAB_ENGINE_FLOWS_PRIV_H
#define NETAB_ENGINE_FLOWS_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/stream_set.h"
#include "util/evloop.h"

/* One connection's state on its loop. */
struct flow {
    struct evloop_fd w;
    struct stream *s;
    struct flow_group *g;
    uint64_t sent_at; /* client: when the request in flight was queued */
    uint64_t unsent;  /* bytes queued but not yet written */
    uint64_t left;    /* client: response bytes still due; server: request bytes */
    uint64_t tx, bytes;
    bool out; /* EPOLLOUT in the interest: a write is blocked */
    bool ended;
    bool settled; /* tcp_stream's sender: its end figures are read (group_settle()) */
    /* udp_rr and tcp_crr (flows_kinds.c) */
    struct evloop_timer timer; /* the response's (udp_rr) or the connection's deadline */
    uint64_t seq;              /* udp_rr: the request in flight */
    bool waiting;              /* udp_rr: a request is in flight */
    int cfd;                   /* tcp_crr: the connection of this cycle, or -1 */
    int phase;                 /* tcp_crr: where the cycle is (flows_kinds.c) */
    uint32_t next_port;        /* tcp_crr client: the next of --cport's ports */
};

struct flow_group {
    struct evloop loop;
    bool loop_ok;
    struct stream_set *set;
    struct flow *flows;
    int n, live;
    char *buf, *resp; /* receive area; the server's responses (and the client's requests) */
    size_t cap, chunk;
    uint64_t measure_ns;
    bool client;
    pthread_t thread;
    bool started;
    /* tcp_crr server: the shared listener, and the flows free to take a connection */
    struct evloop_fd lw;
    int *idle, nidle;
};

/* Ends a flow: err 0 for a clean end, else counted in its errors by kind. */
void flow_end(struct flow *f, int err);

/* udp_rr and tcp_crr: watches the group's flows, sends the first requests. Returns 0 or -EIO. */
int flows_kinds_begin(struct flow_group *g);

/* The stop: servers end now (clients end as their transaction in flight ends). */
void flows_kinds_stop(struct flow_group *g);

/* Closes what a tcp_crr group still holds (after its loop ended). */
void flows_kinds_cleanup(struct flow_group *g);

static inline bool flows_kind_own(enum test_kind k)
{
    return k == TEST_UDP_RR || k == TEST_TCP_CRR;
}

#endif
