/*
 * bare_paths: bench/bare's send paths and its io_uring receiver (see
 * bare_paths.h). Each loop makes the system calls of netab's path of the
 * same name (src/lib/engine/path_tx.c, uring.c) with the same depths, and
 * keeps no figures but a few counters.
 */
#include "bare_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <liburing.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif
/* Linux 6.2's, newer than the liburing this may build with. */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

/* netab's depths: PATH_TX_ZC_SLOTS blocks for MSG_ZEROCOPY, PATH_URING_DEPTH operations. */
#define ZC_SLOTS 16
#define URING_DEPTH 4
/* How long the end waits for the kernel's last zero-copy completions. */
#define DRAIN_MS 5000

static const char *const names[] = {"copy",         "sendfile", "splice",
                                    "msg-zerocopy", "io-uring", "io-uring-zc"};

int bare_path_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(name, names[i]))
            return (int)i;
    return -1;
}

const char *bare_path_name(enum bare_path path)
{
    return names[path];
}

static bool stopped(const atomic_bool *stop)
{
    return atomic_load_explicit(stop, memory_order_relaxed);
}

static int send_copy(int fd, const char *buf, size_t block, const atomic_bool *stop,
                     struct bare_path_stats *st)
{
    while (!stopped(stop)) {
        if (send(fd, buf, block, 0) < 0)
            return errno;
        st->calls++;
    }
    return 0;
}

/* A memfd holding one block: what sendfile and splice read from. -1 with errno. */
static int block_memfd(const char *buf, size_t block)
{
    int fd = memfd_create("bare", MFD_CLOEXEC);
    for (size_t done = 0; fd >= 0 && done < block;) {
        ssize_t n = write(fd, buf + done, block - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    return fd;
}

static int send_sendfile(int fd, int memfd, size_t block, const atomic_bool *stop,
                         struct bare_path_stats *st)
{
    while (!stopped(stop)) {
        off_t off = 0;
        if (sendfile(fd, memfd, &off, block) < 0)
            return errno;
        st->calls++;
    }
    return 0;
}

/* The block into a pipe sized to it (where fs.pipe-max-size allows), then the pipe into fd. */
static int send_splice(int fd, int memfd, size_t block, const atomic_bool *stop,
                       struct bare_path_stats *st)
{
    int p[2], err = 0;
    if (pipe2(p, O_CLOEXEC))
        return errno;
    (void)fcntl(p[1], F_SETPIPE_SZ, (int)block);
    int size = fcntl(p[1], F_GETPIPE_SZ);
    size_t want = size > 0 && (size_t)size < block ? (size_t)size : block;
    while (!err && !stopped(stop)) {
        loff_t off = 0;
        ssize_t in = splice(memfd, &off, p[1], NULL, want, SPLICE_F_MOVE);
        if (in <= 0) {
            err = in < 0 ? errno : EIO;
            break;
        }
        for (ssize_t moved = 0; moved < in;) {
            ssize_t n = splice(p[0], NULL, fd, NULL, (size_t)(in - moved), SPLICE_F_MOVE);
            if (n <= 0) {
                err = n < 0 ? errno : EIO;
                break;
            }
            moved += n;
        }
        st->calls++;
    }
    close(p[0]);
    close(p[1]);
    return err;
}

/* MSG_ZEROCOPY's ring: which blocks the kernel still holds, and by which send id. */
struct zc_ring {
    char *mem;
    uint32_t id[ZC_SLOTS], next_id;
    bool busy[ZC_SLOTS];
    int inflight;
};

/* Reads the completions on the error queue without waiting. 0 or errno. */
static int zc_reap(int fd, struct zc_ring *r, struct bare_path_stats *st)
{
    for (;;) {
        char control[128];
        struct msghdr msg = {.msg_control = control, .msg_controllen = sizeof(control)};
        if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : errno;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_IP || c->cmsg_type != IP_RECVERR)
                continue;
            const struct sock_extended_err *e = (const void *)CMSG_DATA(c);
            if (e->ee_errno != 0 || e->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
                continue;
            uint32_t lo = e->ee_info, hi = e->ee_data;
            st->zc_completions += hi - lo + 1;
            if (e->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
                st->zc_copied += hi - lo + 1;
            for (int i = 0; i < ZC_SLOTS; i++)
                if (r->busy[i] && r->id[i] - lo <= hi - lo) {
                    r->busy[i] = false;
                    r->inflight--;
                }
        }
    }
}

/* Waits up to ms for the error queue to have something (POLLERR), then reads it. */
static int zc_wait(int fd, struct zc_ring *r, struct bare_path_stats *st, int ms)
{
    struct pollfd pfd = {.fd = fd, .events = 0};
    int before = r->inflight, err = 0, soerr = 0;
    socklen_t len = sizeof(soerr);
    if (poll(&pfd, 1, ms) == 0)
        return ETIMEDOUT;
    if ((err = zc_reap(fd, r, st)))
        return err;
    /* POLLERR without a completion is the connection's own error: none will come. */
    if (r->inflight == before && !getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) && soerr)
        return soerr;
    return 0;
}

static int send_msg_zerocopy(int fd, const char *buf, size_t block, const atomic_bool *stop,
                             struct bare_path_stats *st)
{
    int one = 1, err = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
        return errno;
    struct zc_ring r = {.mem = malloc(ZC_SLOTS * block)};
    if (!r.mem)
        return ENOMEM;
    for (int i = 0; i < ZC_SLOTS; i++)
        memcpy(r.mem + (size_t)i * block, buf, block);
    while (!err && !stopped(stop)) {
        int slot = (int)(r.next_id % ZC_SLOTS);
        /* A block is sent again only once the kernel is done with its last send. */
        err = zc_reap(fd, &r, st);
        while (!err && r.busy[slot])
            err = zc_wait(fd, &r, st, DRAIN_MS);
        if (err)
            break;
        if (send(fd, r.mem + (size_t)slot * block, block, MSG_ZEROCOPY) >= 0) {
            r.busy[slot] = true;
            r.id[slot] = r.next_id++;
            r.inflight++;
            st->calls++;
        } else if (errno == ENOBUFS && r.inflight > 0) {
            /* optmem_max holds the notifications: wait for one and send again. */
            err = zc_wait(fd, &r, st, DRAIN_MS);
        } else {
            err = errno;
        }
    }
    while (r.inflight > 0 && !zc_wait(fd, &r, st, DRAIN_MS))
        ;
    free(r.mem);
    return err;
}

/* io_uring sends of the one buffer, URING_DEPTH in flight, until the stop and all are done. */
static int uring_send(struct io_uring *ring, int fd, const char *buf, size_t block, bool zc,
                      const atomic_bool *stop, struct bare_path_stats *st)
{
    int inflight = 0, notifs = 0, err = 0;
    for (;;) {
        while (!err && !stopped(stop) && inflight < URING_DEPTH) {
            struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
            if (!sqe)
                break;
            if (zc)
                io_uring_prep_send_zc(sqe, fd, buf, block, MSG_NOSIGNAL,
                                      IORING_SEND_ZC_REPORT_USAGE);
            else
                io_uring_prep_send(sqe, fd, buf, block, MSG_NOSIGNAL);
            inflight++;
        }
        if (!inflight && !notifs)
            return err;
        int rc = io_uring_submit_and_wait(ring, 1);
        if (rc < 0 && rc != -EINTR)
            return -rc;
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(ring, head, cqe)
        {
            seen++;
            if (cqe->flags & IORING_CQE_F_NOTIF) {
                /* The buffer is the kernel's until this notification: it says whether it copied. */
                notifs--;
                st->zc_completions++;
                st->zc_copied += (cqe->res & IORING_NOTIF_USAGE_ZC_COPIED) != 0;
                continue;
            }
            notifs += (cqe->flags & IORING_CQE_F_MORE) != 0;
            inflight--;
            if (cqe->res > 0)
                st->calls++;
            else if (!err && cqe->res != -EINTR && cqe->res != -EAGAIN)
                err = cqe->res < 0 ? -cqe->res : EPIPE;
        }
        io_uring_cq_advance(ring, seen);
    }
}

int bare_path_send(enum bare_path path, int fd, const char *buf, size_t block,
                   const atomic_bool *stop, struct bare_path_stats *st)
{
    int err, memfd;
    struct io_uring ring;
    switch (path) {
    case BARE_SENDFILE:
    case BARE_SPLICE:
        if ((memfd = block_memfd(buf, block)) < 0)
            return errno;
        err = path == BARE_SENDFILE ? send_sendfile(fd, memfd, block, stop, st)
                                    : send_splice(fd, memfd, block, stop, st);
        close(memfd);
        return err;
    case BARE_MSG_ZEROCOPY:
        return send_msg_zerocopy(fd, buf, block, stop, st);
    case BARE_IO_URING:
    case BARE_IO_URING_ZC:
        /* Room for every send in flight and its notification, as netab's ring. */
        if ((err = io_uring_queue_init(4 * URING_DEPTH, &ring, 0)) < 0)
            return -err;
        err = uring_send(&ring, fd, buf, block, path == BARE_IO_URING_ZC, stop, st);
        io_uring_queue_exit(&ring);
        return err;
    case BARE_COPY:
    default:
        return send_copy(fd, buf, block, stop, st);
    }
}

int bare_path_uring_recv(int fd, char *buf, size_t len, int flags, _Atomic uint64_t *received)
{
    struct io_uring ring;
    int rc = io_uring_queue_init(4 * URING_DEPTH, &ring, 0), inflight = 0, err = 0;
    if (rc < 0)
        return -rc;
    uint64_t total = 0;
    bool eof = false;
    for (;;) {
        struct io_uring_sqe *sqe;
        /* The receives share one buffer: what they read is discarded, only counted. */
        while (!eof && inflight < URING_DEPTH && (sqe = io_uring_get_sqe(&ring))) {
            io_uring_prep_recv(sqe, fd, buf, len, flags);
            inflight++;
        }
        if (!inflight)
            break;
        rc = io_uring_submit_and_wait(&ring, 1);
        if (rc < 0 && rc != -EINTR) {
            err = -rc;
            break;
        }
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe)
        {
            seen++;
            inflight--;
            if (cqe->res > 0) {
                total += (uint64_t)cqe->res;
                atomic_store_explicit(received, total, memory_order_relaxed);
            } else if (cqe->res == 0) {
                eof = true; /* end-of-stream: the receives still in flight end the same */
            } else if (cqe->res != -EINTR && cqe->res != -EAGAIN) {
                eof = true;
                err = err ? err : -cqe->res;
            }
        }
        io_uring_cq_advance(&ring, seen);
    }
    io_uring_queue_exit(&ring);
    return err;
}
