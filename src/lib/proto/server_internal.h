/* Shared between server.c (accepting) and server_session.c (running a test). */
#ifndef NETAB_PROTO_SERVER_INTERNAL_H
#define NETAB_PROTO_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "engine/params.h"
#include "proto/conntab.h"
#include "proto/loglimit.h"
#include "proto/registry.h"
#include "proto/server.h"

/* What a shed connection is told (docs/server.md, "Limits"). */
#define SERVER_SHED_PER_ADDR "too many connections from your address (--max-conn-per-addr)"
#define SERVER_SHED_PENDING                                                                        \
    "server has too many connections in their handshake (--max-pending); yours was the oldest"

struct server {
    struct server_config cfg;
    int listen_fd;
    int listen_fd2; /* --iperf3-port's listener, the same front door; -1 when none */
    uint16_t port2;
    int epoll_fd;
    uint16_t port;
    atomic_bool quit;
    /*
     * An eventfd server_stop() writes once and no one reads: readable from
     * then on, so every loop that watches it (iperf3 sessions) wakes at the
     * stop however late it starts watching.
     */
    int quit_fd;
    /*
     * The front door sleeps until an event or its nearest deadline (a
     * connection's expiry, a log summary, the accept back-off), with no
     * tick. door_until is that deadline while it sleeps (0 while it is
     * awake and will look again); a thread that moves a deadline earlier
     * (a log window it opened) or ends a one-off test writes door_fd.
     */
    int door_fd;
    _Atomic uint64_t door_until;
    uint64_t accept_resume_ns;    /* out of file descriptors: accepting again then (0: accepting) */
    atomic_int active_tests;      /* control sessions counted against max_clients */
    atomic_int threads;           /* connection threads still running */
    pthread_mutex_t threads_lock; /* with threads_done: a stop wakes when a thread ends */
    pthread_cond_t threads_done;
    atomic_int tests_finished; /* tests that reached "start" and ended */
    atomic_int last_status;    /* result of the latest finished test */
    _Atomic uint64_t memory;   /* stream buffer bytes reserved by running tests */
    struct registry registry;
    struct conntab conns;
    pthread_mutex_t log_lock;
    struct loglimit loglimit; /* the lines a peer can cause (server_log_peer) */
};

/*
 * Runs one control session on fd after its first four bytes (prefix) were
 * read. Owns fd and closes it (with server_conn_close).
 */
void server_session_run(struct server *s, int fd, const uint8_t prefix[4]);

/*
 * A --flows test's admission (server_admit.c): its connections within
 * --max-flows, and room for them in the process's open files. Returns 0 or
 * -EPERM/-EMFILE with a sentence naming the limit.
 */
NB_MUST_CHECK int session_check_flows(const struct test_params *p, const struct server_config *cfg,
                                      char *err, size_t errlen);

/*
 * Admits the test of session fd, whose streams need `need` bytes: a test
 * slot while fewer than --max-clients run, the memory within --max-memory,
 * and conntab_prove(). Returns 0 (give both back with server_release()), or
 * the refusal with everything given back, its sentence in err and its log
 * kind in *kind (-EBUSY; -ECONNABORTED when fd was shed meanwhile).
 */
int server_admit(struct server *s, int fd, uint64_t need, const char **kind, char *err,
                 size_t errlen);

/* Gives back an admitted test's slot and its need bytes of memory. */
void server_release(struct server *s, uint64_t need);

/*
 * Ends session fd, refused before its test (rc: the failure, err: its
 * sentence, kind: its log kind, or NULL to tell from rc). When the event
 * loop shed fd meanwhile, the shed's reason replaces err. The peer is told
 * the sentence; the line, logged within the rate limits, says when it could
 * not be told. Closes fd.
 */
void server_refuse(struct server *s, int fd, const struct sockaddr_storage *addr, int rc,
                   const char *kind, char *err, size_t errlen);

/* Forgets fd in the connection table, then closes it. */
void server_conn_close(struct server *s, int fd);

/*
 * Starts fn(arg) on a detached connection thread, counted in s->threads
 * (uncounted again when it cannot start: returns -1). SIGINT, SIGTERM and
 * SIGHUP are blocked in it and in the threads it starts, so that a stop
 * signal reaches the thread that waits in server_run(): a handler taken
 * on a connection thread could run after the server is freed.
 */
int server_spawn(struct server *s, void *(*fn)(void *), void *arg);

/*
 * The last thing a connection thread does with s: uncounts itself and wakes
 * a stop waiting for the threads (server_wait_threads()). s may be freed as
 * soon as it returns.
 */
void server_thread_done(struct server *s);

/*
 * Waits until every connection thread ended or deadline_ns passed, shutting
 * down their connections (again at each thread's end) so that they see the
 * stop. Returns whether some are still running.
 */
bool server_wait_threads(struct server *s, uint64_t deadline_ns);

/* Wakes the front door from any thread, to look at its deadlines and the one-off end again. */
void server_door_wake(struct server *s);

/* Counts a test that reached "start" and ended with rc: a one-off server then stops. */
void server_test_finished(struct server *s, int rc);

/* Writes one timestamped line to the server's log, control characters escaped. */
void server_log(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A line that a peer at addr (NULL: unknown) can cause, of kind `kind` (a
 * short string literal for the summary, "authentication failed"): written
 * by server_log() within the rate limits of proto/loglimit.h, else only
 * counted into the next summary line.
 */
void server_log_peer(struct server *s, const struct sockaddr_storage *addr, const char *kind,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
