/* TCP_INFO figures for one connected TCP socket. */
#ifndef NETAB_MEASURE_TCPINFO_H
#define NETAB_MEASURE_TCPINFO_H

#include <stdint.h>

struct tcpinfo_stats {
    uint32_t retransmits; /* tcpi_total_retrans */
    uint32_t rtt_us;      /* smoothed RTT */
    uint32_t rttvar_us;
    uint32_t snd_cwnd; /* segments */
    uint32_t snd_mss;
    uint32_t pmtu;
    int valid; /* 0 when getsockopt failed */
};

/* Reads TCP_INFO from fd; on failure returns -errno and leaves valid = 0. */
int tcpinfo_read(int fd, struct tcpinfo_stats *out);

#endif
