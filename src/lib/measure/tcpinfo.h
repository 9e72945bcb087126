/* TCP_INFO figures for one connected TCP socket. */
#ifndef NETAB_MEASURE_TCPINFO_H
#define NETAB_MEASURE_TCPINFO_H

#include <stdbool.h>
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

/*
 * Whether fd's sender has nothing left to send again: after shutdown(SHUT_WR),
 * the peer acknowledged everything, the FIN included (FIN_WAIT2, TIME_WAIT,
 * CLOSE), or the socket is gone (getsockopt fails). Until then the kernel
 * may still retransmit the last round trip's losses.
 */
bool tcpinfo_acked(int fd);

/*
 * A connection's congestion state at one moment, for the interval reports:
 * gauges (cwnd, RTT, lost, in flight, not sent, rates) and counters since
 * the connection began (total_retrans, reord_seen) that the caller turns
 * into counts over an interval. Fields a kernel does not have stay zero
 * (reord_seen 4.19, delivery_rate 4.9, notsent_bytes 4.6).
 */
struct tcpinfo_sample {
    uint32_t total_retrans; /* segments retransmitted since the connection began */
    uint32_t reord_seen;    /* reordering events since the connection began */
    uint32_t lost;          /* segments the sender holds as lost now */
    uint32_t in_flight;     /* segments: unacked - sacked - lost + retransmitted */
    uint32_t snd_cwnd;      /* segments */
    uint32_t snd_mss;
    uint32_t rtt_us, rttvar_us;
    uint32_t notsent_bytes;
    uint64_t delivery_rate; /* bytes per second, the kernel's estimate */
    uint64_t pacing_rate;   /* bytes per second; UINT64_MAX = not limited */
};

/* Reads fd's TCP_INFO into out. Returns 0 or -errno (then out is zeroed). */
int tcpinfo_sample(int fd, struct tcpinfo_sample *out);

#endif
