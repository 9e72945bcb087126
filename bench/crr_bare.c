/*
 * crr_bare: the connect/request/response/close ceiling on this host.
 *
 * One client (the main thread) and one server thread in this process run
 * netperf's TCP_CRR transaction over 127.0.0.1 as plainly as possible:
 * connect, send a request, receive the response, close; the server accepts,
 * receives the request, sends the response and closes once the client has.
 * The client closes first, as in netperf, so TIME_WAIT stays on the client.
 * It prints one line:
 *
 *     crr_bare: connections=N seconds=S connections_per_second=X
 *
 * Failed connections (e.g. ephemeral ports exhausted by TIME_WAIT) are not
 * counted; their number goes to stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SECONDS 3600.0
#define MAX_MSG 65536
/* The whole run is killed (SIGALRM) this long after it should have ended. */
#define WATCHDOG_SLACK_S 30

struct server {
    int lfd;
    size_t req, resp;
    atomic_bool stop;
    pthread_t thread;
};

static void die(const char *what)
{
    fprintf(stderr, "crr_bare: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: crr_bare [-t SECONDS] [-r BYTES] [-R BYTES] [-p PORT]\n"
               "  -t SECONDS  length of the run (default 5)\n"
               "  -r BYTES    request size (default 1)\n"
               "  -R BYTES    response size (default 1)\n"
               "  -p PORT     listen on this 127.0.0.1 port (default: any free port)\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Receives exactly len bytes; returns false on error or early end-of-stream. */
static bool recv_all(int fd, char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = recv(fd, buf, len, 0);
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

static bool send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

/*
 * Serves one connection at a time until stop is set. accept() is woken at
 * the end by shutdown() of the listener, so the loop needs no poll() or
 * timeout on the fast path.
 */
static void *server_main(void *arg)
{
    struct server *s = arg;
    static char buf[MAX_MSG];

    while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break;
        }
        if (recv_all(fd, buf, s->req) && send_all(fd, buf, s->resp)) {
            /* Wait for the client's close so that TIME_WAIT lands on the client side. */
            char c;
            while (recv(fd, &c, 1, 0) > 0)
                ;
        }
        close(fd);
    }
    return NULL;
}

static int listen_loopback(unsigned port, struct sockaddr_in *sa)
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
    if (listen(fd, 128))
        die("listen");
    if (getsockname(fd, (struct sockaddr *)sa, &len))
        die("getsockname");
    return fd;
}

static long parse_long(const char *s, long min, long max, char opt)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "crr_bare: -%c '%s' must be an integer from %ld to %ld\n", opt, s, min,
                max);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    static char buf[MAX_MSG];
    double seconds = 5;
    long req = 1, resp = 1, port = 0;
    char *end;
    int c;

    while ((c = getopt(argc, argv, "t:r:R:p:h")) != -1) {
        switch (c) {
        case 't':
            seconds = strtod(optarg, &end);
            if (*end || end == optarg || !(seconds > 0 && seconds <= MAX_SECONDS)) {
                fprintf(stderr, "crr_bare: -t '%s' must be a number of seconds in (0, 3600]\n",
                        optarg);
                return 2;
            }
            break;
        case 'r':
            req = parse_long(optarg, 1, MAX_MSG, 'r');
            break;
        case 'R':
            resp = parse_long(optarg, 1, MAX_MSG, 'R');
            break;
        case 'p':
            port = parse_long(optarg, 0, 65535, 'p');
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
    struct server srv = {.req = (size_t)req, .resp = (size_t)resp};
    srv.lfd = listen_loopback((unsigned)port, &sa);
    if (pthread_create(&srv.thread, NULL, server_main, &srv)) {
        fprintf(stderr, "crr_bare: cannot start the server thread\n");
        return 1;
    }

    uint64_t connections = 0, failures = 0;
    double t0 = now_s(), deadline = t0 + seconds, t1 = t0;
    while ((t1 = now_s()) < deadline) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            die("socket");
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
            send_all(fd, buf, (size_t)req) && recv_all(fd, buf, (size_t)resp)) {
            connections++;
        } else {
            failures++;
            /* Most likely every ephemeral port is in TIME_WAIT: let some expire. */
            struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};
            nanosleep(&pause, NULL);
        }
        close(fd);
    }

    atomic_store(&srv.stop, true);
    /* On Linux this wakes the accept() the server thread is blocked in. */
    shutdown(srv.lfd, SHUT_RDWR);
    pthread_join(srv.thread, NULL);
    close(srv.lfd);

    double window = t1 - t0;
    if (failures)
        fprintf(stderr, "crr_bare: %llu connections failed and are not counted\n",
                (unsigned long long)failures);
    printf("crr_bare: connections=%llu seconds=%.3f connections_per_second=%.0f\n",
           (unsigned long long)connections, window,
           window > 0 ? (double)connections / window : 0.0);
    return 0;
}
