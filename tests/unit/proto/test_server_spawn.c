/*
 * Unit tests for server_spawn(): a connection thread is counted, detached,
 * and has SIGINT, SIGTERM and SIGHUP blocked (so that a stop signal reaches
 * the thread in server_run(), never one that may outlive the server), while
 * the thread that started it keeps its own mask.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "netab_assert.h"
#include "proto/server_internal.h"

struct seen {
    atomic_int done;
    int intr, term, hup, pipe; /* 1 when the signal is blocked in the new thread */
};

static void *look(void *arg)
{
    struct seen *s = arg;
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    s->intr = sigismember(&cur, SIGINT);
    s->term = sigismember(&cur, SIGTERM);
    s->hup = sigismember(&cur, SIGHUP);
    s->pipe = sigismember(&cur, SIGPIPE);
    atomic_store(&s->done, 1);
    return NULL;
}

static void test_spawn_blocks_stop_signals(void **state)
{
    (void)state;
    static struct server srv; /* only its thread count is used */
    struct seen seen = {0};
    sigset_t before, after;
    pthread_sigmask(SIG_BLOCK, NULL, &before);
    ASSERT_EQ(server_spawn(&srv, look, &seen), 0);
    pthread_sigmask(SIG_BLOCK, NULL, &after);
    while (!atomic_load(&seen.done))
        sched_yield();
    ASSERT_EQ(atomic_load(&srv.threads), 1);
    ASSERT_EQ(seen.intr, 1);
    ASSERT_EQ(seen.term, 1);
    ASSERT_EQ(seen.hup, 1);
    /* SIGPIPE stays as it was: a blocked one would only wait, pending, on the thread. */
    ASSERT_EQ(seen.pipe, sigismember(&before, SIGPIPE));
    /* The caller's own mask is back as it was. */
    ASSERT_EQ(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
    ASSERT_EQ(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
    ASSERT_EQ(sigismember(&after, SIGHUP), sigismember(&before, SIGHUP));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_blocks_stop_signals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
