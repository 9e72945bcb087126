/* TCP_INFO figures for one connected TCP socket. */
#include "measure/tcpinfo.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Fills *out from getsockopt(TCP_INFO). The kernel copies at most the size we
 * pass and fills what it knows, so an older kernel with a shorter struct
 * simply leaves later fields zero; all the fields used here are old (2.6).
 * Returns 0, or -errno (EBADF, ENOTSOCK, EOPNOTSUPP for non-TCP sockets) with
 * *out zeroed and valid = 0.
 */
int tcpinfo_read(int fd, struct tcpinfo_stats *out)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);

    if (!out)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
        return -errno;
    out->retransmits = ti.tcpi_total_retrans;
    out->rtt_us = ti.tcpi_rtt;
    out->rttvar_us = ti.tcpi_rttvar;
    out->snd_cwnd = ti.tcpi_snd_cwnd;
    out->snd_mss = ti.tcpi_snd_mss;
    out->pmtu = ti.tcpi_pmtu;
    out->valid = 1;
    return 0;
}
