#include "engine/udp_gro.h"

#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <time.h>

void udp_gro_walk_cmsgs(struct msghdr *mh, uint64_t *kernel_ns, int *gso_size)
{
    *kernel_ns = 0;
    *gso_size = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            *kernel_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
                   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            memcpy(gso_size, CMSG_DATA(c), sizeof(int));
        }
    }
}
