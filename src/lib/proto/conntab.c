#include "proto/conntab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/udp_wire.h"

int conntab_init(struct conntab *t, int cap)
{
    t->slots = calloc((size_t)cap, sizeof(*t->slots));
    if (!t->slots)
        return -ENOMEM;
    t->cap = cap;
    for (int i = 0; i < cap; i++)
        t->slots[i].fd = -1;
    pthread_mutex_init(&t->lock, NULL);
    return 0;
}

void conntab_destroy(struct conntab *t)
{
    if (!t->slots)
        return;
    pthread_mutex_destroy(&t->lock);
    free(t->slots);
    t->slots = NULL;
}

int conntab_add(struct conntab *t, int fd, const struct sockaddr_storage *addr, uint64_t now_ns,
                uint64_t deadline_ns)
{
    int rc = -ENOSPC;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd < 0) {
            t->slots[i] = (struct conn_slot){
                .fd = fd, .accepted_ns = now_ns, .deadline_ns = deadline_ns, .addr = *addr};
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

/* A slot the limits count: in use, not proven, not already shed, of addr's host if given. */
static bool counted(const struct conn_slot *c, const struct sockaddr_storage *addr)
{
    return c->fd >= 0 && !c->proven && !c->shed && (!addr || udp_wire_same_host(&c->addr, addr));
}

int conntab_count(struct conntab *t, const struct sockaddr_storage *addr)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        n += counted(&t->slots[i], addr);
    pthread_mutex_unlock(&t->lock);
    return n;
}

int conntab_shed_oldest(struct conntab *t, const struct sockaddr_storage *addr, const char *why,
                        struct conn_slot *out)
{
    int best = -1;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (counted(&t->slots[i], addr) &&
            (best < 0 || t->slots[i].accepted_ns < t->slots[best].accepted_ns))
            best = i;
    if (best >= 0) {
        t->slots[best].shed = true;
        t->slots[best].why = why;
        *out = t->slots[best];
        /*
         * Under the lock, so the fd cannot have been closed and reused by its
         * thread. Reading only: the thread wakes and still sends the reason.
         */
        if (t->slots[best].in_thread)
            shutdown(t->slots[best].fd, SHUT_RD);
    }
    pthread_mutex_unlock(&t->lock);
    return best >= 0 ? 0 : -ENOENT;
}

int conntab_expired(struct conntab *t, uint64_t now_ns, int *out, int max)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap && n < max; i++) {
        struct conn_slot *c = &t->slots[i];
        if (c->fd >= 0 && !c->in_thread && !c->shed && now_ns >= c->deadline_ns) {
            c->shed = true;
            out[n++] = c->fd;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

uint64_t conntab_next_deadline(struct conntab *t)
{
    uint64_t next = UINT64_MAX;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++) {
        const struct conn_slot *c = &t->slots[i];
        if (c->fd >= 0 && !c->in_thread && !c->shed && c->deadline_ns < next)
            next = c->deadline_ns;
    }
    pthread_mutex_unlock(&t->lock);
    return next;
}

int conntab_loop_fds(struct conntab *t, const struct sockaddr_storage *addr, int *out, int max)
{
    int n = 0;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap && n < max; i++)
        if (counted(&t->slots[i], addr) && !t->slots[i].in_thread)
            out[n++] = t->slots[i].fd;
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* Applies f to fd's slot under the lock. */
static void with_slot(struct conntab *t, int fd, void (*f)(struct conn_slot *))
{
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd == fd) {
            f(&t->slots[i]);
            break;
        }
    pthread_mutex_unlock(&t->lock);
}

static void set_thread(struct conn_slot *c)
{
    c->in_thread = true;
}

static void set_free(struct conn_slot *c)
{
    c->fd = -1;
}

void conntab_to_thread(struct conntab *t, int fd)
{
    with_slot(t, fd, set_thread);
}

int conntab_prove(struct conntab *t, int fd)
{
    int rc = 0;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd == fd) {
            if (t->slots[i].shed)
                rc = -ECONNABORTED;
            else
                t->slots[i].proven = true;
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void conntab_remove(struct conntab *t, int fd)
{
    with_slot(t, fd, set_free);
}

void conntab_shutdown_threads(struct conntab *t)
{
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd >= 0 && t->slots[i].in_thread)
            shutdown(t->slots[i].fd, SHUT_RDWR);
    pthread_mutex_unlock(&t->lock);
}

bool conntab_is_shed(struct conntab *t, int fd)
{
    bool shed = false;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd == fd) {
            shed = t->slots[i].shed;
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return shed;
}

const char *conntab_shed_reason(struct conntab *t, int fd)
{
    const char *why = NULL;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd == fd) {
            why = t->slots[i].shed ? t->slots[i].why : NULL;
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return why;
}

int conntab_addr(struct conntab *t, int fd, struct sockaddr_storage *out)
{
    int rc = -ENOENT;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd == fd) {
            *out = t->slots[i].addr;
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

bool conntab_loop_owned(struct conntab *t, int fd)
{
    bool owned = false;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->cap; i++)
        if (t->slots[i].fd == fd) {
            owned = !t->slots[i].in_thread;
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return owned;
}
