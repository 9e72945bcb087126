#include "util/evloop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/clock.h"

/* Events read per epoll_wait(); more ready fds are simply seen on the next wait. */
#define EVLOOP_BATCH 256

/* The wake eventfd's epoll data: no watcher has this address. */
static char wake_tag;

int evloop_init(struct evloop *loop, evloop_wake_fn wake_fn, void *wake_data, char *err,
                size_t errlen)
{
    memset(loop, 0, sizeof(*loop));
    loop->wakefd = -1;
    loop->wake_fn = wake_fn;
    loop->wake_data = wake_data;
    loop->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (loop->epfd < 0)
        return err_set(err, errlen, errno, "cannot make an event loop: epoll_create1: %s",
                       strerror(errno));
    loop->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &wake_tag};
    if (loop->wakefd < 0 || epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->wakefd, &ev)) {
        int e = errno;
        evloop_free(loop);
        return err_set(err, errlen, e, "cannot make an event loop: eventfd: %s", strerror(e));
    }
    return 0;
}

void evloop_free(struct evloop *loop)
{
    if (loop->wakefd >= 0)
        close(loop->wakefd);
    if (loop->epfd >= 0)
        close(loop->epfd);
    loop->wakefd = loop->epfd = -1;
    for (size_t i = 0; i < loop->ntimers; i++)
        loop->heap[i]->slot = 0;
    free(loop->heap);
    loop->heap = NULL;
    loop->ntimers = loop->cap = 0;
}

int evloop_fd_add(struct evloop *loop, struct evloop_fd *w, int fd, uint32_t events,
                  evloop_fd_fn fn, void *data)
{
    *w = (struct evloop_fd){.fd = fd, .events = events, .fn = fn, .data = data};
    struct epoll_event ev = {.events = events, .data.ptr = w};
    if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev))
        return -errno;
    w->added = true;
    return 0;
}

int evloop_fd_mod(struct evloop *loop, struct evloop_fd *w, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = w};
    if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, w->fd, &ev))
        return -errno;
    w->events = events;
    return 0;
}

void evloop_fd_del(struct evloop *loop, struct evloop_fd *w)
{
    if (!w->added)
        return;
    (void)epoll_ctl(loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
    w->added = false;
    /* Its events still waiting in this batch must not reach a watcher its owner may free. */
    for (int i = loop->batch_at; loop->batch && i < loop->batch_n; i++)
        if (loop->batch[i].data.ptr == w)
            loop->batch[i].data.ptr = NULL;
}

/* Heap helpers: slot is the index + 1, so that 0 means "not armed". */
static void heap_place(struct evloop *loop, size_t i, struct evloop_timer *t)
{
    loop->heap[i] = t;
    t->slot = i + 1;
}

static void heap_up(struct evloop *loop, size_t i)
{
    struct evloop_timer *t = loop->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (loop->heap[parent]->deadline_ns <= t->deadline_ns)
            break;
        heap_place(loop, i, loop->heap[parent]);
        i = parent;
    }
    heap_place(loop, i, t);
}

static void heap_down(struct evloop *loop, size_t i)
{
    struct evloop_timer *t = loop->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= loop->ntimers)
            break;
        if (c + 1 < loop->ntimers && loop->heap[c + 1]->deadline_ns < loop->heap[c]->deadline_ns)
            c++;
        if (t->deadline_ns <= loop->heap[c]->deadline_ns)
            break;
        heap_place(loop, i, loop->heap[c]);
        i = c;
    }
    heap_place(loop, i, t);
}

void evloop_timer_cancel(struct evloop *loop, struct evloop_timer *t)
{
    if (!t->slot)
        return;
    size_t i = t->slot - 1;
    t->slot = 0;
    struct evloop_timer *last = loop->heap[--loop->ntimers];
    if (i == loop->ntimers)
        return;
    heap_place(loop, i, last);
    heap_up(loop, i);
    heap_down(loop, last->slot - 1);
}

int evloop_timer_set(struct evloop *loop, struct evloop_timer *t, uint64_t deadline_ns,
                     evloop_timer_fn fn, void *data)
{
    evloop_timer_cancel(loop, t);
    if (loop->ntimers == loop->cap) {
        size_t cap = loop->cap ? loop->cap * 2 : 16;
        struct evloop_timer **h = realloc(loop->heap, cap * sizeof(*h));
        if (!h)
            return -ENOMEM;
        loop->heap = h;
        loop->cap = cap;
    }
    t->deadline_ns = deadline_ns;
    t->fn = fn;
    t->data = data;
    heap_place(loop, loop->ntimers++, t);
    heap_up(loop, loop->ntimers - 1);
    return 0;
}

/* Fires every timer due by now, nearest first; one armed by a callback for the past fires too. */
static void fire_timers(struct evloop *loop)
{
    uint64_t now = clock_now_ns();
    while (loop->ntimers && loop->heap[0]->deadline_ns <= now) {
        struct evloop_timer *t = loop->heap[0];
        evloop_timer_cancel(loop, t);
        t->fn(loop, t->data);
    }
}

/*
 * The wait's timeout in milliseconds: the nearest of the first timer and
 * until_ns, rounded up so that the loop never wakes before a deadline and
 * spins on a zero timeout; -1 when there is neither.
 */
static int wait_ms(const struct evloop *loop, uint64_t until_ns)
{
    uint64_t next = until_ns;
    if (loop->ntimers && loop->heap[0]->deadline_ns < next)
        next = loop->heap[0]->deadline_ns;
    if (next == UINT64_MAX)
        return -1;
    return clock_ms_until(next);
}

static void drain_wake(struct evloop *loop)
{
    uint64_t v;
    (void)!read(loop->wakefd, &v, sizeof(v));
    if (loop->wake_fn)
        loop->wake_fn(loop, loop->wake_data);
}

int evloop_run_once(struct evloop *loop, uint64_t until_ns)
{
    struct epoll_event evs[EVLOOP_BATCH];
    int n = epoll_wait(loop->epfd, evs, EVLOOP_BATCH, wait_ms(loop, until_ns));
    loop->waits++;
    if (n < 0)
        return errno == EINTR ? 0 : -errno;
    fire_timers(loop);
    loop->batch = evs;
    loop->batch_n = n;
    for (loop->batch_at = 0; loop->batch_at < n;) {
        struct epoll_event *e = &evs[loop->batch_at++];
        if (e->data.ptr == &wake_tag) {
            drain_wake(loop);
        } else if (e->data.ptr) {
            struct evloop_fd *w = e->data.ptr;
            w->fn(loop, w->fd, e->events, w->data);
        }
    }
    loop->batch = NULL;
    loop->batch_n = loop->batch_at = 0;
    return 0;
}

int evloop_run(struct evloop *loop)
{
    loop->stop = false;
    while (!loop->stop) {
        int rc = evloop_run_once(loop, UINT64_MAX);
        if (rc)
            return rc;
    }
    return 0;
}

void evloop_break(struct evloop *loop)
{
    loop->stop = true;
}

void evloop_wake(struct evloop *loop)
{
    uint64_t one = 1;
    (void)!write(loop->wakefd, &one, sizeof(one));
}
