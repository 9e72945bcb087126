/*
 * bare: the throughput ceiling for netab and its peers on this host.
 *
 * PAIRS sender/receiver thread pairs move data over 127.0.0.1 with plain
 * blocking send()/recv() of BLOCK bytes and nothing else: no timers, no
 * per-block bookkeeping beyond one relaxed counter store, no control
 * connection. Whatever a real tool loses against this figure is its own
 * overhead. It prints one line:
 *
 *     bare: pairs=N bytes=B seconds=S bits_per_second=X
 *
 * where B counts bytes received during the S-second window. --path and
 * --skip-rx-copy (bare_paths.h) make the loops those of netab's send and
 * receive paths; the line then goes on with what they did:
 *
 *     ... path=P rx=R calls=N [zc_completions=C zc_copied=K]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bare_paths.h"

#define MAX_PAIRS 128
#define MAX_SECONDS 3600.0
#define MAX_BLOCK (64u << 20)
/* A send or recv stalled this long means the peer is gone; give up rather than hang. */
#define IO_TIMEOUT_S 5
/* The whole run is killed (SIGALRM) this long after it should have ended. */
#define WATCHDOG_SLACK_S 30

struct pair {
    /* Each pair's counter sits on its own cache line so receivers do not slow each other. */
    alignas(64) _Atomic uint64_t received;
    int send_fd, recv_fd;
    size_t block;
    pthread_t sender, receiver;
    struct bare_path_stats stats; /* the sender's, stored as it ends */
};

static atomic_bool stop;
/*
 * -f: write the send buffer before sending, as netab (and iperf3) do. By
 * default it stays as calloc() left it: a large calloc() is fresh mmap()
 * memory that is never written, so every page of it reads from the
 * kernel's one shared zero page and send() copies from 4 KiB that never
 * leave the cache, which no tool with a real buffer gets.
 */
static bool fill;
static enum bare_path path = BARE_COPY;
/* --skip-rx-copy: recv(MSG_TRUNC), the bytes counted but not copied (netab --skip-rx-copy). */
static int recv_flags;
static pthread_barrier_t start_line;

static void die(const char *what)
{
    fprintf(stderr, "bare: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bare [-t SECONDS] [-l BLOCK] [-P PAIRS] [-p PORT] [-f] [--path PATH]\n"
               "            [--skip-rx-copy]\n"
               "  -t SECONDS  length of the run (default 5)\n"
               "  -l BLOCK    bytes per send()/recv(), K/M suffixes are 1024-based "
               "(default 128K)\n"
               "  -P PAIRS    sender/receiver pairs (default 1, at most 128)\n"
               "  -p PORT     listen on this 127.0.0.1 port (default: any free port)\n"
               "  -f          write the send buffer first, as netab does (default: never\n"
               "              written, so it reads from the kernel's shared zero page)\n"
               "  --path PATH the sender's system calls, as netab's path of that name:\n"
               "              copy (send, default), sendfile (-Z), splice (--splice),\n"
               "              msg-zerocopy (--msg-zerocopy), io-uring (--io-uring: sends\n"
               "              and receives), io-uring-zc (--io-uring=zc)\n"
               "  --skip-rx-copy  receive with MSG_TRUNC: counted, not copied\n");
}

/* Parses "131072", "128K", "1M" or "1Mi" (all 1024-based); returns 0 when invalid. */
static uint64_t parse_block(const char *s)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return 0;
    unsigned shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    }
    if (shift) {
        end++;
        if (*end == 'i')
            end++;
    }
    if (*end != '\0' || v > (MAX_BLOCK >> shift))
        return 0;
    return (uint64_t)v << shift;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sender_main(void *arg)
{
    struct pair *p = arg;
    char *buf = calloc(1, p->block);
    if (buf && fill)
        memset(buf, 0x5a, p->block);
    pthread_barrier_wait(&start_line);
    struct bare_path_stats st = {0};
    /* An error ends the sender like the stop does: the bytes received are the figure. */
    if (buf)
        (void)bare_path_send(path, p->send_fd, buf, p->block, &stop, &st);
    p->stats = st;
    /* The receiver drains until this end-of-stream, so neither side blocks at the end. */
    shutdown(p->send_fd, SHUT_WR);
    free(buf);
    return NULL;
}

static void *receiver_main(void *arg)
{
    struct pair *p = arg;
    char *buf = malloc(p->block);
    uint64_t total = 0;
    pthread_barrier_wait(&start_line);
    if (!buf)
        return NULL;
    if (path == BARE_IO_URING || path == BARE_IO_URING_ZC) {
        (void)bare_path_uring_recv(p->recv_fd, buf, p->block, recv_flags, &p->received);
        free(buf);
        return NULL;
    }
    for (;;) {
        ssize_t n = recv(p->recv_fd, buf, p->block, recv_flags);
        if (n <= 0)
            break;
        total += (uint64_t)n;
        atomic_store_explicit(&p->received, total, memory_order_relaxed);
    }
    free(buf);
    return NULL;
}

static void set_io_timeouts(int fd)
{
    struct timeval tv = {.tv_sec = IO_TIMEOUT_S, .tv_usec = 0};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
        die("setsockopt");
}

/* Opens a listener on 127.0.0.1:port (0 for any) and returns it with *sa set to its address. */
static int listen_loopback(unsigned port, int backlog, struct sockaddr_in *sa)
{
    socklen_t len = sizeof(*sa);
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket");
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
        die("setsockopt");
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)))
        die("bind 127.0.0.1");
    if (listen(fd, backlog))
        die("listen");
    if (getsockname(fd, (struct sockaddr *)sa, &len))
        die("getsockname");
    return fd;
}

int main(int argc, char **argv)
{
    double seconds = 5;
    uint64_t block = 128 * 1024;
    long pairs = 1, port = 0;
    char *end;
    int c;

    enum { OPT_PATH = 256, OPT_SKIP_RX_COPY };
    static const struct option longopts[] = {{"path", required_argument, NULL, OPT_PATH},
                                             {"skip-rx-copy", no_argument, NULL, OPT_SKIP_RX_COPY},
                                             {NULL, 0, NULL, 0}};
    while ((c = getopt_long(argc, argv, "t:l:P:p:fh", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            seconds = strtod(optarg, &end);
            if (*end || end == optarg || !(seconds > 0 && seconds <= MAX_SECONDS)) {
                fprintf(stderr, "bare: -t '%s' must be a number of seconds in (0, 3600]\n", optarg);
                return 2;
            }
            break;
        case 'l':
            block = parse_block(optarg);
            if (block == 0) {
                fprintf(stderr, "bare: -l '%s' must be a size from 1 to 64M bytes\n", optarg);
                return 2;
            }
            break;
        case 'P':
            pairs = strtol(optarg, &end, 10);
            if (*end || end == optarg || pairs < 1 || pairs > MAX_PAIRS) {
                fprintf(stderr, "bare: -P '%s' must be an integer from 1 to %d\n", optarg,
                        MAX_PAIRS);
                return 2;
            }
            break;
        case 'p':
            port = strtol(optarg, &end, 10);
            if (*end || end == optarg || port < 0 || port > 65535) {
                fprintf(stderr, "bare: -p '%s' must be a port from 0 to 65535\n", optarg);
                return 2;
            }
            break;
        case 'f':
            fill = true;
            break;
        case OPT_PATH:
            if ((c = bare_path_parse(optarg)) < 0) {
                fprintf(stderr,
                        "bare: --path '%s' is none of copy, sendfile, splice, "
                        "msg-zerocopy, io-uring, io-uring-zc\n",
                        optarg);
                return 2;
            }
            path = (enum bare_path)c;
            break;
        case OPT_SKIP_RX_COPY:
            recv_flags = MSG_TRUNC;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    alarm((unsigned)seconds + WATCHDOG_SLACK_S);

    struct sockaddr_in sa;
    int lfd = listen_loopback((unsigned)port, (int)pairs, &sa);
    struct pair *p = calloc((size_t)pairs, sizeof(*p));
    if (!p)
        die("calloc");
    /* All connections are set up before any traffic, so none is measured while connecting. */
    for (long i = 0; i < pairs; i++) {
        p[i].block = block;
        p[i].send_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (p[i].send_fd < 0)
            die("socket");
        if (connect(p[i].send_fd, (struct sockaddr *)&sa, sizeof(sa)))
            die("connect");
        p[i].recv_fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (p[i].recv_fd < 0)
            die("accept");
        set_io_timeouts(p[i].send_fd);
        set_io_timeouts(p[i].recv_fd);
    }
    close(lfd);

    if (pthread_barrier_init(&start_line, NULL, (unsigned)(2 * pairs + 1)))
        die("pthread_barrier_init");
    for (long i = 0; i < pairs; i++) {
        if (pthread_create(&p[i].receiver, NULL, receiver_main, &p[i]) ||
            pthread_create(&p[i].sender, NULL, sender_main, &p[i])) {
            fprintf(stderr, "bare: cannot start threads\n");
            return 1;
        }
    }
    pthread_barrier_wait(&start_line);
    double t0 = now_s();
    struct timespec nap = {.tv_sec = (time_t)seconds,
                           .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&nap, &nap) && errno == EINTR)
        ;
    /* The window closes here; bytes still in flight are drained but not counted. */
    double t1 = now_s();
    uint64_t bytes = 0;
    struct bare_path_stats st = {0};
    for (long i = 0; i < pairs; i++)
        bytes += atomic_load_explicit(&p[i].received, memory_order_relaxed);
    atomic_store(&stop, true);

    for (long i = 0; i < pairs; i++) {
        pthread_join(p[i].sender, NULL);
        pthread_join(p[i].receiver, NULL);
        st.calls += p[i].stats.calls;
        st.zc_completions += p[i].stats.zc_completions;
        st.zc_copied += p[i].stats.zc_copied;
        close(p[i].send_fd);
        close(p[i].recv_fd);
    }
    pthread_barrier_destroy(&start_line);
    free(p);

    double window = t1 - t0;
    printf("bare: pairs=%ld bytes=%llu seconds=%.3f bits_per_second=%.0f", pairs,
           (unsigned long long)bytes, window, window > 0 ? (double)bytes * 8 / window : 0.0);
    /* The default line stays as it was: scripts parse it. */
    if (path != BARE_COPY || recv_flags)
        printf(" path=%s rx=%s calls=%llu", bare_path_name(path),
               path >= BARE_IO_URING ? (recv_flags ? "io_uring+MSG_TRUNC" : "io_uring")
                                     : (recv_flags ? "MSG_TRUNC" : "recv"),
               (unsigned long long)st.calls);
    if (path == BARE_MSG_ZEROCOPY || path == BARE_IO_URING_ZC)
        printf(" zc_completions=%llu zc_copied=%llu", (unsigned long long)st.zc_completions,
               (unsigned long long)st.zc_copied);
    putchar('\n');
    return 0;
}
