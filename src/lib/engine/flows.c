#include "engine/flows.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "engine/flows_priv.h"
#include "engine/sockopt.h"
#include "measure/flowhist.h"
#include "measure/taskstat.h"
#include "util/clock.h"
#include "util/evloop.h"

int flows_default_threads(void)
{
    cpu_set_t cs;
    if (sched_getaffinity(0, sizeof(cs), &cs))
        return 1;
    int n = CPU_COUNT(&cs);
    return n > 0 ? n : 1;
}

int flows_prepare(struct stream *s)
{
    if (s->role != ROLE_RR_CLIENT && s->role != ROLE_CRR_CLIENT)
        return 0;
    s->flat = malloc(sizeof(*s->flat));
    if (!s->flat)
        return -ENOMEM;
    flowhist_init(s->flat);
    return 0;
}

/* A flow's own cost: its stream, its loop state and a few rows of latency buckets. */
#define FLOW_COST (sizeof(struct stream) + sizeof(struct flow) + 4 * 512 + sizeof(struct flowhist))
#define FLOW_BUF (1024u * 1024 + 65536)

uint64_t flows_memory(const struct test_params *p, int n, bool is_server)
{
    int t = p->threads ? p->threads : flows_default_threads();
    t = t < n ? t : n;
    /* Each thread's buffer: the largest a role of this test needs (-l for streams). */
    size_t buf = FLOW_BUF;
    for (int sends = 0; sends < 2; sends++) {
        struct stream s = {.params = p, .block = p->block};
        s.role = stream_role_of(p->kind, sends, is_server);
        buf = stream_buffer_size(&s) > buf ? stream_buffer_size(&s) : buf;
    }
    return (uint64_t)n * FLOW_COST + (uint64_t)t * (buf + 128 * 1024);
}

static bool aborted(const struct flow_group *g)
{
    return atomic_load_explicit(&g->set->abort, memory_order_relaxed);
}

void flow_end(struct flow *f, int err)
{
    if (f->ended)
        return;
    struct stream *s = f->s;
    evloop_fd_del(&f->g->loop, &f->w);
    evloop_timer_cancel(&f->g->loop, &f->timer); /* udp_rr's response, tcp_crr's cycle */
    f->ended = true;
    if (err == ECONNREFUSED)
        s->errors.connect++;
    else if (err == ETIMEDOUT)
        s->errors.timeout++;
    else if (err == EPIPE)
        s->errors.write++;
    else if (err)
        s->errors.read++;
    /* Those that drive the traffic tell the peer they are done: it ends at that end of stream. */
    if (!err && s->fd >= 0 && (s->role == ROLE_RR_CLIENT || s->role == ROLE_TCP_SEND))
        shutdown(s->fd, SHUT_WR);
    s->end_ns = clock_now_ns();
    /* A sender is done once its end figures are read (group_settle()); a failed one's now. */
    if (s->role == ROLE_TCP_SEND && err) {
        tcpinfo_read(s->fd, &s->tcpinfo);
        f->settled = true;
    }
    /* The first flow stands for the thread: it is done with it (group_main). */
    if (f != &f->g->flows[0] && (s->role != ROLE_TCP_SEND || f->settled))
        atomic_store(&s->done, true);
    f->g->live--;
}

/* Writes what is queued; waits for EPOLLOUT when the socket is full. */
static void flow_write(struct flow *f)
{
    struct flow_group *g = f->g;
    while (f->unsent) {
        size_t len = f->unsent < g->chunk ? (size_t)f->unsent : g->chunk;
        ssize_t w = send(f->s->fd, g->resp, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            f->unsent -= (uint64_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            break;
        flow_end(f, w < 0 ? errno : EPIPE);
        return;
    }
    bool want_out = f->unsent != 0;
    if (want_out != f->out && !f->ended) {
        f->out = want_out;
        if (evloop_fd_mod(&g->loop, &f->w, EPOLLIN | (want_out ? EPOLLOUT : 0)))
            flow_end(f, EIO);
    }
}

static void client_request(struct flow *f, uint64_t now)
{
    const struct test_params *p = f->s->params;
    f->sent_at = now;
    f->unsent += p->req_size;
    f->left = p->resp_size;
    flow_write(f);
}

/* The client's bytes in: a whole response ends a transaction; the next follows unless stopping. */
static void client_read(struct flow *f, size_t n)
{
    struct stream *s = f->s;
    f->bytes += n;
    atomic_store_explicit(&s->bytes, f->bytes, memory_order_relaxed);
    f->left = n < f->left ? f->left - n : 0;
    if (f->left)
        return;
    uint64_t now = clock_now_ns();
    if (now >= f->g->measure_ns)
        flowhist_record(s->flat, now - f->sent_at);
    atomic_store_explicit(&s->packets, ++f->tx, memory_order_relaxed);
    if (atomic_load_explicit(s->stop, memory_order_relaxed))
        flow_end(f, 0);
    else
        client_request(f, now);
}

/* The server's bytes in: each whole request queues a response. */
static void server_read(struct flow *f, size_t n)
{
    const struct test_params *p = f->s->params;
    f->bytes += n;
    uint64_t complete = 0;
    while (n) {
        size_t take = n < f->left ? n : (size_t)f->left;
        n -= take;
        f->left -= take;
        if (!f->left) {
            complete++;
            f->left = p->req_size;
        }
    }
    f->tx += complete;
    atomic_store_explicit(&f->s->packets, f->tx, memory_order_relaxed);
    atomic_store_explicit(&f->s->bytes, f->bytes, memory_order_relaxed);
    f->unsent += complete * p->resp_size;
    flow_write(f);
}

/*
 * tcp_stream's sender: one send per readiness, as the bare loop does, so
 * every flow of the loop gets its turn; ends at the stop or its quota.
 * Filling each socket until EAGAIN instead ran 1,000 flows at a third of
 * the bare loop's rate: every flow's send queue stayed full, and perf put a
 * quarter of the time in softirq transmit work run from the receiver's
 * recvmsg (the ACKs it sent released each sender's backlog).
 */
static void sender_write(struct flow *f)
{
    struct stream *s = f->s;
    while (!atomic_load_explicit(s->stop, memory_order_relaxed) &&
           (!s->limit || f->bytes < s->limit)) {
        size_t len = s->block < f->g->cap ? s->block : f->g->cap;
        if (s->limit && s->limit - f->bytes < len)
            len = (size_t)(s->limit - f->bytes);
        ssize_t w = send(s->fd, f->g->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            f->bytes += (uint64_t)w;
            atomic_store_explicit(&s->bytes, f->bytes, memory_order_relaxed);
            if (!s->limit || f->bytes < s->limit)
                return;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return;
        flow_end(f, w < 0 ? errno : EPIPE);
        return;
    }
    flow_end(f, 0);
}

/* tcp_stream's receiver counts; the control loop's byte mark (-n) may want to know. */
static void receiver_read(struct flow *f, size_t n)
{
    struct stream *s = f->s;
    if (!s->first_ns)
        s->first_ns = clock_now_ns();
    f->bytes += n;
    atomic_store_explicit(&s->bytes, f->bytes, memory_order_relaxed);
    stream_bytes_mark(s, f->bytes);
}

/* The stop (stream_set_stop() wakes the loop): senders blocked on a full socket end now. */
static void on_wake(struct evloop *loop, void *data)
{
    (void)loop;
    struct flow_group *g = data;
    if (!atomic_load_explicit(&g->set->stop, memory_order_relaxed))
        return;
    if (flows_kind_own(g->set->params.kind))
        flows_kinds_stop(g);
    for (int i = 0; i < g->n; i++)
        if (!g->flows[i].ended && g->flows[i].s->role == ROLE_TCP_SEND)
            flow_end(&g->flows[i], 0);
}

static void on_flow(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop;
    struct flow *f = data;
    struct flow_group *g = f->g;
    if (f->s->role == ROLE_TCP_SEND) {
        if (events & (EPOLLERR | EPOLLHUP))
            flow_end(f, ECONNRESET);
        else if (events & EPOLLOUT)
            sender_write(f);
        return;
    }
    if ((events & EPOLLOUT) && f->unsent) {
        flow_write(f);
        if (f->ended)
            return;
    }
    if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        return;
    ssize_t n = recv(fd, g->buf, g->cap, MSG_DONTWAIT);
    enum stream_role role = f->s->role;
    if (n > 0)
        role == ROLE_RR_CLIENT   ? client_read(f, (size_t)n)
        : role == ROLE_RR_SERVER ? server_read(f, (size_t)n)
                                 : receiver_read(f, (size_t)n);
    else if (n == 0) /* the peer's end of stream: the rr client did not expect it */
        flow_end(f, role == ROLE_RR_CLIENT ? ECONNRESET : 0);
    else if (errno != EAGAIN && errno != EINTR)
        flow_end(f, errno);
}

/* Watches every flow of the group; the client sends each flow's first request. */
static int group_begin(struct flow_group *g)
{
    if (flows_kind_own(g->set->params.kind))
        return flows_kinds_begin(g);
    uint64_t now = clock_now_ns();
    for (int i = 0; i < g->n; i++) {
        struct flow *f = &g->flows[i];
        f->s->start_ns = now;
        f->left = g->client ? f->s->params->resp_size : f->s->params->req_size;
        uint32_t want = f->s->role == ROLE_TCP_SEND ? EPOLLOUT : EPOLLIN;
        int fl = fcntl(f->s->fd, F_GETFL);
        if (fl < 0 || fcntl(f->s->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
            evloop_fd_add(&g->loop, &f->w, f->s->fd, want, on_flow, f)) {
            stream_fail(f->s, errno ? errno : EIO, "event loop");
            return -EIO;
        }
    }
    if (g->client)
        for (int i = 0; i < g->n; i++)
            if (!g->flows[i].ended)
                client_request(&g->flows[i], now);
    return 0;
}

/*
 * tcp_stream's senders, once the loop ended: each one's TCP_INFO once its
 * peer acknowledged everything, its FIN included, as stream_tcpinfo_end()
 * reads a stream's (at most STREAM_ACK_WAIT_NS for the group, none once
 * aborted or failed); then the flow is done, and interval_tcp reads its end figure.
 */
static void group_settle(struct flow_group *g, bool failed)
{
    uint64_t end = clock_now_ns() + STREAM_ACK_WAIT_NS;
    for (bool left = true; left;) {
        left = false;
        bool late = failed || aborted(g) || clock_now_ns() >= end;
        for (int i = 0; i < g->n; i++) {
            struct flow *f = &g->flows[i];
            if (f->s->role != ROLE_TCP_SEND || f->settled)
                continue;
            if (!late && f->s->fd >= 0 && !tcpinfo_acked(f->s->fd)) {
                left = true;
                continue;
            }
            if (f->s->fd >= 0)
                tcpinfo_read(f->s->fd, &f->s->tcpinfo);
            f->settled = true;
            if (f != &g->flows[0])
                atomic_store(&f->s->done, true);
        }
        if (left)
            clock_sleep_until(clock_now_ns() + 1000000);
    }
}

static void *group_main(void *arg)
{
    struct flow_group *g = arg;
    struct stream *first = g->flows[0].s;
    /* The thread's task figures (engine/counters.c) are its first flow's; the others' are 0. */
    first->thread = pthread_self();
    atomic_store(&first->tid, (int)taskstat_gettid());
    sockopt_pin_thread(first->cpu);
    g->measure_ns = clock_now_ns() + (uint64_t)(g->set->params.omit_s * 1e9);
    int rc = group_begin(g);
    while (!rc && g->live > 0 && !aborted(g))
        rc = evloop_run_once(&g->loop, UINT64_MAX);
    if (rc && rc != -EIO)
        stream_fail(g->flows[0].s, -rc, "event loop");
    /* Aborted or failed: what still runs ends here (its fd is closed by the set). */
    for (int i = 0; i < g->n; i++)
        if (!g->flows[i].ended) {
            g->flows[i].ended = true;
            evloop_fd_del(&g->loop, &g->flows[i].w);
            g->flows[i].s->end_ns = clock_now_ns();
            if (g->flows[i].s->role != ROLE_TCP_SEND)
                atomic_store(&g->flows[i].s->done, true);
        }
    group_settle(g, rc != 0);
    flows_kinds_cleanup(g);
    first->task_end_ok = taskstat_self(&first->task_end) == 0;
    atomic_store(&first->done, true);
    stream_notify(first); /* after done: the woken loop must see it */
    return NULL;
}

/* Builds group g over streams [first, first + n) of set. Returns 0 or -errno. */
static int group_init(struct flow_group *g, struct stream_set *set, int first, int n)
{
    g->set = set;
    g->n = g->live = n;
    g->client = set->streams[first].role == ROLE_RR_CLIENT;
    /* One buffer for all: as large as the largest any of its flows needs. */
    for (int i = first; i < first + n; i++)
        if (stream_buffer_size(&set->streams[i]) > g->cap)
            g->cap = stream_buffer_size(&set->streams[i]);
    g->chunk = 65536;
    g->flows = calloc((size_t)n, sizeof(*g->flows));
    g->buf = malloc(g->cap + g->chunk);
    if (!g->flows || !g->buf)
        return -ENOMEM;
    memset(g->buf, 0x5a, g->cap + g->chunk);
    g->resp = g->buf + g->cap;
    for (int i = 0; i < n; i++) {
        g->flows[i].s = &set->streams[first + i];
        g->flows[i].g = g;
        g->flows[i].cfd = -1;
        atomic_store(&g->flows[i].s->done, false);
        /* Threadless: nothing of its own in the task figures (the thread's are the first's). */
        memset(&g->flows[i].s->task_end, 0, sizeof(g->flows[i].s->task_end));
        g->flows[i].s->task_end.have_migrations = true; /* none: it has no thread */
        g->flows[i].s->task_end_ok = i > 0;
    }
    char err[NB_ERRLEN];
    int rc = evloop_init(&g->loop, on_wake, g, err, sizeof(err));
    g->loop_ok = rc == 0;
    return rc;
}

int flows_start(struct stream_set *set, char *err, size_t errlen)
{
    int t = set->params.threads ? set->params.threads : flows_default_threads();
    t = t < set->n ? t : set->n;
    set->groups = calloc((size_t)t, sizeof(*set->groups));
    if (!set->groups)
        return err_set(err, errlen, ENOMEM, "out of memory for %d event-loop threads", t);
    set->ngroups = t;
    /* Flow i goes to thread i * t / n's share: contiguous, sizes differing by at most one. */
    int rc = 0, first = 0;
    for (int k = 0; k < t && !rc; k++) {
        int end = (int)(((long)(k + 1) * set->n) / t);
        rc = group_init(&set->groups[k], set, first, end - first);
        if (rc)
            err_set(err, errlen, -rc, "cannot set up event-loop thread %d: %s", k, strerror(-rc));
        first = end;
    }
    for (int k = 0; k < t && !rc; k++) {
        int e = pthread_create(&set->groups[k].thread, NULL, group_main, &set->groups[k]);
        if (e)
            rc = err_set(err, errlen, e, "cannot start event-loop thread %d: %s", k, strerror(e));
        else
            set->groups[k].started = true;
    }
    if (rc) {
        atomic_store(&set->abort, true);
        flows_free(set);
    }
    return rc;
}

void flows_wake(struct stream_set *set)
{
    for (int k = 0; k < set->ngroups; k++)
        if (set->groups[k].loop_ok)
            evloop_wake(&set->groups[k].loop);
}

int flows_finish(struct stream_set *set, uint64_t deadline_ns)
{
    struct timespec until = {.tv_sec = (time_t)(deadline_ns / 1000000000ull),
                             .tv_nsec = (long)(deadline_ns % 1000000000ull)};
    int rc = 0;
    for (int k = 0; k < set->ngroups && !rc; k++) {
        struct flow_group *g = &set->groups[k];
        if (!g->started)
            continue;
        int e = pthread_clockjoin_np(g->thread, NULL, CLOCK_MONOTONIC, &until);
        if (e == ETIMEDOUT)
            rc = -ETIMEDOUT;
        else
            g->started = false;
    }
    if (rc) {
        atomic_store(&set->stop, true);
        atomic_store(&set->abort, true);
        flows_wake(set);
    }
    for (int k = 0; k < set->ngroups; k++)
        if (set->groups[k].started) {
            pthread_join(set->groups[k].thread, NULL);
            set->groups[k].started = false;
        }
    return rc;
}

void flows_free(struct stream_set *set)
{
    if (!set->groups)
        return;
    bool running = false;
    for (int k = 0; k < set->ngroups; k++)
        running |= set->groups[k].started;
    if (running) {
        atomic_store(&set->stop, true);
        atomic_store(&set->abort, true);
        flows_wake(set);
    }
    for (int k = 0; k < set->ngroups; k++) {
        struct flow_group *g = &set->groups[k];
        if (g->started)
            pthread_join(g->thread, NULL);
        if (g->loop_ok)
            evloop_free(&g->loop);
        free(g->flows);
        free(g->buf);
        free(g->idle);
    }
    free(set->groups);
    set->groups = NULL;
    set->ngroups = 0;
}

/* Open files of this process now (/proc/self/fd), or -1. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the directory's own fd */
}

int flows_reserve_fds(int flows, int per_flow, char *err, size_t errlen)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return err_set(err, errlen, errno, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
    int open = open_fds();
    /* Room beyond the flows for the control connections, the loops' epoll and eventfd, logs. */
    uint64_t base = (uint64_t)(open > 0 ? open : 0) + 64;
    uint64_t need = base + (uint64_t)flows * (uint64_t)per_flow;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        uint64_t fit = rl.rlim_max > base ? (rl.rlim_max - base) / (uint64_t)per_flow : 0;
        return err_set(err, errlen, EMFILE,
                       "%d flows need %llu open files in this process (%d per flow%s, %llu "
                       "besides); its hard limit (ulimit -Hn) is %llu: at most %llu flows fit",
                       flows, (unsigned long long)need, per_flow,
                       per_flow > 1 ? ": both ends are in this process" : "",
                       (unsigned long long)base, (unsigned long long)rl.rlim_max,
                       (unsigned long long)fit);
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl))
        return err_set(err, errlen, errno, "cannot raise the open files limit to %llu: %s",
                       (unsigned long long)need, strerror(errno));
    return 0;
}

void flows_p99(const struct stream_set *set, double *out)
{
    struct histogram *h = malloc(sizeof(*h));
    for (int i = 0; i < set->n; i++) {
        out[i] = 0;
        if (!h || !set->streams[i].flat || !set->streams[i].flat->count)
            continue;
        hist_init(h);
        flowhist_merge(h, set->streams[i].flat);
        out[i] = hist_percentile(h, 99) / 1000.0;
    }
    free(h);
}
