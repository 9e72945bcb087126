/* The congestion state per interval: TCP_INFO of the client's connections at each boundary. */
#include "engine/interval_tcp.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "measure/tcpinfo.h"

/*
 * The reading's budget: one getsockopt(TCP_INFO) costs the control thread
 * about 1.1 us of CPU (1,000 --flows: 1.1 ms per interval; 9,900: 11 ms,
 * and 40-70 ms of wall time on a busy 2-CPU machine). Up to this many reads
 * a second, about 1% of one CPU, the intervals carry the sums; --flows
 * beyond it (10,000 flows at -i 0.5) go without (docs/json.md).
 */
#define READS_PER_S_MAX 10000.0

bool interval_tcp_wanted(const struct test_params *p)
{
    const char *off = getenv("NETAB_NO_TCPINFO");
    if (off && *off && strcmp(off, "0") != 0)
        return false;
    /* tcp_crr's connections live for one transaction each, inside its threads. */
    if (p->kind != TEST_TCP_STREAM && p->kind != TEST_TCP_RR)
        return false;
    return !(p->interval_s > 0) || (double)params_connections(p) / p->interval_s <= READS_PER_S_MAX;
}

/* The connections whose state is the client's congestion state: those it sends on. */
static bool sends(const struct stream *s)
{
    return s->role == ROLE_TCP_SEND || s->role == ROLE_RR_CLIENT;
}

void interval_tcp_begin(struct interval_tcp_state *st, struct stream_set *set)
{
    memset(st, 0, sizeof(*st));
    const struct test_params *p = &set->params;
    if (!interval_tcp_wanted(p) || !(p->interval_s > 0) || set->n <= 0)
        return;
    st->retrans = calloc((size_t)set->n, sizeof(uint32_t));
    st->reord = calloc((size_t)set->n, sizeof(uint32_t));
    if (!st->retrans || !st->reord) {
        interval_tcp_free(st);
        return;
    }
    st->on = true;
    if (!(set->params.omit_s > 0))
        return;
    for (int i = 0; i < set->n; i++) {
        struct tcpinfo_sample t;
        if (set->streams[i].fd >= 0 && tcpinfo_sample(set->streams[i].fd, &t) == 0) {
            st->retrans[i] = t.total_retrans;
            st->reord[i] = t.reord_seen;
        }
    }
}

/* One connection's figures from its sample and its counters at the previous boundary. */
static void one(struct interval_tcp *o, const struct tcpinfo_sample *t, uint32_t retrans0,
                uint32_t reord0)
{
    o->n = 1;
    o->cwnd = t->snd_cwnd;
    o->cwnd_bytes = (uint64_t)t->snd_cwnd * t->snd_mss;
    o->srtt_us = o->srtt_min_us = o->srtt_max_us = t->rtt_us;
    o->rttvar_us = t->rttvar_us;
    /* Unsigned differences: a counter that wrapped still gives its step. */
    o->retransmits = (uint32_t)(t->total_retrans - retrans0);
    o->reord_seen = (uint32_t)(t->reord_seen - reord0);
    o->lost = t->lost;
    o->in_flight_bytes = (uint64_t)t->in_flight * t->snd_mss;
    o->notsent_bytes = t->notsent_bytes;
    o->delivery_rate = t->delivery_rate;
    o->pacing_unlimited = t->pacing_rate == UINT64_MAX;
    o->pacing_rate = o->pacing_unlimited ? 0 : t->pacing_rate;
}

/* Adds one connection to a sum: counts, bytes, rates and windows add; RTTs give min, max, mean. */
static void add(struct interval_tcp *sum, const struct interval_tcp *o)
{
    if (!sum->n || o->srtt_us < sum->srtt_min_us)
        sum->srtt_min_us = o->srtt_us;
    if (!sum->n || o->srtt_us > sum->srtt_max_us)
        sum->srtt_max_us = o->srtt_us;
    sum->n++;
    sum->cwnd += o->cwnd;
    sum->cwnd_bytes += o->cwnd_bytes;
    sum->srtt_us += o->srtt_us; /* divided by n at the end */
    sum->rttvar_us += o->rttvar_us;
    sum->retransmits += o->retransmits;
    sum->reord_seen += o->reord_seen;
    sum->lost += o->lost;
    sum->in_flight_bytes += o->in_flight_bytes;
    sum->notsent_bytes += o->notsent_bytes;
    sum->delivery_rate += o->delivery_rate;
    sum->pacing_rate += o->pacing_rate;
    sum->pacing_unlimited |= o->pacing_unlimited;
}

static void finish_sum(struct interval_tcp *sum, bool sender)
{
    sum->id = -1;
    sum->sender = sender;
    if (sum->n) {
        sum->srtt_us /= sum->n;
        sum->rttvar_us /= sum->n;
    }
}

void interval_tcp_take(struct interval_tcp_state *st, struct stream_set *set,
                       struct interval_report *iv)
{
    if (!st->on)
        return;
    /* --flows: thousands of connections; their sums only (docs/json.md). */
    if (!set->params.flows)
        iv->tcp_streams = calloc((size_t)set->n, sizeof(*iv->tcp_streams));
    struct interval_tcp all = {0}, senders = {0};
    int k = 0;
    for (int i = 0; i < set->n; i++) {
        const struct stream *s = &set->streams[i];
        struct tcpinfo_sample t;
        if (s->fd < 0 || tcpinfo_sample(s->fd, &t) != 0)
            continue;
        /*
         * A stream that has ended read its own TCP_INFO as it stopped (the
         * end's figure): its count from there, so that the intervals add
         * up to the end's exactly (done is set after that read).
         */
        if (atomic_load(&((struct stream *)s)->done) && s->tcpinfo.valid)
            t.total_retrans = s->tcpinfo.retransmits;
        struct interval_tcp o = {.id = s->id, .sender = sends(s)};
        one(&o, &t, st->retrans[i], st->reord[i]);
        st->retrans[i] = t.total_retrans;
        st->reord[i] = t.reord_seen;
        add(&all, &o);
        if (o.sender)
            add(&senders, &o);
        if (iv->tcp_streams)
            iv->tcp_streams[k++] = o;
    }
    iv->n_tcp = k;
    /* The client's congestion state is its sending connections'; with -R it has none. */
    iv->tcp = senders.n ? senders : all;
    finish_sum(&iv->tcp, senders.n > 0);
    iv->have_tcp = iv->tcp.n > 0;
}

void interval_tcp_free(struct interval_tcp_state *st)
{
    free(st->retrans);
    free(st->reord);
    memset(st, 0, sizeof(*st));
}
