/*
 * What one receive returns on a UDP socket with UDP_GRO (--gro): the kernel
 * may glue several datagrams of one flow into one buffer, every one of them
 * gso_size bytes but the last (which may be shorter), and says so with a
 * UDP_GRO control message carrying gso_size. Without that message the
 * buffer is one datagram. Pure functions, so the splitting is tested
 * without a kernel that coalesces.
 */
#ifndef NETAB_ENGINE_UDP_GRO_H
#define NETAB_ENGINE_UDP_GRO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* udp_gro_read_cmsgs() by walking every control message, in any order. */
void udp_gro_walk_cmsgs(struct msghdr *mh, uint64_t *kernel_ns, int *gso_size);

/*
 * Reads a received message's control messages: *kernel_ns gets the
 * SCM_TIMESTAMPNS arrival time in CLOCK_REALTIME nanoseconds (0 when there
 * is none), *gso_size the UDP_GRO segment size (0 when there is none).
 */
static inline void udp_gro_read_cmsgs(struct msghdr *mh, uint64_t *kernel_ns, int *gso_size)
{
    /*
     * Without GRO a receiver's only control message is the timestamp: it is
     * read where it must be instead of walking the list, inline, because
     * this runs for every datagram received.
     */
    struct cmsghdr *c = CMSG_FIRSTHDR(mh);
    if (c && mh->msg_controllen == CMSG_SPACE(sizeof(struct timespec)) &&
        c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
        c->cmsg_len == CMSG_LEN(sizeof(struct timespec))) {
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(c), sizeof(ts));
        *kernel_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        *gso_size = 0;
        return;
    }
    udp_gro_walk_cmsgs(mh, kernel_ns, gso_size);
}

/*
 * The length of the datagram that starts at off in a received buffer of len
 * bytes glued from gso_size-byte datagrams (gso_size <= 0: the buffer is one
 * datagram). 0 once off has reached len, so a loop
 *   for (off = 0; (n = udp_gro_next(len, off, gso)) > 0; off += n)
 * visits every datagram exactly once, the last one short if it is.
 */
static inline size_t udp_gro_next(size_t len, size_t off, int gso_size)
{
    /* Inline: a receiver calls it twice per datagram. */
    if (off >= len)
        return 0;
    size_t left = len - off;
    return gso_size > 0 && (size_t)gso_size < left ? (size_t)gso_size : left;
}

#endif
