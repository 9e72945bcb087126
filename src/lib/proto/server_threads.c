/*
 * What the server's threads tell each other beyond its tables: the log
 * (whose rate limits' summaries the front door writes at each window's
 * end), the connection threads' count a stop waits on, and the front
 * door's wake. Every wait here is on an event or a deadline, never a
 * period (docs/architecture.md, "No thread ticks beside the data threads").
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "proto/server_internal.h"
#include "util/clock.h"
#include "util/printable.h"

void server_log(struct server *s, const char *fmt, ...)
{
    if (!s->cfg.log)
        return;
    char stamp[32], raw[1024], line[4096];
    clock_iso8601(stamp, sizeof(stamp));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    /* A peer's text is in raw: made printable, it cannot forge a log line. */
    printable_copy(line, sizeof(line), raw);
    pthread_mutex_lock(&s->log_lock);
    fprintf(s->cfg.log, "%s netab-server: %s\n", stamp, line);
    fflush(s->cfg.log);
    pthread_mutex_unlock(&s->log_lock);
}

void server_log_peer(struct server *s, const struct sockaddr_storage *addr, const char *kind,
                     const char *fmt, ...)
{
    char summary[1024], line[1024];
    bool full = loglimit_event(&s->loglimit, addr, kind, clock_now_ns(), summary, sizeof(summary));
    /*
     * A window this event opened ends before the front door would wake by
     * itself: it sets its deadline afresh. (After the event, as the door
     * publishes door_until before its last look at the windows: one of the
     * two always sees the other.)
     */
    if (loglimit_next_due(&s->loglimit) < atomic_load(&s->door_until))
        server_door_wake(s);
    if (summary[0])
        server_log(s, "%s", summary);
    if (!full)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    server_log(s, "%s", line);
}

void server_stop(struct server *s)
{
    atomic_store(&s->quit, true);
    uint64_t one = 1;
    (void)!write(s->quit_fd, &one, sizeof(one)); /* async-signal-safe, as the CLI needs */
}

void server_door_wake(struct server *s)
{
    uint64_t one = 1;
    (void)!write(s->door_fd, &one, sizeof(one));
}

void server_test_finished(struct server *s, int rc)
{
    atomic_store(&s->last_status, rc);
    atomic_fetch_add(&s->tests_finished, 1);
    if (s->cfg.one_off)
        server_door_wake(s);
}

int server_spawn(struct server *s, void *(*fn)(void *), void *arg)
{
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&s->threads, 1);
    /* The new thread inherits the mask; this one gets its own back at once. */
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    int rc = pthread_create(&t, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc)
        server_thread_done(s);
    return rc ? -1 : 0;
}

void server_thread_done(struct server *s)
{
    /* Under the lock: server_free() takes it before it frees s, so the unlock is the last touch. */
    pthread_mutex_lock(&s->threads_lock);
    atomic_fetch_sub(&s->threads, 1);
    pthread_cond_broadcast(&s->threads_done);
    pthread_mutex_unlock(&s->threads_lock);
}

bool server_wait_threads(struct server *s, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000ull),
                          .tv_nsec = (long)(deadline_ns % 1000000000ull)};
    pthread_mutex_lock(&s->threads_lock);
    while (atomic_load(&s->threads) > 0 && clock_now_ns() < deadline_ns) {
        /* Each end may have let another thread take a connection: all are shut down again. */
        conntab_shutdown_threads(&s->conns);
        if (pthread_cond_timedwait(&s->threads_done, &s->threads_lock, &ts) == ETIMEDOUT)
            break;
    }
    bool left = atomic_load(&s->threads) > 0;
    pthread_mutex_unlock(&s->threads_lock);
    return left;
}
