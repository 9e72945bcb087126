/*
 * The server's table of tests waiting for their data connections, keyed by
 * cookie. Acceptor threads attach connections; the test's session thread
 * waits until all have arrived. Thread-safe.
 */
#ifndef NETAB_PROTO_REGISTRY_H
#define NETAB_PROTO_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto/datahdr.h"

struct pending_test {
    uint8_t cookie[TEST_COOKIE_LEN];
    int expected;
    int attached;
    int *fds;                      /* expected entries, -1 until attached */
    bool *server_sends;            /* each connection's direction, as announced */
    const bool *want_server_sends; /* the direction each index must have */
    bool wake;                     /* wake_fd (an eventfd) is written at each attach */
    int wake_fd;
    struct pending_test *next;
};

struct registry {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct pending_test *head;
};

void registry_init(struct registry *r);
void registry_destroy(struct registry *r);

/* Adds t (caller-owned, fds preset to -1) to the table. */
void registry_add(struct registry *r, struct pending_test *t);

/* Removes t; connections already attached stay in t->fds for the caller. */
void registry_remove(struct registry *r, struct pending_test *t);

/*
 * Hands a data connection to the test with h's cookie. Returns 0 (the
 * registry took fd), -ENOENT (no such test), -EINVAL (bad index or
 * direction) or -EEXIST (index already attached); on error fd is still the
 * caller's.
 */
int registry_attach(struct registry *r, const struct datahdr *h, int fd);

/* Waits until every connection of t arrived or deadline_ns. Returns 0 or -ETIMEDOUT. */
int registry_wait(struct registry *r, struct pending_test *t, uint64_t deadline_ns);

#endif
