#include "proto/registry.h"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

#include "util/clock.h"

void registry_init(struct registry *r)
{
    pthread_mutex_init(&r->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&r->changed, &attr);
    pthread_condattr_destroy(&attr);
    r->head = NULL;
}

void registry_destroy(struct registry *r)
{
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->changed);
}

void registry_add(struct registry *r, struct pending_test *t)
{
    pthread_mutex_lock(&r->lock);
    t->next = r->head;
    r->head = t;
    pthread_mutex_unlock(&r->lock);
}

void registry_remove(struct registry *r, struct pending_test *t)
{
    pthread_mutex_lock(&r->lock);
    for (struct pending_test **p = &r->head; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    pthread_mutex_unlock(&r->lock);
}

int registry_attach(struct registry *r, const struct datahdr *h, int fd)
{
    int rc = -ENOENT;
    pthread_mutex_lock(&r->lock);
    for (struct pending_test *t = r->head; t; t = t->next) {
        if (memcmp(t->cookie, h->cookie, TEST_COOKIE_LEN))
            continue;
        if (h->stream >= (uint32_t)t->expected ||
            t->want_server_sends[h->stream] != h->server_sends)
            rc = -EINVAL;
        else if (t->fds[h->stream] >= 0)
            rc = -EEXIST;
        else {
            t->fds[h->stream] = fd;
            t->server_sends[h->stream] = h->server_sends;
            t->attached++;
            rc = 0;
            pthread_cond_broadcast(&r->changed);
            if (t->wake)
                (void)!eventfd_write(t->wake_fd, 1);
        }
        break;
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

int registry_wait(struct registry *r, struct pending_test *t, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000ull),
                          .tv_nsec = (long)(deadline_ns % 1000000000ull)};
    int rc = 0;
    pthread_mutex_lock(&r->lock);
    while (t->attached < t->expected) {
        if (pthread_cond_timedwait(&r->changed, &r->lock, &ts) == ETIMEDOUT) {
            rc = t->attached < t->expected ? -ETIMEDOUT : 0;
            break;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}
