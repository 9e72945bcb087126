#include "proto/iperf3_door.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/server_internal.h"
#include "util/clock.h"
#include "util/sock.h"

/* The same bound as server.c's on connection threads alive at once. */
#define IPERF3_DOOR_MAX_THREADS 1024

/*
 * One table for the process: iperf3 cookies are 180 random bits, so tests
 * of two servers in one process (the in-process loopback server beside
 * another) can share it without ever meeting.
 */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t table_changed = PTHREAD_COND_INITIALIZER;
static struct iperf3_pending *table_head;

void iperf3_door_register(struct iperf3_pending *t)
{
    pthread_mutex_lock(&table_lock);
    t->attached = 0;
    t->next = table_head;
    table_head = t;
    pthread_mutex_unlock(&table_lock);
}

void iperf3_door_unregister(struct iperf3_pending *t)
{
    pthread_mutex_lock(&table_lock);
    for (struct iperf3_pending **p = &table_head; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    pthread_mutex_unlock(&table_lock);
}

int iperf3_door_wait(struct iperf3_pending *t, uint64_t deadline_ns)
{
    pthread_mutex_lock(&table_lock);
    int rc = 0;
    while (t->attached < t->expected) {
        uint64_t now = clock_now_ns();
        if (now >= deadline_ns) {
            rc = -ETIMEDOUT;
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t wait = deadline_ns - now;
        ts.tv_sec += (time_t)(wait / 1000000000ull);
        ts.tv_nsec += (long)(wait % 1000000000ull);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&table_changed, &table_lock, &ts);
    }
    pthread_mutex_unlock(&table_lock);
    return rc;
}

/* True when a test with this cookie waits for more connections. */
static bool waiting(const uint8_t cookie[IPERF3_COOKIE_LEN])
{
    bool found = false;
    pthread_mutex_lock(&table_lock);
    for (struct iperf3_pending *t = table_head; t && !found; t = t->next)
        found = !memcmp(t->cookie, cookie, IPERF3_COOKIE_LEN) && t->attached < t->expected;
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* Hands fd to the waiting test with this cookie; false when there is none (or it is full). */
static bool attach(const uint8_t cookie[IPERF3_COOKIE_LEN], int fd)
{
    bool done = false;
    pthread_mutex_lock(&table_lock);
    for (struct iperf3_pending *t = table_head; t && !done; t = t->next)
        if (!memcmp(t->cookie, cookie, IPERF3_COOKIE_LEN) && t->attached < t->expected) {
            t->fds[t->attached++] = fd;
            done = true;
        }
    if (done)
        pthread_cond_broadcast(&table_changed);
    pthread_mutex_unlock(&table_lock);
    return done;
}

struct door_conn {
    struct server *server;
    int fd;
    uint8_t cookie[IPERF3_COOKIE_LEN];
};

static void *session_main(void *arg)
{
    struct door_conn *c = arg;
    struct server *s = c->server;
    iperf3_server_session(s, c->fd, c->cookie);
    free(c);
    server_thread_done(s);
    return NULL;
}

/* fd's peer (NULL when unknown) and its name, for a line within the per-host log limits. */
static const struct sockaddr_storage *peer_of(struct server *s, int fd, struct sockaddr_storage *a,
                                              char *name, size_t cap)
{
    sock_peer_name(fd, name, cap);
    return conntab_addr(&s->conns, fd, a) ? NULL : a;
}

/* A control connection: its own session thread, as server.c gives netab's. */
static void spawn(struct server *s, int fd, const uint8_t cookie[IPERF3_COOKIE_LEN])
{
    struct door_conn *c = malloc(sizeof(*c));
    if (!c || atomic_load(&s->threads) >= IPERF3_DOOR_MAX_THREADS) {
        int8_t denied = IPERF3_ACCESS_DENIED;
        (void)!send(fd, &denied, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        struct sockaddr_storage a;
        char peer[80];
        server_log_peer(s, peer_of(s, fd, &a, peer, sizeof(peer)), "no thread for it",
                        "peer=%s protocol=iperf3 refused: too many connections at once", peer);
        free(c);
        server_conn_close(s, fd);
        return;
    }
    c->server = s;
    c->fd = fd;
    memcpy(c->cookie, cookie, IPERF3_COOKIE_LEN);
    conntab_to_thread(&s->conns, fd);
    if (server_spawn(s, session_main, c)) {
        server_log(s, "cannot start a thread for a new iperf3 connection");
        server_conn_close(s, fd);
        free(c);
    }
}

void iperf3_door_take(struct server *s, int fd)
{
    uint8_t cookie[IPERF3_COOKIE_LEN];
    epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
    if (recv(fd, cookie, sizeof(cookie), MSG_DONTWAIT) != (ssize_t)sizeof(cookie) ||
        !iperf3_cookie_valid(cookie)) {
        struct sockaddr_storage a;
        char peer[80];
        server_log_peer(s, peer_of(s, fd, &a, peer, sizeof(peer)), "bad greeting",
                        "peer=%s closed: malformed iperf3 cookie", peer);
        server_conn_close(s, fd);
        return;
    }
    /*
     * A data connection of a test waiting for its streams. The connections
     * of one test arrive in the order the client opens them (it sends each
     * cookie before it connects the next), which is the order iperf3 gives
     * stream ids and --bidir directions by.
     */
    if (waiting(cookie)) {
        conntab_remove(&s->conns, fd);
        if (!attach(cookie, fd))
            close(fd); /* the test gave up meanwhile */
        return;
    }
    spawn(s, fd, cookie);
}
