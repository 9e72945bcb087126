/* Shared between server.c (accepting) and server_session.c (running a test). */
#ifndef NETAB_PROTO_SERVER_INTERNAL_H
#define NETAB_PROTO_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "proto/conntab.h"
#include "proto/registry.h"
#include "proto/server.h"

struct server {
    struct server_config cfg;
    int listen_fd;
    int listen_fd2; /* --iperf3-port's listener, the same front door; -1 when none */
    uint16_t port2;
    int epoll_fd;
    uint16_t port;
    atomic_bool quit;
    atomic_int active_tests;   /* control sessions counted against max_clients */
    atomic_int threads;        /* connection threads still running */
    atomic_int tests_finished; /* tests that reached "start" and ended */
    atomic_int last_status;    /* result of the latest finished test */
    _Atomic uint64_t memory;   /* stream buffer bytes reserved by running tests */
    struct registry registry;
    struct conntab conns;
    pthread_mutex_t log_lock;
    uint64_t shed_logged_ns; /* when the last "shed" line was written (event loop only) */
    int shed_quiet;          /* sheds not logged since then */
};

/*
 * Runs one control session on fd after its first four bytes (prefix) were
 * read. Owns fd and closes it (with server_conn_close).
 */
void server_session_run(struct server *s, int fd, const uint8_t prefix[4]);

/* Forgets fd in the connection table, then closes it. */
void server_conn_close(struct server *s, int fd);

/* Writes one timestamped line to the server's log, control characters escaped. */
void server_log(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
