/* TCP_INFO figures for one connected TCP socket. */
#include "measure/tcpinfo.h"

#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* The kernel's tcp_info for fd, zeroed first (an older kernel fills less); -1 with errno. */
static int read_tcp_info(int fd, struct tcp_info *ti)
{
    socklen_t len = sizeof(*ti);
    memset(ti, 0, sizeof(*ti));
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len);
}

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
    if (!out)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    if (read_tcp_info(fd, &ti))
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

/* tcpi_state's values (the kernel's include/net/tcp_states.h; linux/tcp.h has none). */
enum { STATE_FIN_WAIT2 = 5, STATE_TIME_WAIT = 6, STATE_CLOSE = 7 };

bool tcpinfo_acked(int fd)
{
    struct tcp_info ti;
    if (read_tcp_info(fd, &ti))
        return true;
    return ti.tcpi_state == STATE_FIN_WAIT2 || ti.tcpi_state == STATE_TIME_WAIT ||
           ti.tcpi_state == STATE_CLOSE;
}

/*
 * One getsockopt. The in-flight count is the kernel's own
 * tcp_packets_in_flight(): sent and not acknowledged, less what SACK or
 * loss detection took out of the network, plus what was sent again.
 */
int tcpinfo_sample(int fd, struct tcpinfo_sample *out)
{
    struct tcp_info ti;
    memset(out, 0, sizeof(*out));
    if (read_tcp_info(fd, &ti))
        return -errno;
    out->total_retrans = ti.tcpi_total_retrans;
    out->reord_seen = ti.tcpi_reord_seen;
    out->lost = ti.tcpi_lost;
    uint32_t gone = ti.tcpi_sacked + ti.tcpi_lost;
    out->in_flight = (ti.tcpi_unacked > gone ? ti.tcpi_unacked - gone : 0) + ti.tcpi_retrans;
    out->snd_cwnd = ti.tcpi_snd_cwnd;
    out->snd_mss = ti.tcpi_snd_mss;
    out->rtt_us = ti.tcpi_rtt;
    out->rttvar_us = ti.tcpi_rttvar;
    out->notsent_bytes = ti.tcpi_notsent_bytes;
    out->delivery_rate = ti.tcpi_delivery_rate;
    out->pacing_rate = ti.tcpi_pacing_rate;
    return 0;
}
