/*
 * Many flows over a few event loops (issue 30, `--flows F --threads T`): a
 * stream set whose params ask for flows runs its F streams (one connection
 * each, the same struct stream, so windows, side reports and totals treat
 * them as any stream) on T threads per end, each thread one util/evloop
 * over its share of the connections, instead of a thread per stream. The
 * stream set (stream_set.c) calls these when set->params.flows is set.
 *
 * tcp_rr: each client flow keeps one request in flight; a flow that meets
 * the stop finishes its transaction and shuts its write side, and the
 * server's flow ends at that end of stream. A connection that fails is
 * counted by kind in its stream's errors (refused, reset, timeout) as data,
 * not a failure of the test. Latency goes into each flow's sparse
 * histogram (measure/flowhist.h) from the window's opening (start + -O).
 */
#ifndef NETAB_ENGINE_FLOWS_H
#define NETAB_ENGINE_FLOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/stream_set.h"
#include "util/err.h"

/* Event-loop threads per end when --threads is not given: the CPUs of this process's affinity. */
int flows_default_threads(void);

/* Allocates a flow's accounting (its sparse latency histogram). Returns 0 or -ENOMEM. */
NB_MUST_CHECK int flows_prepare(struct stream *s);

/* The memory the flows of stream_set_memory() cost: per flow, and a buffer per thread. */
uint64_t flows_memory(const struct test_params *p, int n, bool is_server);

/* Starts the threads. Returns 0 or -errno with a sentence in err (then none runs). */
NB_MUST_CHECK int flows_start(struct stream_set *set, char *err, size_t errlen);

/* Wakes every thread (after the stop or the abort). */
void flows_wake(struct stream_set *set);

/* stream_set_finish() for flows: joins by deadline_ns, then aborts. Returns 0 or -ETIMEDOUT. */
int flows_finish(struct stream_set *set, uint64_t deadline_ns);

/* Aborts what still runs, joins and frees the threads (the streams stay the set's). */
void flows_free(struct stream_set *set);

/*
 * Makes room for fds more open files in this process: raises RLIMIT_NOFILE's
 * soft limit up to the hard one as needed. Returns 0, or -EMFILE with a
 * sentence naming the numbers (what is needed, the hard limit, and how many
 * flows fit) when they cannot fit; per_flow is the fds each flow costs this
 * process (2 on loopback, where both ends are here).
 */
NB_MUST_CHECK int flows_reserve_fds(int flows, int per_flow, char *err, size_t errlen);

/* Each rr client flow's p99 latency in microseconds into out[i] (0 without transactions). */
void flows_p99(const struct stream_set *set, double *out);

#endif
