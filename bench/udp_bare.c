/*
 * udp_bare: the ceiling of unpaced UDP on this host, for netab and its peers.
 *
 * One sender thread sends SIZE-byte datagrams to 127.0.0.1 in batches of 64
 * with sendmmsg(), one receiver thread takes them in batches with recvmmsg(),
 * both sockets with 4 MiB buffers (what netab requests for UDP): no pacing,
 * no sequence numbers, no timestamps, no control connection. Whatever netab
 * loses against this is its own overhead. It prints one line:
 *
 *     udp_bare: size=S datagrams=N bytes=B seconds=T bits_per_second=X sent=M
 *
 * where N and B count what the receiver got within the T-second window.
 *
 * With -n COUNT the sender stops after COUNT datagrams instead, the receiver
 * counts every datagram from the start and the run ends once it has been
 * silent for 200 ms: a fixed amount of work, for counting instructions per
 * datagram (bench/instructions.py runs it under callgrind).
 *
 * With -T the receiver asks the kernel for what netab's receiver must have
 * to measure: each datagram's arrival time (SO_TIMESTAMPNS, for jitter) and
 * source address (to count datagrams from others), and does nothing with
 * them. The difference to the plain loop is the kernel's share of netab's
 * measuring, which no user-space work can remove. -S asks for the arrival
 * times only and -A for the source addresses only, to tell the two apart.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/resource.h>
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

#define BATCH 64
#define MAX_SIZE 65507
#define BUFFER (4 << 20)

static atomic_bool stop, counting;
static _Atomic uint64_t received, sent;
/* The receiver's whole-run CPU time and datagram count, for its cost per datagram. */
static uint64_t recv_cpu_ns, recv_total;
static size_t size = 1400;
static uint64_t quota; /* -n: datagrams to send, 0 = until stopped */
static bool want_time; /* -T or -S: arrival timestamps on the receiver */
static bool want_addr; /* -T or -A: source addresses on the receiver */
static int send_fd, recv_fd;

static void die(const char *what)
{
    fprintf(stderr, "udp_bare: %s: %s\n", what, strerror(errno));
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sender_main(void *arg)
{
    (void)arg;
    static char buf[BATCH][MAX_SIZE];
    struct mmsghdr m[BATCH];
    struct iovec iov[BATCH];
    memset(m, 0, sizeof(m));
    for (int i = 0; i < BATCH; i++) {
        iov[i] = (struct iovec){buf[i], size};
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
    }
    uint64_t done = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed) && (!quota || done < quota)) {
        unsigned want = quota && quota - done < BATCH ? (unsigned)(quota - done) : BATCH;
        int n = sendmmsg(send_fd, m, want, 0);
        if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
            die("sendmmsg");
        if (n > 0) {
            done += (uint64_t)n;
            atomic_fetch_add_explicit(&sent, (uint64_t)n, memory_order_relaxed);
        }
    }
    return NULL;
}

static void *receiver_main(void *arg)
{
    (void)arg;
    static char buf[BATCH][MAX_SIZE];
    static struct sockaddr_storage from[BATCH];
    static char ctl[BATCH][CMSG_SPACE(sizeof(struct timespec))];
    struct mmsghdr m[BATCH];
    struct iovec iov[BATCH];
    memset(m, 0, sizeof(m));
    for (int i = 0; i < BATCH; i++) {
        iov[i] = (struct iovec){buf[i], MAX_SIZE};
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
    }
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        for (int i = 0; want_addr && i < BATCH; i++) {
            m[i].msg_hdr.msg_name = &from[i];
            m[i].msg_hdr.msg_namelen = sizeof(from[i]);
        }
        for (int i = 0; want_time && i < BATCH; i++) {
            m[i].msg_hdr.msg_control = ctl[i];
            m[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
        }
        int n = recvmmsg(recv_fd, m, BATCH, 0, NULL);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            die("recvmmsg");
        if (n > 0)
            recv_total += (uint64_t)n;
        if (n > 0 && atomic_load_explicit(&counting, memory_order_relaxed))
            atomic_fetch_add_explicit(&received, (uint64_t)n, memory_order_relaxed);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        recv_cpu_ns =
            ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
            ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
    return NULL;
}

static int udp_socket(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0), b = BUFFER;
    if (fd < 0)
        die("socket");
    /* SO_*BUFFORCE as root passes the sysctl caps, as netab's request does where permitted. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &b, sizeof(b)))
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &b, sizeof(b));
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &b, sizeof(b)))
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &b, sizeof(b));
    /* Blocked calls wake up to see the stop flag. */
    struct timeval tv = {0, 100000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return fd;
}

int main(int argc, char **argv)
{
    double seconds = 5;
    int c;
    while ((c = getopt(argc, argv, "t:l:n:TSAh")) != -1) {
        switch (c) {
        case 't':
            seconds = atof(optarg);
            break;
        case 'l':
            size = (size_t)atol(optarg);
            break;
        case 'n':
            if ((quota = strtoull(optarg, NULL, 10)) == 0) {
                fprintf(stderr, "udp_bare: -n must be a positive count\n");
                return 2;
            }
            break;
        case 'T':
            want_time = want_addr = true;
            break;
        case 'S':
            want_time = true;
            break;
        case 'A':
            want_addr = true;
            break;
        default:
            fprintf(c == 'h' ? stdout : stderr,
                    "usage: udp_bare [-t SECONDS] [-l SIZE] [-n COUNT] [-T | -S | -A]\n"
                    "  -t SECONDS  length of the run (default 5, at most 3600)\n"
                    "  -l SIZE     datagram size, 1..65507 (default 1400)\n"
                    "  -n COUNT    send COUNT datagrams, then stop once the receiver is idle\n"
                    "  -T          receive arrival times and source addresses, as netab must\n"
                    "  -S          receive arrival times only\n"
                    "  -A          receive source addresses only\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (!(seconds > 0 && seconds <= 3600) || size < 1 || size > MAX_SIZE) {
        fprintf(stderr, "udp_bare: -t must be in (0, 3600] and -l in 1..65507\n");
        return 2;
    }
    recv_fd = udp_socket();
    int one = 1;
    if (want_time && setsockopt(recv_fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
        die("SO_TIMESTAMPNS");
    send_fd = udp_socket();
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (bind(recv_fd, (struct sockaddr *)&a, sizeof(a)) ||
        getsockname(recv_fd, (struct sockaddr *)&a, &len) ||
        connect(send_fd, (struct sockaddr *)&a, sizeof(a)))
        die("bind/connect");
    pthread_t s, r;
    atomic_store(&counting, quota > 0);
    if (pthread_create(&r, NULL, receiver_main, NULL) ||
        pthread_create(&s, NULL, sender_main, NULL))
        die("pthread_create");
    double t0 = now_s();
    if (quota) {
        /* A fixed amount of work: counted from the start, ended when the receiver falls silent. */
        uint64_t last = UINT64_MAX;
        while (atomic_load(&sent) < quota || atomic_load(&received) != last) {
            last = atomic_load(&received);
            usleep(200000);
            if (now_s() - t0 > 3600)
                break;
        }
    } else {
        /* As netab's window: counting starts once both threads run, and ends after SECONDS. */
        usleep(100000);
        t0 = now_s();
        atomic_store(&counting, true);
        while (now_s() - t0 < seconds)
            usleep(10000);
    }
    atomic_store(&counting, false);
    double t = now_s() - t0;
    uint64_t n = atomic_load(&received);
    atomic_store(&stop, true);
    pthread_join(s, NULL);
    pthread_join(r, NULL);
    printf("udp_bare: size=%zu datagrams=%llu bytes=%llu seconds=%.6f bits_per_second=%.0f "
           "sent=%llu recv_cpu_ns_per_datagram=%.1f\n",
           size, (unsigned long long)n, (unsigned long long)(n * size), t, n * size * 8 / t,
           (unsigned long long)atomic_load(&sent),
           recv_total ? (double)recv_cpu_ns / (double)recv_total : 0.0);
    return 0;
}
