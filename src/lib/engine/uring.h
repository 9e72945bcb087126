/*
 * --io-uring (issue 32): a TCP stream's data path through io_uring. A
 * sender keeps PATH_URING_DEPTH sends of its block in flight
 * (IORING_OP_SEND, or IORING_OP_SEND_ZC with --io-uring=zc, whose buffer
 * notifications are counted, with the copies where the kernel reports
 * them); a receiver as many receives (IORING_OP_RECV, with MSG_TRUNC under
 * --skip-rx-copy). Counting, stopping and the idle timeout are the plain
 * loops' (stream_tcp.c); the counts land in the stream's uring member.
 */
#ifndef NETAB_ENGINE_URING_H
#define NETAB_ENGINE_URING_H

#include "engine/stream.h"

/* Runs s's role (ROLE_TCP_SEND or ROLE_TCP_RECV) to its end, as stream_tcp_run() does. */
void uring_tcp_run(struct stream *s, char *buf);

#endif
