/*
 * The congestion state per interval (issue 32): at each interval's end the
 * client's control thread reads TCP_INFO of each of its TCP connections
 * (one getsockopt each, beside the data threads, never in their loops) and
 * turns it into the interval's struct interval_tcp figures, per connection
 * and summed. The sockets are the stream set's from stream_set_init()
 * until stream_set_free(), which comes after the last interval: a stream
 * whose thread has ended keeps its socket open until then.
 *
 * NETAB_NO_TCPINFO=1 in the environment switches the reading off (the
 * interval reports then carry no TCP figures): bench/counters_cost.py
 * measures what the reading costs with it.
 */
#ifndef NETAB_ENGINE_INTERVAL_TCP_H
#define NETAB_ENGINE_INTERVAL_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/params.h"
#include "engine/run_result.h"
#include "engine/stream_set.h"

/* Each connection's counters at the previous interval's end. */
struct interval_tcp_state {
    bool on;
    uint32_t *retrans, *reord; /* [set->n] */
};

/*
 * True when a test of p's kind has TCP connections of its own at the
 * client to read (tcp_stream, tcp_rr), the reading is not switched off,
 * and its connections at its -i fit the reading's budget (--flows: about
 * 10,000 reads a second; interval_tcp.c).
 */
bool interval_tcp_wanted(const struct test_params *p);

/*
 * Starts the bookkeeping as the measurement window opens. With a warm-up
 * (-O) the counters are taken now, so that the first interval counts from
 * the window's opening; without one they count from the connections'
 * beginning, as the end's TCP_INFO does (docs/json.md). Without memory,
 * or when !interval_tcp_wanted(), the state stays off.
 */
void interval_tcp_begin(struct interval_tcp_state *st, struct stream_set *set);

/* Fills iv's TCP figures (have_tcp, tcp, tcp_streams) from the connections as they are now. */
void interval_tcp_take(struct interval_tcp_state *st, struct stream_set *set,
                       struct interval_report *iv);

void interval_tcp_free(struct interval_tcp_state *st);

#endif
