/*
 * The server's table of connections that have not proven themselves yet:
 * accepted, still in their handshake (in the event loop, or in a session
 * thread before its test starts). It is what the per-address limit and the
 * global cap count, and what picks the connection to shed: the oldest one,
 * of the same address or of any. Connections whose test started stay in the
 * table as "proven" (not counted, never shed) so that a shutdown can still
 * wake every thread blocked on one. Thread-safe.
 */
#ifndef NETAB_PROTO_CONNTAB_H
#define NETAB_PROTO_CONNTAB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

#include "util/err.h"

struct conn_slot {
    int fd;         /* -1: free */
    bool in_thread; /* owned by a session thread: shed with shutdown(), not close() */
    bool proven;    /* its test started: not counted, not shed */
    bool shed;      /* already told to go: not counted again */
    uint64_t accepted_ns;
    uint64_t deadline_ns; /* loop-owned: the first message must be whole by then */
    struct sockaddr_storage addr;
};

struct conntab {
    pthread_mutex_t lock;
    struct conn_slot *slots;
    int cap;
};

/* Prepares a table of cap slots. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int conntab_init(struct conntab *t, int cap);
void conntab_destroy(struct conntab *t);

/* Adds fd (loop-owned, unproven). Returns 0 or -ENOSPC when every slot is taken. */
NB_MUST_CHECK int conntab_add(struct conntab *t, int fd, const struct sockaddr_storage *addr,
                              uint64_t now_ns, uint64_t deadline_ns);

/* Unproven, unshed connections: from addr's host, or all of them when addr is NULL. */
int conntab_count(struct conntab *t, const struct sockaddr_storage *addr);

/*
 * The oldest unproven, unshed connection (of addr's host, or of any when
 * addr is NULL), marked shed; copied into *out. A thread-owned one is shut
 * down here (its thread wakes, logs and closes it); a loop-owned one is the
 * caller's to close. Returns 0 or -ENOENT.
 */
int conntab_shed_oldest(struct conntab *t, const struct sockaddr_storage *addr,
                        struct conn_slot *out);

/* Loop-owned connections past their deadline, marked shed: up to max fds into out. */
int conntab_expired(struct conntab *t, uint64_t now_ns, int *out, int max);

/* Loop-owned, unshed connections of addr's host: up to max fds into out. */
int conntab_loop_fds(struct conntab *t, const struct sockaddr_storage *addr, int *out, int max);

/* Marks fd as handed to a session thread. */
void conntab_to_thread(struct conntab *t, int fd);

/* Marks fd proven: its test started. */
void conntab_prove(struct conntab *t, int fd);

/* Removes fd; call before closing it, so a reused fd number is never shed. */
void conntab_remove(struct conntab *t, int fd);

/* Shuts down every thread-owned connection (a server stop wakes their threads). */
void conntab_shutdown_threads(struct conntab *t);

/* True when fd is in the table and was shed. */
bool conntab_is_shed(struct conntab *t, int fd);

/* True when fd is in the table and owned by the event loop. */
bool conntab_loop_owned(struct conntab *t, int fd);

#endif
