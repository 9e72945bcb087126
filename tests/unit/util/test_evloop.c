/*
 * Unit tests for util/evloop: deadlines fire in order and not before their
 * time, fd events reach their watcher with its state pointer, a watcher
 * removed mid-batch gets nothing more, another thread's wake ends a wait,
 * and an idle loop with a far deadline returns from epoll_wait once (the
 * proof that it does not tick).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "util/clock.h"
#include "util/evloop.h"

#define MS 1000000ull

struct fired {
    int order[2048];
    uint64_t at[2048];
    int n;
};

struct tick {
    struct evloop_timer t;
    struct fired *log;
    int id;
};

static void on_timer(struct evloop *loop, void *data)
{
    (void)loop;
    struct tick *k = data;
    k->log->order[k->log->n] = k->id;
    k->log->at[k->log->n++] = clock_now_ns();
}

static void make(struct evloop *loop)
{
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(evloop_init(loop, NULL, NULL, err, sizeof(err)), 0);
}

static void deadlines_fire_in_order_and_on_time(void **state)
{
    (void)state;
    struct evloop loop;
    make(&loop);
    static const int after_ms[] = {40, 10, 30, 20, 50, 25};
    struct fired log = {0};
    struct tick k[6];
    memset(k, 0, sizeof(k));
    uint64_t t0 = clock_now_ns();
    for (int i = 0; i < 6; i++) {
        k[i].log = &log;
        k[i].id = i;
        ASSERT_EQ(
            evloop_timer_set(&loop, &k[i].t, t0 + (uint64_t)after_ms[i] * MS, on_timer, &k[i]), 0);
    }
    evloop_timer_cancel(&loop, &k[5].t); /* 25 ms: cancelled, never fires */
    assert_false(evloop_timer_armed(&k[5].t));
    while (evloop_timer_armed(&k[4].t))
        ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    ASSERT_EQ(log.n, 5);
    static const int want[] = {1, 3, 2, 0, 4};
    for (int i = 0; i < 5; i++) {
        ASSERT_EQ(log.order[i], want[i]);
        uint64_t deadline = t0 + (uint64_t)after_ms[want[i]] * MS;
        /* Never early; late only by scheduling on a loaded machine. */
        ASSERT_GE(log.at[i], deadline);
        ASSERT_LT(log.at[i], deadline + 200 * MS);
    }
    /* One wait per distinct deadline at most: nothing in between wakes the loop. */
    ASSERT_LE(loop.waits, 5);
    evloop_free(&loop);
}

/* A heap of many timers, some moved and some cancelled, fires the rest in deadline order. */
static void many_timers_keep_heap_order(void **state)
{
    (void)state;
    struct evloop loop;
    make(&loop);
    enum { N = 2000 };
    struct tick *k = calloc(N, sizeof(*k));
    struct fired *log = calloc(1, sizeof(*log));
    assert_non_null(k);
    assert_non_null(log);
    srand(7);
    uint64_t base = clock_now_ns() - 10000 * MS; /* all in the past: one wait fires them */
    for (int i = 0; i < N; i++) {
        k[i].log = log;
        k[i].id = i;
        ASSERT_EQ(evloop_timer_set(&loop, &k[i].t, base + (uint64_t)(rand() % 5000) * MS, on_timer,
                                   &k[i]),
                  0);
    }
    for (int i = 0; i < N; i += 3)
        ASSERT_EQ(evloop_timer_set(&loop, &k[i].t, base + (uint64_t)(rand() % 5000) * MS, on_timer,
                                   &k[i]),
                  0);
    int cancelled = 0;
    for (int i = 1; i < N; i += 7, cancelled++)
        evloop_timer_cancel(&loop, &k[i].t);
    ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    ASSERT_EQ(log->n, N - cancelled);
    for (int i = 1; i < log->n; i++)
        ASSERT_LE(k[log->order[i - 1]].t.deadline_ns, k[log->order[i]].t.deadline_ns);
    for (int i = 1; i < N; i += 7)
        assert_false(evloop_timer_armed(&k[i].t));
    ASSERT_EQ(loop.ntimers, 0);
    free(k);
    free(log);
    evloop_free(&loop);
}

struct pipe_w {
    struct evloop_fd w;
    int calls;
    uint32_t events;
    struct pipe_w *victim; /* removed by this watcher's callback */
};

static void on_fd(struct evloop *loop, int fd, uint32_t events, void *data)
{
    struct pipe_w *p = data;
    assert_int_equal(fd, p->w.fd);
    p->calls++;
    p->events = events;
    if (p->victim)
        evloop_fd_del(loop, &p->victim->w);
}

static void fd_events_dispatch_with_state(void **state)
{
    (void)state;
    struct evloop loop;
    make(&loop);
    int a[2], b[2];
    ASSERT_EQ(pipe(a), 0);
    ASSERT_EQ(pipe(b), 0);
    struct pipe_w ra = {0}, rb = {0}, wa = {0};
    ASSERT_EQ(evloop_fd_add(&loop, &ra.w, a[0], EPOLLIN, on_fd, &ra), 0);
    ASSERT_EQ(evloop_fd_add(&loop, &rb.w, b[0], EPOLLIN, on_fd, &rb), 0);
    /* Nothing ready and a deadline 20 ms away: the wait ends there with nothing called. */
    ASSERT_EQ(evloop_run_once(&loop, clock_now_ns() + 20 * MS), 0);
    ASSERT_EQ(ra.calls + rb.calls, 0);
    ASSERT_EQ(write(a[1], "x", 1), 1);
    ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    ASSERT_EQ(ra.calls, 1);
    ASSERT_EQ(ra.events & EPOLLIN, EPOLLIN);
    ASSERT_EQ(rb.calls, 0);
    /* Write interest: a pipe with room is writable at once. */
    ASSERT_EQ(evloop_fd_add(&loop, &wa.w, a[1], 0, on_fd, &wa), 0);
    ASSERT_EQ(evloop_fd_mod(&loop, &wa.w, EPOLLOUT), 0);
    ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    ASSERT_EQ(wa.calls, 1);
    ASSERT_EQ(wa.events & EPOLLOUT, EPOLLOUT);
    evloop_fd_del(&loop, &wa.w);
    /* Both readable in one batch: whichever comes first unwatches the other, which gets nothing. */
    char c;
    ASSERT_EQ(read(a[0], &c, 1), 1);
    ASSERT_EQ(write(a[1], "x", 1), 1);
    ASSERT_EQ(write(b[1], "y", 1), 1);
    ra.victim = &rb;
    rb.victim = &ra;
    ra.calls = rb.calls = 0;
    ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    ASSERT_EQ(ra.calls + rb.calls, 1);
    evloop_fd_del(&loop, &ra.w);
    evloop_fd_del(&loop, &rb.w);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    evloop_free(&loop);
}

struct waker {
    struct evloop *loop;
    int woken;
};

static void *wake_later(void *arg)
{
    struct waker *wk = arg;
    clock_sleep_until(clock_now_ns() + 50 * MS);
    evloop_wake(wk->loop);
    return NULL;
}

static void on_wake(struct evloop *loop, void *data)
{
    (void)loop;
    ((struct waker *)data)->woken++;
}

static void on_far(struct evloop *loop, void *data)
{
    (void)loop;
    (*(int *)data)++;
}

static void wake_from_another_thread(void **state)
{
    (void)state;
    struct evloop loop;
    struct waker wk = {.loop = &loop};
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(evloop_init(&loop, on_wake, &wk, err, sizeof(err)), 0);
    struct evloop_timer far = {0};
    int far_fired = 0;
    ASSERT_EQ(evloop_timer_set(&loop, &far, clock_now_ns() + 10000 * MS, on_far, &far_fired), 0);
    pthread_t th;
    uint64_t t0 = clock_now_ns();
    ASSERT_EQ(pthread_create(&th, NULL, wake_later, &wk), 0);
    ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    uint64_t took = clock_now_ns() - t0;
    pthread_join(th, NULL);
    ASSERT_EQ(wk.woken, 1);
    ASSERT_EQ(far_fired, 0);
    ASSERT_EQ(loop.waits, 1);
    ASSERT_GE(took, 40 * MS);
    ASSERT_LT(took, 5000 * MS);
    /* A wake before the wait is kept: the next wait returns at once. */
    evloop_wake(&loop);
    evloop_wake(&loop);
    ASSERT_EQ(evloop_run_once(&loop, UINT64_MAX), 0);
    ASSERT_EQ(wk.woken, 2);
    evloop_timer_cancel(&loop, &far);
    evloop_free(&loop);
}

static void on_break(struct evloop *loop, void *data)
{
    (*(int *)data)++;
    evloop_break(loop);
}

/* Idle with one deadline 300 ms away: epoll_wait returns once, when it falls due. */
static void idle_loop_waits_once(void **state)
{
    (void)state;
    struct evloop loop;
    make(&loop);
    int fd[2];
    ASSERT_EQ(pipe(fd), 0);
    struct pipe_w r = {0};
    ASSERT_EQ(evloop_fd_add(&loop, &r.w, fd[0], EPOLLIN, on_fd, &r), 0);
    struct evloop_timer t = {0};
    int fired = 0;
    uint64_t deadline = clock_now_ns() + 300 * MS;
    ASSERT_EQ(evloop_timer_set(&loop, &t, deadline, on_break, &fired), 0);
    ASSERT_EQ(evloop_run(&loop), 0);
    ASSERT_GE(clock_now_ns(), deadline);
    ASSERT_EQ(fired, 1);
    ASSERT_EQ(r.calls, 0);
    ASSERT_EQ(loop.waits, 1);
    evloop_fd_del(&loop, &r.w);
    close(fd[0]);
    close(fd[1]);
    evloop_free(&loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deadlines_fire_in_order_and_on_time),
        cmocka_unit_test(many_timers_keep_heap_order),
        cmocka_unit_test(fd_events_dispatch_with_state),
        cmocka_unit_test(wake_from_another_thread),
        cmocka_unit_test(idle_loop_waits_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
