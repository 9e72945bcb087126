#include "engine/stream_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine/flows.h"

int stream_set_init(struct stream_set *set, const struct test_params *p, const int *fds,
                    const bool *server_sends, int n, bool is_server, int cpu, int idle_timeout_ms)
{
    memset(set, 0, sizeof(*set));
    set->streams = calloc((size_t)n, sizeof(*set->streams));
    if (!set->streams)
        return -ENOMEM;
    set->n = n;
    set->params = *p;
    p = &set->params;
    atomic_init(&set->stop, false);
    atomic_init(&set->abort, false);
    set->stop_fd = set->abort_fd = -1;
    /* Quotas: each direction sends p->bytes in total, split over its streams. */
    int per_dir[2] = {0, 0};
    for (int i = 0; i < n; i++)
        per_dir[server_sends[i]]++;
    int seen[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        struct stream *s = &set->streams[i];
        int dir = server_sends[i];
        s->id = i;
        s->fd = fds[i];
        s->server_sends = server_sends[i];
        s->sender = server_sends[i] == is_server;
        s->role = stream_role_of(p->kind, s->sender, is_server);
        s->params = p;
        s->block = p->block;
        s->cpu = cpu;
        s->idle_timeout_ms = idle_timeout_ms;
        s->stop = &set->stop;
        s->abort = &set->abort;
        s->stop_fd = s->abort_fd = -1;
        if (p->bytes && s->sender) {
            uint64_t share = p->bytes / (uint64_t)per_dir[dir];
            if ((uint64_t)seen[dir] < p->bytes % (uint64_t)per_dir[dir])
                share++;
            /* A zero quota would mean "unlimited": give such a stream one byte. */
            s->limit = share ? share : 1;
        }
        if (p->bytes && s->role == ROLE_UDP_RECV) {
            /* The receiver knows its sender's quota, so it knows when it has everything. */
            uint64_t share = p->bytes / (uint64_t)per_dir[dir];
            if ((uint64_t)seen[dir] < p->bytes % (uint64_t)per_dir[dir])
                share++;
            s->limit = share ? share : 1;
            atomic_store(&s->expected, (s->limit + p->block - 1) / p->block);
        }
        seen[dir]++;
        if (p->flows ? flows_prepare(s) : stream_prepare(s)) {
            /* On failure the caller keeps the fds (and closes them): don't close them twice. */
            for (int j = 0; j <= i; j++)
                set->streams[j].fd = -1;
            set->n = i + 1;
            stream_set_free(set);
            return -ENOMEM;
        }
    }
    return 0;
}

uint64_t stream_set_memory(const struct test_params *p, const bool *server_sends, int n,
                           bool is_server)
{
    if (p->flows)
        return flows_memory(p, n, is_server);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        struct stream s = {.params = p, .block = p->block};
        s.sender = server_sends[i] == is_server;
        s.role = stream_role_of(p->kind, s.sender, is_server);
        total += stream_memory(&s);
    }
    return total;
}

/* An eventfd readable from now on (its count is never read back). */
static void raise_event(int fd)
{
    uint64_t one = 1;
    if (fd >= 0)
        (void)!write(fd, &one, sizeof(one));
}

/* Sets stop and abort and wakes every thread: its event fds, its socket shut. */
static void set_abort(struct stream_set *set, int n)
{
    atomic_store(&set->stop, true);
    atomic_store(&set->abort, true);
    raise_event(set->stop_fd);
    raise_event(set->abort_fd);
    for (int i = 0; i < n; i++)
        if (set->streams[i].started)
            stream_interrupt(&set->streams[i]);
}

int stream_set_start(struct stream_set *set, char *err, size_t errlen)
{
    if (set->params.flows)
        return flows_start(set, err, errlen);
    set->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    set->abort_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (set->stop_fd < 0 || set->abort_fd < 0)
        return err_set(err, errlen, -errno, "cannot make the streams' stop events: %s",
                       strerror(errno));
    /* Stopped before the start (an early stop() or abort): the events say so at once. */
    if (atomic_load(&set->stop))
        raise_event(set->stop_fd);
    for (int i = 0; i < set->n; i++) {
        set->streams[i].stop_fd = set->stop_fd;
        set->streams[i].abort_fd = set->abort_fd;
    }
    for (int i = 0; i < set->n; i++) {
        int rc = stream_start(&set->streams[i], err, errlen);
        if (rc) {
            set_abort(set, i);
            for (int j = 0; j < i; j++)
                stream_join(&set->streams[j]);
            return rc;
        }
    }
    return 0;
}

void stream_set_notify(struct stream_set *set, struct evloop *loop)
{
    for (int i = 0; i < set->n; i++)
        set->streams[i].notify = loop;
}

bool stream_set_received_at_least(struct stream_set *set, uint64_t want)
{
    for (;;) {
        /* Each receiver's count read once: the marks are laid on exactly the counts summed. */
        uint64_t got = 0;
        int m = 0;
        for (int i = 0; i < set->n; i++) {
            struct stream *s = &set->streams[i];
            if (s->sender)
                continue;
            s->mark_base = atomic_load(&s->bytes);
            got += s->mark_base;
            m++;
        }
        if (got >= want || !m)
            return got >= want;
        /* Marks summing to no more than want: while each count is below its own, so is the sum. */
        uint64_t share = (want - got) / (uint64_t)m;
        share = share ? share : 1;
        bool passed = false;
        for (int i = 0; i < set->n; i++) {
            struct stream *s = &set->streams[i];
            if (s->sender)
                continue;
            atomic_store(&s->wake_bytes, s->mark_base + share);
            /* Counted past its mark before the mark was set: look again rather than wait. */
            passed |= atomic_load(&s->bytes) >= s->mark_base + share;
        }
        if (!passed)
            return false;
    }
}

void stream_set_bytes(struct stream_set *set, uint64_t *sent, uint64_t *received)
{
    uint64_t s = 0, r = 0;
    for (int i = 0; i < set->n; i++) {
        uint64_t b = atomic_load_explicit(&set->streams[i].bytes, memory_order_relaxed);
        if (set->streams[i].sender)
            s += b;
        else
            r += b;
    }
    *sent = s;
    *received = r;
}

bool stream_set_senders_done(struct stream_set *set)
{
    for (int i = 0; i < set->n; i++)
        if ((stream_role_sends(set->streams[i].role) || set->streams[i].role == ROLE_RR_CLIENT ||
             set->streams[i].role == ROLE_CRR_CLIENT) &&
            !atomic_load(&set->streams[i].done))
            return false;
    return true;
}

bool stream_set_all_done(struct stream_set *set)
{
    for (int i = 0; i < set->n; i++)
        if (!atomic_load(&set->streams[i].done))
            return false;
    return true;
}

void stream_set_stop(struct stream_set *set)
{
    atomic_store(&set->stop, true);
    flows_wake(set);
    if (set->groups)
        return;
    raise_event(set->stop_fd);
    for (int i = 0; i < set->n; i++)
        if (set->streams[i].started)
            stream_stop_wake(&set->streams[i]);
}

int stream_set_finish(struct stream_set *set, uint64_t deadline_ns)
{
    if (set->groups)
        return flows_finish(set, deadline_ns);
    struct timespec until = {.tv_sec = (time_t)(deadline_ns / 1000000000ull),
                             .tv_nsec = (long)(deadline_ns % 1000000000ull)};
    int rc = 0;
    for (int i = 0; i < set->n && !rc; i++) {
        struct stream *s = &set->streams[i];
        if (!s->started)
            continue;
        int e = pthread_clockjoin_np(s->thread, NULL, CLOCK_MONOTONIC, &until);
        /* A thread that set done is only returning: not a reason to abort the others. */
        if (e == ETIMEDOUT && atomic_load(&s->done))
            e = pthread_join(s->thread, NULL);
        if (e == ETIMEDOUT)
            rc = -ETIMEDOUT;
        else
            s->started = false; /* joined (or not joinable: nothing to wait for) */
    }
    if (rc)
        set_abort(set, set->n);
    for (int i = 0; i < set->n; i++)
        stream_join(&set->streams[i]);
    return rc;
}

const char *stream_set_error(const struct stream_set *set)
{
    for (int i = 0; i < set->n; i++)
        if (atomic_load_explicit(&set->streams[i].error, memory_order_acquire))
            return set->streams[i].errmsg;
    return NULL;
}

void stream_set_free(struct stream_set *set)
{
    if (!set->streams)
        return;
    flows_free(set); /* joins the event-loop threads first: they use the streams */
    /*
     * A thread still running here was never stopped by its owner: abort and
     * wake it rather than wait for a join that would never return.
     */
    if (!stream_set_all_done(set))
        set_abort(set, set->n);
    for (int i = 0; i < set->n; i++) {
        stream_join(&set->streams[i]);
        stream_close(&set->streams[i]);
    }
    if (set->stop_fd >= 0)
        close(set->stop_fd);
    if (set->abort_fd >= 0)
        close(set->abort_fd);
    set->stop_fd = set->abort_fd = -1;
    free(set->streams);
    set->streams = NULL;
    set->n = 0;
}
