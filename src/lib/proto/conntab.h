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
    int fd;          /* -1: free */
    bool in_thread;  /* owned by a session thread: shed with shutdown(), not close() */
    bool proven;     /* its test started: not counted, not shed */
    bool shed;       /* already told to go: not counted again */
    const char *why; /* a shed one: the sentence it is told (a string literal) */
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
 * addr is NULL), marked shed with the sentence why; copied into *out. A
 * thread-owned one is shut down for reading here, so its thread wakes from
 * any wait on the peer and can still write: it sends why, logs and closes
 * (conntab_shed_reason()). A loop-owned one is the caller's to tell and
 * close. Returns 0 or -ENOENT.
 */
int conntab_shed_oldest(struct conntab *t, const struct sockaddr_storage *addr, const char *why,
                        struct conn_slot *out);

/* Loop-owned connections past their deadline, marked shed: up to max fds into out. */
int conntab_expired(struct conntab *t, uint64_t now_ns, int *out, int max);

/*
 * The nearest deadline of a loop-owned connection not yet expired: when
 * conntab_expired() next has one to give (UINT64_MAX: none), so the event
 * loop sleeps until then rather than looking on a period.
 */
uint64_t conntab_next_deadline(struct conntab *t);

/* Loop-owned, unshed connections of addr's host: up to max fds into out. */
int conntab_loop_fds(struct conntab *t, const struct sockaddr_storage *addr, int *out, int max);

/* Marks fd as handed to a session thread. */
void conntab_to_thread(struct conntab *t, int fd);

/*
 * Marks fd proven: its test is admitted, and from now on never shed.
 * Returns 0, or -ECONNABORTED when fd was shed before (it stays unproven;
 * conntab_shed_reason() says why), so a test is admitted or shed, never both.
 */
NB_MUST_CHECK int conntab_prove(struct conntab *t, int fd);

/* Removes fd; call before closing it, so a reused fd number is never shed. */
void conntab_remove(struct conntab *t, int fd);

/* Shuts down every thread-owned connection (a server stop wakes their threads). */
void conntab_shutdown_threads(struct conntab *t);

/* True when fd is in the table and was shed. */
bool conntab_is_shed(struct conntab *t, int fd);

/* The sentence fd was shed with, or NULL when it is not in the table or not shed. */
const char *conntab_shed_reason(struct conntab *t, int fd);

/* Copies fd's peer address into *out. Returns 0, or -ENOENT when fd is not in the table. */
int conntab_addr(struct conntab *t, int fd, struct sockaddr_storage *out);

/* True when fd is in the table and owned by the event loop. */
bool conntab_loop_owned(struct conntab *t, int fd);

#endif
