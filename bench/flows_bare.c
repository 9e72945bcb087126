/*
 * flows_bare: the many-flow ceiling on this host (issue 30).
 *
 * F TCP connections over 127.0.0.1, spread round-robin over T client
 * threads and T server threads in this one process, each thread with its own
 * epoll and nothing else: no timers, no histograms, no control connection.
 * Whatever netab (or a peer) loses against it at the same F and T is its own
 * overhead.
 *
 *   rr      every flow keeps one transaction in flight: the client writes a
 *           request, the server reads it whole and writes a response, the
 *           client reads it whole and writes the next request
 *   stream  every client flow sends as fast as the kernel takes it, the
 *           server side reads
 *
 * It prints one line of key=value pairs (counts are over the measured window):
 *
 *   flows_bare: test=rr flows=F threads=T seconds=S transactions=N
 *     transactions_per_second=X per_flow_min=.. per_flow_median=..
 *     per_flow_max=.. zero_flows=Z jain=J ...
 *
 * (stream: bytes= and bits_per_second=, per-flow figures in bytes). It checks
 * its own results and exits 1 on any error: every response has the response's
 * size and answers its own request, every flow's client and server counts
 * agree once the flows are drained, and the per-flow counts add up to each
 * thread's total. Exit 2 is bad usage or too few open files allowed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FLOWS 1000000L
#define MAX_THREADS 256L
#define MAX_SECONDS 3600.0
#define MAX_MSG (1L << 20)
#define MAX_EVENTS 256
/* Open files beyond two a flow: the listener, an epoll and an eventfd a thread, stdio, slack. */
#define FD_SLACK 32
/* The whole run is killed (SIGALRM) this long after it should have ended. */
#define WATCHDOG_SLACK_S 30

enum test { TEST_RR, TEST_STREAM };
/* A flow's end is registered in its thread's epoll under its flow and this side. */
enum side { CLIENT = 0, SERVER = 1 };

struct flow {
    int fd[2];
    /* Bytes of the current request/response written and read at each end. */
    size_t out_off[2], in_got[2];
    uint8_t seq;       /* client: the first byte of the request in flight */
    uint8_t req_first; /* server: the first byte of the request being answered */
    bool closing[2], done[2];
    bool want_out[2]; /* registered for EPOLLOUT (a write the kernel did not take whole) */
    /* rr: transactions completed (client) and answered (server); stream: bytes sent and
     * received. The client's (rr) or the receiver's (stream) count is read by the main thread
     * at the window's edges, hence atomic; relaxed stores cost a plain store on x86. */
    _Atomic uint64_t count[2];
};

struct loop {
    alignas(64) enum side side;
    int idx, epfd, evfd;
    pthread_t thread;
    uint64_t total; /* this thread's own sum over its flows, checked against them at the end */
    char *buf;
};

static enum test test = TEST_RR;
static long nflows = 1, nthreads = 1;
static size_t req_size = 1, resp_size = 1, block = 128 * 1024;
static struct flow *flows;
static atomic_bool stop;
static pthread_barrier_t start_line;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flows_bare: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void watch(struct loop *l, struct flow *f, uint32_t events, int op)
{
    struct epoll_event ev = {.events = events,
                             .data.u64 = (uint64_t)(f - flows) << 1 | (uint64_t)l->side};
    if (epoll_ctl(l->epfd, op, f->fd[l->side], &ev))
        fail("epoll_ctl: %s", strerror(errno));
}

static void flow_done(struct loop *l, struct flow *f, long *open)
{
    if (epoll_ctl(l->epfd, EPOLL_CTL_DEL, f->fd[l->side], NULL))
        fail("epoll_ctl DEL: %s", strerror(errno));
    f->done[l->side] = true;
    (*open)--;
}

/* rr: writes what is left of this end's message; waits for EPOLLOUT when the kernel
 * takes only part of it. Returns true once the whole message is out. */
static bool rr_write(struct loop *l, struct flow *f)
{
    enum side s = l->side;
    size_t len = s == CLIENT ? req_size : resp_size;
    if (f->out_off[s] == 0)
        l->buf[0] = (char)(s == CLIENT ? f->seq : f->req_first);
    while (f->out_off[s] < len) {
        ssize_t n = send(f->fd[s], l->buf + f->out_off[s], len - f->out_off[s], MSG_NOSIGNAL);
        if (n < 0 && errno == EAGAIN) {
            if (!f->want_out[s])
                watch(l, f, EPOLLOUT, EPOLL_CTL_MOD);
            f->want_out[s] = true;
            return false;
        }
        if (n < 0)
            fail("flow %ld %s: send: %s", (long)(f - flows), s == CLIENT ? "client" : "server",
                 strerror(errno));
        f->out_off[s] += (size_t)n;
    }
    f->out_off[s] = 0;
    if (f->want_out[s])
        watch(l, f, EPOLLIN, EPOLL_CTL_MOD);
    f->want_out[s] = false;
    return true;
}

/* rr: a client's end after the response is whole: the next request, or the end after stop. */
static void rr_client_next(struct loop *l, struct flow *f, bool stopping)
{
    if (stopping) {
        if (shutdown(f->fd[CLIENT], SHUT_WR))
            fail("shutdown: %s", strerror(errno));
        f->closing[CLIENT] = true;
        return;
    }
    f->seq++;
    rr_write(l, f);
}

/* rr: one readable event on either end. Reads at most one byte more than the message lacks,
 * so that a peer that sends too much is caught rather than read as the next message. */
static void rr_read(struct loop *l, struct flow *f, bool stopping, long *open)
{
    enum side s = l->side;
    size_t len = s == CLIENT ? resp_size : req_size;
    ssize_t n = recv(f->fd[s], l->buf, len - f->in_got[s] + 1, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n < 0)
        fail("flow %ld %s: recv: %s", (long)(f - flows), s == CLIENT ? "client" : "server",
             strerror(errno));
    if (n == 0) {
        /* End of stream is only right between transactions: the client's after the stop, the
         * server's in answer to it. */
        if (f->in_got[s] != 0 || (s == CLIENT && !f->closing[CLIENT]))
            fail("flow %ld %s: end of stream %zu bytes into a message", (long)(f - flows),
                 s == CLIENT ? "client" : "server", f->in_got[s]);
        if (s == SERVER && shutdown(f->fd[SERVER], SHUT_WR))
            fail("shutdown: %s", strerror(errno));
        flow_done(l, f, open);
        return;
    }
    if (f->in_got[s] == 0) {
        if (s == SERVER)
            f->req_first = (uint8_t)l->buf[0];
        else if ((uint8_t)l->buf[0] != f->seq)
            fail("flow %ld: response %u answers request %u", (long)(f - flows), (uint8_t)l->buf[0],
                 f->seq);
    }
    f->in_got[s] += (size_t)n;
    if (f->in_got[s] > len || (s == CLIENT && f->closing[CLIENT]))
        fail("flow %ld %s: %zu bytes where a message has %zu", (long)(f - flows),
             s == CLIENT ? "client" : "server", f->in_got[s], len);
    if (f->in_got[s] < len)
        return;
    f->in_got[s] = 0;
    uint64_t c = atomic_load_explicit(&f->count[s], memory_order_relaxed) + 1;
    atomic_store_explicit(&f->count[s], c, memory_order_relaxed);
    l->total++;
    if (s == SERVER)
        rr_write(l, f);
    else
        rr_client_next(l, f, stopping);
}

/* stream: the sending end writes once per readiness, so that every flow gets its turn. */
static void stream_event(struct loop *l, struct flow *f, long *open)
{
    enum side s = l->side;
    ssize_t n = s == CLIENT ? send(f->fd[s], l->buf, block, MSG_NOSIGNAL)
                            : recv(f->fd[s], l->buf, block, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n < 0)
        fail("flow %ld %s: %s: %s", (long)(f - flows), s == CLIENT ? "client" : "server",
             s == CLIENT ? "send" : "recv", strerror(errno));
    if (n == 0) {
        if (s == CLIENT)
            fail("flow %ld: send took nothing", (long)(f - flows));
        flow_done(l, f, open);
        return;
    }
    uint64_t c = atomic_load_explicit(&f->count[s], memory_order_relaxed) + (uint64_t)n;
    atomic_store_explicit(&f->count[s], c, memory_order_relaxed);
    l->total += (uint64_t)n;
}

/* After the stop, a stream client ends every flow at once; an rr client lets each finish
 * the transaction in flight (rr_client_next), so that both ends' counts must agree. */
static void on_stop(struct loop *l, long *open)
{
    uint64_t v;
    if (read(l->evfd, &v, sizeof(v)) != sizeof(v))
        fail("eventfd read: %s", strerror(errno));
    if (test != TEST_STREAM || l->side != CLIENT)
        return;
    for (long i = l->idx; i < nflows; i += nthreads) {
        if (shutdown(flows[i].fd[CLIENT], SHUT_WR))
            fail("shutdown: %s", strerror(errno));
        flow_done(l, &flows[i], open);
    }
}

static void *loop_main(void *arg)
{
    struct loop *l = arg;
    struct epoll_event ev[MAX_EVENTS];
    long open = 0;
    bool stopping = false;
    uint32_t first = test == TEST_STREAM && l->side == CLIENT ? EPOLLOUT : EPOLLIN;

    for (long i = l->idx; i < nflows; i += nthreads, open++)
        watch(l, &flows[i], first, EPOLL_CTL_ADD);
    struct epoll_event sev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->evfd, &sev))
        fail("epoll_ctl eventfd: %s", strerror(errno));
    pthread_barrier_wait(&start_line);
    if (test == TEST_RR && l->side == CLIENT)
        for (long i = l->idx; i < nflows; i += nthreads)
            rr_write(l, &flows[i]);
    while (open > 0) {
        int n = epoll_wait(l->epfd, ev, MAX_EVENTS, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fail("epoll_wait: %s", strerror(errno));
        for (int k = 0; k < n; k++) {
            if (ev[k].data.u64 == UINT64_MAX) {
                stopping = true;
                on_stop(l, &open);
                continue;
            }
            struct flow *f = &flows[ev[k].data.u64 >> 1];
            if (f->done[l->side])
                continue; /* ended earlier in this batch */
            if (test == TEST_STREAM)
                stream_event(l, f, &open);
            else if (f->want_out[l->side] && (ev[k].events & (EPOLLOUT | EPOLLERR)))
                rr_write(l, f);
            else
                rr_read(l, f, stopping, &open);
        }
    }
    return NULL;
}

static int listen_loopback(struct sockaddr_in *sa)
{
    socklen_t len = sizeof(*sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("socket: %s", strerror(errno));
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) || listen(fd, 128) ||
        getsockname(fd, (struct sockaddr *)sa, &len))
        fail("listen on 127.0.0.1: %s", strerror(errno));
    return fd;
}

/* Connects every flow before any traffic, so that none is measured while connecting. */
static void connect_flows(void)
{
    struct sockaddr_in sa;
    int lfd = listen_loopback(&sa);
    for (long i = 0; i < nflows; i++) {
        struct flow *f = &flows[i];
        f->fd[CLIENT] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (f->fd[CLIENT] < 0)
            fail("flow %ld: socket: %s", i, strerror(errno));
        if (connect(f->fd[CLIENT], (struct sockaddr *)&sa, sizeof(sa)))
            fail("flow %ld: connect: %s", i, strerror(errno));
        f->fd[SERVER] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (f->fd[SERVER] < 0)
            fail("flow %ld: accept: %s", i, strerror(errno));
        if (fcntl(f->fd[CLIENT], F_SETFL, O_NONBLOCK))
            fail("fcntl: %s", strerror(errno));
    }
    close(lfd);
}

/* Raises the soft limit on open files to what F flows need, or says why it cannot. */
static void fit_nofile(void)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)(2 * nflows + 2 * 2 * nthreads + FD_SLACK);
    if (getrlimit(RLIMIT_NOFILE, &rl))
        fail("getrlimit: %s", strerror(errno));
    if (rl.rlim_cur >= need)
        return;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        long most = ((long)rl.rlim_max - 4 * nthreads - FD_SLACK) / 2;
        fprintf(stderr,
                "flows_bare: %ld flows need %llu open files in this process (2 a flow, plus %ld) "
                "but the hard limit (RLIMIT_NOFILE) is %llu: raise it (ulimit -Hn, prlimit "
                "--nofile, LimitNOFILE=) or use at most %ld flows\n",
                nflows, (unsigned long long)need, 4 * nthreads + FD_SLACK,
                (unsigned long long)rl.rlim_max, most > 0 ? most : 0);
        exit(2);
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl))
        fail("raising the open-file limit to %llu: %s", (unsigned long long)need, strerror(errno));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Prints the window's totals and spread across flows; d holds each flow's window count. */
static void report(uint64_t *d, double window)
{
    uint64_t sum = 0;
    long zero = 0;
    double sq = 0;
    for (long i = 0; i < nflows; i++) {
        sum += d[i];
        sq += (double)d[i] * (double)d[i];
        zero += d[i] == 0;
    }
    qsort(d, (size_t)nflows, sizeof(*d), cmp_u64);
    double median = nflows % 2 ? (double)d[nflows / 2]
                               : ((double)d[nflows / 2 - 1] + (double)d[nflows / 2]) / 2;
    /* Jain's index: (sum x)^2 / (n sum x^2), 1 when all flows got the same, 1/n when one got all.
     */
    double jain = sq > 0 ? (double)sum * (double)sum / ((double)nflows * sq) : 0;
    double rate = window > 0 ? (double)sum / window : 0;
    if (test == TEST_RR)
        printf("flows_bare: test=rr flows=%ld threads=%ld req_size=%zu resp_size=%zu seconds=%.6f "
               "transactions=%llu transactions_per_second=%.1f",
               nflows, nthreads, req_size, resp_size, window, (unsigned long long)sum, rate);
    else
        printf("flows_bare: test=stream flows=%ld threads=%ld block=%zu seconds=%.6f bytes=%llu "
               "bits_per_second=%.0f",
               nflows, nthreads, block, window, (unsigned long long)sum, rate * 8);
    printf(" per_flow_min=%llu per_flow_median=%.1f per_flow_max=%llu zero_flows=%ld jain=%.6f\n",
           (unsigned long long)d[0], median, (unsigned long long)d[nflows - 1], zero, jain);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flows_bare [--test rr|stream] [--flows F] [--threads T] [-t SECONDS]\n"
            "                  [--req-size N] [--resp-size N] [-l BLOCK]\n"
            "  --test rr|stream  one transaction in flight a flow, or send as fast as possible\n"
            "                    (default rr)\n"
            "  --flows F         connections (default 1, at most %ld)\n"
            "  --threads T       event-loop threads per end (default 1, at most %ld)\n"
            "  -t SECONDS        measured window (default 5)\n"
            "  --req-size N      rr request bytes (default 1, at most %ld)\n"
            "  --resp-size N     rr response bytes (default 1, at most %ld)\n"
            "  -l BLOCK          stream bytes per send()/recv() (default 131072)\n",
            MAX_FLOWS, MAX_THREADS, MAX_MSG, MAX_MSG);
}

static long parse_long(const char *s, long min, long max, const char *opt)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "flows_bare: %s '%s' must be an integer from %ld to %ld\n", opt, s, min,
                max);
        exit(2);
    }
    return v;
}

static double parse_args(int argc, char **argv)
{
    static const struct option opts[] = {{"test", required_argument, NULL, 'T'},
                                         {"flows", required_argument, NULL, 'F'},
                                         {"threads", required_argument, NULL, 'n'},
                                         {"req-size", required_argument, NULL, 'q'},
                                         {"resp-size", required_argument, NULL, 'r'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    double seconds = 5;
    char *end;
    int c;
    while ((c = getopt_long(argc, argv, "t:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'T':
            if (strcmp(optarg, "rr") && strcmp(optarg, "stream")) {
                fprintf(stderr, "flows_bare: --test '%s' must be rr or stream\n", optarg);
                exit(2);
            }
            test = strcmp(optarg, "rr") ? TEST_STREAM : TEST_RR;
            break;
        case 'F':
            nflows = parse_long(optarg, 1, MAX_FLOWS, "--flows");
            break;
        case 'n':
            nthreads = parse_long(optarg, 1, MAX_THREADS, "--threads");
            break;
        case 'q':
            req_size = (size_t)parse_long(optarg, 1, MAX_MSG, "--req-size");
            break;
        case 'r':
            resp_size = (size_t)parse_long(optarg, 1, MAX_MSG, "--resp-size");
            break;
        case 'l':
            block = (size_t)parse_long(optarg, 1, MAX_MSG * 64, "-l");
            break;
        case 't':
            seconds = strtod(optarg, &end);
            if (*end || end == optarg || !(seconds > 0 && seconds <= MAX_SECONDS)) {
                fprintf(stderr, "flows_bare: -t '%s' must be a number of seconds in (0, 3600]\n",
                        optarg);
                exit(2);
            }
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            exit(2);
        }
    }
    if (optind != argc) {
        usage(stderr);
        exit(2);
    }
    return seconds;
}

static void start_loops(struct loop *loops)
{
    size_t bufsize = test == TEST_RR ? (req_size > resp_size ? req_size : resp_size) + 1 : block;
    for (long i = 0; i < 2 * nthreads; i++) {
        struct loop *l = &loops[i];
        l->side = i < nthreads ? CLIENT : SERVER;
        l->idx = (int)(i % nthreads);
        l->epfd = epoll_create1(EPOLL_CLOEXEC);
        l->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        /* Written once (not the kernel's zero page) so that send() copies real memory. */
        l->buf = malloc(bufsize);
        if (l->epfd < 0 || l->evfd < 0 || !l->buf)
            fail("setting up thread %ld: %s", i, strerror(errno));
        memset(l->buf, 0x5a, bufsize);
        if (pthread_create(&l->thread, NULL, loop_main, l))
            fail("cannot start threads");
    }
}

/* Each flow's window count (client transactions for rr, bytes received for stream). */
static void snapshot(uint64_t *d)
{
    enum side s = test == TEST_RR ? CLIENT : SERVER;
    for (long i = 0; i < nflows; i++)
        d[i] = atomic_load_explicit(&flows[i].count[s], memory_order_relaxed);
}

/* Once drained, both ends of every flow must have counted the same, and each thread's own
 * total must be the sum of its flows'. */
static void check(const struct loop *loops, const uint64_t *w0, const uint64_t *w1)
{
    enum side s = test == TEST_RR ? CLIENT : SERVER;
    for (long i = 0; i < nflows; i++) {
        uint64_t c = atomic_load(&flows[i].count[CLIENT]), v = atomic_load(&flows[i].count[SERVER]);
        if (c != v)
            fail("flow %ld: client counted %llu, server %llu", i, (unsigned long long)c,
                 (unsigned long long)v);
        if (w0[i] > w1[i] || w1[i] > atomic_load(&flows[i].count[s]))
            fail("flow %ld: window counts out of order", i);
    }
    for (long t = 0; t < 2 * nthreads; t++) {
        uint64_t sum = 0;
        for (long i = t % nthreads; i < nflows; i += nthreads)
            sum += atomic_load(&flows[i].count[loops[t].side]);
        if (sum != loops[t].total)
            fail("thread %ld: its flows add up to %llu, its total is %llu", t,
                 (unsigned long long)sum, (unsigned long long)loops[t].total);
    }
}

int main(int argc, char **argv)
{
    double seconds = parse_args(argc, argv);
    fit_nofile();
    alarm((unsigned)seconds + WATCHDOG_SLACK_S);
    flows = calloc((size_t)nflows, sizeof(*flows));
    uint64_t *w0 = calloc((size_t)nflows, sizeof(*w0)), *w1 = calloc((size_t)nflows, sizeof(*w1));
    struct loop *loops = calloc((size_t)(2 * nthreads), sizeof(*loops));
    if (!flows || !w0 || !w1 || !loops)
        fail("out of memory for %ld flows", nflows);
    connect_flows();
    if (pthread_barrier_init(&start_line, NULL, (unsigned)(2 * nthreads + 1)))
        fail("pthread_barrier_init");
    start_loops(loops);
    pthread_barrier_wait(&start_line);
    double t0 = now_s();
    snapshot(w0);
    struct timespec nap = {.tv_sec = (time_t)seconds,
                           .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&nap, &nap) && errno == EINTR)
        ;
    /* The window closes here; what is in flight is drained and checked but not counted. */
    double t1 = now_s();
    snapshot(w1);
    atomic_store(&stop, true);
    for (long i = 0; i < 2 * nthreads; i++) {
        uint64_t one = 1;
        if (write(loops[i].evfd, &one, sizeof(one)) != sizeof(one))
            fail("eventfd write: %s", strerror(errno));
    }
    for (long i = 0; i < 2 * nthreads; i++)
        pthread_join(loops[i].thread, NULL);
    check(loops, w0, w1);
    for (long i = 0; i < nflows; i++)
        w1[i] -= w0[i];
    report(w1, t1 - t0);
    for (long i = 0; i < nflows; i++) {
        close(flows[i].fd[CLIENT]);
        close(flows[i].fd[SERVER]);
    }
    for (long i = 0; i < 2 * nthreads; i++) {
        close(loops[i].epfd);
        close(loops[i].evfd);
        free(loops[i].buf);
    }
    free(loops);
    free(w0);
    free(w1);
    free(flows);
    return 0;
}
