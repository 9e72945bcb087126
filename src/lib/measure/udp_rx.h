/*
 * Everything a UDP receiver measures for one stream: unique datagrams,
 * duplicates and reordering (udp_seq), jitter (jitter), and bytes. Single
 * writer (the stream's thread); read the totals after it has finished.
 */
#ifndef NETAB_MEASURE_UDP_RX_H
#define NETAB_MEASURE_UDP_RX_H

#include <stddef.h>
#include <stdint.h>

#include "measure/jitter.h"
#include "measure/udp_seq.h"

/*
 * Visible only so that udp_rx_record() can be inline (it runs for every
 * datagram); use the functions below, not the members.
 */
struct udp_rx {
    struct udp_seq seq;
    struct jitter jitter;
    uint64_t bytes;
};

struct udp_rx_totals {
    uint64_t packets; /* unique datagrams received */
    uint64_t bytes;   /* payload bytes of the unique datagrams */
    uint64_t duplicates, out_of_order, too_late;
    uint64_t next;             /* highest sequence number seen + 1; 0 if none */
    double jitter_ms;          /* RFC 3550 filter, as iperf reports it */
    double jitter_mean_abs_ms; /* mean |D| over the whole test */
    double jitter_p99_abs_ms;  /* 99th percentile of |D| over the whole test */
};

/* Allocates a receiver's accounting. Caller owns it; NULL when out of memory. */
struct udp_rx *udp_rx_new(void);
void udp_rx_free(struct udp_rx *rx);

/* The bytes one udp_rx_new() allocates (for memory budgets). */
size_t udp_rx_size(void);

/*
 * Records one datagram of len bytes. send_ns is the sender's timestamp and
 * arrival_ns the receiver's; only differences of their differences are used,
 * so the two clocks need not agree.
 */
static inline void udp_rx_record(struct udp_rx *rx, uint64_t seq, uint64_t send_ns,
                                 uint64_t arrival_ns, uint64_t len)
{
    /* Only datagrams seen for the first time count towards bytes and jitter. */
    if (udp_seq_record(&rx->seq, seq)) {
        rx->bytes += len;
        jitter_record(&rx->jitter, (int64_t)send_ns, (int64_t)arrival_ns);
    }
}

/* Unique datagrams so far. */
uint64_t udp_rx_unique(const struct udp_rx *rx);

void udp_rx_totals(const struct udp_rx *rx, struct udp_rx_totals *out);

#endif
