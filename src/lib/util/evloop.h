/*
 * One event loop for every waiting netab does (docs/architecture.md, "No
 * thread ticks beside the data threads"): epoll for file descriptors, a
 * heap of deadlines, and an eventfd by which another thread wakes it. A
 * loop sleeps until a watched fd is ready, the nearest deadline passes or
 * it is woken; epoll_wait's timeout is always the nearest deadline, never a
 * fixed period, so an idle loop with a far deadline returns from the kernel
 * once.
 *
 * Ownership: a loop belongs to the one thread that runs it. Every call but
 * evloop_wake() is made by that thread (from its callbacks or between
 * evloop_run_once() calls); evloop_wake() is the only call another thread
 * may make, and the only way a data thread tells a control loop something
 * changed (a stream ended, failed, or sent its quota).
 *
 * What the many-flow engine (issue 30) needs and this interface gives it:
 * - one loop per thread, each with its own epoll and eventfd, nothing shared
 *   and no lock;
 * - thousands of fds: watchers and timers are the caller's memory (embedded
 *   in its per-flow state, no allocation per fd; the timer heap grows by
 *   doubling), and each watcher carries the caller's per-fd state pointer,
 *   handed back to its callback, so dispatch is one epoll event -> one call
 *   with no lookup;
 * - per-flow deadlines (idle timeouts, pacing, rr response timeouts) as
 *   timers, O(log n) to arm, re-arm or cancel;
 * - a callback may close and unwatch any fd, its own or another's, and free
 *   the watcher afterwards: events of the same batch for an unwatched fd are
 *   dropped, never dispatched to freed memory.
 */
#ifndef NETAB_UTIL_EVLOOP_H
#define NETAB_UTIL_EVLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

#include "util/err.h"

struct evloop;

/* An fd is ready: events are epoll's (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP, ...). */
typedef void (*evloop_fd_fn)(struct evloop *loop, int fd, uint32_t events, void *data);
/* A deadline passed (the timer is disarmed before the call, so it may re-arm itself). */
typedef void (*evloop_timer_fn)(struct evloop *loop, void *data);
/* Another thread called evloop_wake() (once per wake-up, however many calls). */
typedef void (*evloop_wake_fn)(struct evloop *loop, void *data);

/* A watched fd; the caller's memory, valid until evloop_fd_del(). */
struct evloop_fd {
    int fd;
    uint32_t events; /* the interest: EPOLLIN and/or EPOLLOUT (EPOLLERR, EPOLLHUP always) */
    evloop_fd_fn fn;
    void *data; /* the caller's per-fd state */
    bool added;
};

/* A deadline; the caller's memory, zeroed before first use; valid until cancelled or fired. */
struct evloop_timer {
    uint64_t deadline_ns; /* CLOCK_MONOTONIC (clock_now_ns()) */
    evloop_timer_fn fn;
    void *data;
    size_t slot; /* its place in the heap + 1; 0 when not armed */
};

struct evloop {
    int epfd, wakefd;
    struct evloop_timer **heap; /* a binary min-heap on deadline_ns */
    size_t ntimers, cap;
    evloop_wake_fn wake_fn;
    void *wake_data;
    bool stop; /* set by evloop_break(): evloop_run() returns */
    /* The batch being dispatched, so that evloop_fd_del() can drop its pending events. */
    struct epoll_event *batch;
    int batch_n, batch_at;
    uint64_t waits; /* epoll_wait() returns, for tests that prove the loop does not spin */
};

/*
 * Makes a loop (its epoll and eventfd, both close-on-exec). wake_fn (may be
 * NULL) is called on the loop's thread after another thread's
 * evloop_wake(). Returns 0, or -errno with a sentence in err.
 */
NB_MUST_CHECK int evloop_init(struct evloop *loop, evloop_wake_fn wake_fn, void *wake_data,
                              char *err, size_t errlen);

/* Closes the loop's epoll and eventfd; the watched fds are the caller's to close. */
void evloop_free(struct evloop *loop);

/*
 * Watches fd for events (EPOLLIN, EPOLLOUT; level-triggered unless EPOLLET
 * is given): fn(loop, fd, ready, data) is called while it is ready.
 * Returns 0 or -errno (epoll_ctl's).
 */
NB_MUST_CHECK int evloop_fd_add(struct evloop *loop, struct evloop_fd *w, int fd, uint32_t events,
                                evloop_fd_fn fn, void *data);

/* Changes a watched fd's interest (say, EPOLLOUT only while a send is blocked). */
NB_MUST_CHECK int evloop_fd_mod(struct evloop *loop, struct evloop_fd *w, uint32_t events);

/*
 * Stops watching (before the fd is closed); pending events of the current
 * batch for it are dropped. A watcher never added, or already removed, is
 * left alone.
 */
void evloop_fd_del(struct evloop *loop, struct evloop_fd *w);

/*
 * Arms t to call fn(loop, data) once clock_now_ns() >= deadline_ns
 * (re-arming an armed timer moves it). Timers due together fire in deadline
 * order. Returns 0 or -ENOMEM (the heap could not grow; t stays unarmed).
 */
NB_MUST_CHECK int evloop_timer_set(struct evloop *loop, struct evloop_timer *t,
                                   uint64_t deadline_ns, evloop_timer_fn fn, void *data);

/* Disarms t (no-op when it is not armed). */
void evloop_timer_cancel(struct evloop *loop, struct evloop_timer *t);

static inline bool evloop_timer_armed(const struct evloop_timer *t)
{
    return t->slot != 0;
}

/*
 * Waits once: until a watched fd is ready, a timer falls due, another thread
 * wakes the loop, or until_ns passes (UINT64_MAX: no limit beyond the
 * timers), whichever is first; then dispatches what happened (the due
 * timers in order, the ready fds, the wake). A signal ends the wait early
 * with nothing dispatched. Returns 0, or -errno if epoll_wait failed.
 */
NB_MUST_CHECK int evloop_run_once(struct evloop *loop, uint64_t until_ns);

/* Runs evloop_run_once() until a callback calls evloop_break(). Returns 0 or -errno. */
NB_MUST_CHECK int evloop_run(struct evloop *loop);

/* Makes evloop_run() return after the current dispatch (the loop's thread only). */
void evloop_break(struct evloop *loop);

/*
 * Wakes the loop from any thread (async-signal-safe: one write to an
 * eventfd). Wakes that come before the loop waits are not lost: its next
 * wait returns at once.
 */
void evloop_wake(struct evloop *loop);

#endif
