/*
 * The local half of a test of any kind (tcp_stream, udp_stream, tcp_rr,
 * udp_rr, tcp_crr): all the streams this end of the test owns, their
 * threads, and the counters that turn into intervals and totals. Used the
 * same way by the client and the server. (stream_tcp.c is one stream's TCP
 * loop; this is the set.)
 */
#ifndef NETAB_ENGINE_STREAM_SET_H
#define NETAB_ENGINE_STREAM_SET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/params.h"
#include "engine/stream.h"
#include "util/err.h"

struct evloop;

struct stream_set {
    struct test_params params; /* the streams point here */
    struct stream *streams;
    int n;
    atomic_bool stop;
    atomic_bool abort;
    /* eventfds written once stop (or abort), and abort, are set: the streams' stop_fd, abort_fd. */
    int stop_fd, abort_fd;
    /* --flows: the event-loop threads that run the streams (engine/flows.h), else NULL. */
    struct flow_group *groups;
    int ngroups;
};

/*
 * Prepares a set of n streams. fds[i] is stream i's socket (ownership
 * passes to the set on success, stays with the caller on failure; for
 * tcp_crr clients -1), server_sends[i] its direction,
 * is_server tells which end this is; the test kind picks each stream's role.
 * Byte quotas for -n are split evenly among the senders of each direction.
 * Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int stream_set_init(struct stream_set *set, const struct test_params *p,
                                  const int *fds, const bool *server_sends, int n, bool is_server,
                                  int cpu, int idle_timeout_ms);

/*
 * The memory the set stream_set_init() would build costs while it runs
 * (stream_memory() of each stream), computed before anything is allocated.
 */
uint64_t stream_set_memory(const struct test_params *p, const bool *server_sends, int n,
                           bool is_server);

/*
 * Starts every stream's thread. Returns 0, or -errno with a sentence in err
 * (then nothing runs).
 */
NB_MUST_CHECK int stream_set_start(struct stream_set *set, char *err, size_t errlen);

/*
 * Has every stream wake loop (evloop_wake()) when it fails or ends, so that
 * the loop's owner learns of stream_set_error(), stream_set_senders_done()
 * and stream_set_all_done() changing without polling them. Call it before
 * stream_set_start().
 */
void stream_set_notify(struct stream_set *set, struct evloop *loop);

/*
 * True when this end's streams have received want bytes or more in all.
 * Otherwise arms each receiver's byte mark (stream.h) so that the loop
 * given to stream_set_notify() is woken no later than the moment the total
 * can reach want: while every receiver is below its mark, the total is
 * below want. Call it again on each wake.
 */
bool stream_set_received_at_least(struct stream_set *set, uint64_t want);

/* Sums the byte counters: sent by this end and received by this end. */
void stream_set_bytes(struct stream_set *set, uint64_t *sent, uint64_t *received);

/*
 * True when every local stream that drives traffic has finished: senders
 * (quota sent or stopped) and rr/crr clients (their last transactions
 * answered or timed out), so the peer may stop serving.
 */
bool stream_set_senders_done(struct stream_set *set);

/* True when every stream's thread has finished. */
bool stream_set_all_done(struct stream_set *set);

/*
 * Asks the senders to stop; receivers go on until the peer's FIN. Wakes the
 * threads blocked for want of the stop (stream_stop_wake(), stop_fd).
 */
void stream_set_stop(struct stream_set *set);

/*
 * Waits until every thread is done or deadline_ns passes (joining each in
 * turn, so the wait ends when the last one does, not on a tick); then
 * aborts what is left and joins every thread. Returns 0, or -ETIMEDOUT if it had to abort.
 */
int stream_set_finish(struct stream_set *set, uint64_t deadline_ns);

/* First error message of any stream, or NULL. */
const char *stream_set_error(const struct stream_set *set);

/* Closes the connections and frees the set. */
void stream_set_free(struct stream_set *set);

#endif
