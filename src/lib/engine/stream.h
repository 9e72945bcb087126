/*
 * One data connection of a TCP stream test, driven by its own thread.
 *
 * A sender writes blocks until told to stop (or until its byte quota is
 * sent), then shuts down its write side. A receiver reads until it sees the
 * end of the stream, so everything in flight when the sender stopped is
 * counted: sender and receiver totals agree exactly.
 */
#ifndef NETAB_ENGINE_STREAM_H
#define NETAB_ENGINE_STREAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/tcpinfo.h"

struct stream {
    /* Set by the owner before stream_start(). */
    int id;
    int fd; /* owned by the stream from stream_start() until stream_close() */
    bool sender;
    bool server_sends; /* the direction, as the protocol names it */
    uint32_t block;
    uint64_t limit; /* sender: bytes to send, 0 = until *stop */
    int cpu;        /* CPU to pin the thread to, -1 for none */
    int idle_timeout_ms;
    const atomic_bool *stop;  /* senders stop when set */
    const atomic_bool *abort; /* every stream ends when set */

    /* Written by the stream's thread. */
    _Atomic uint64_t bytes;
    uint64_t start_ns, end_ns;
    uint64_t first_ns; /* receiver: when the first byte arrived, 0 before */
    struct tcpinfo_stats tcpinfo;
    int error; /* 0 or a negative errno */
    char errmsg[160];
    atomic_bool done;

    pthread_t thread;
    bool started;
};

/* Starts the stream's thread. Returns 0 or -errno. */
int stream_start(struct stream *s);

/* Joins the stream's thread (it must be done or about to end). */
void stream_join(struct stream *s);

/* Wakes a stream blocked in send/recv so that it notices *abort. */
void stream_interrupt(struct stream *s);

/* Closes the fd. */
void stream_close(struct stream *s);

#endif
