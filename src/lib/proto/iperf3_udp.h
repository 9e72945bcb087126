/*
 * iperf3's UDP stream set-up on the server side (docs/iperf3.md): each
 * stream's socket is bound to the test's own port, takes the client's
 * 4-byte hello, is connected to its sender and answered; the next stream's
 * socket is bound before the answer goes out, because the client sends the
 * next hello as soon as it has one. Datagrams of a connected stream reach
 * only its socket (the kernel prefers the connected match), so several
 * tests share the port; only the set-up phase is one at a time per process.
 */
#ifndef NETAB_PROTO_IPERF3_UDP_H
#define NETAB_PROTO_IPERF3_UDP_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Takes the process's UDP set-up turn, waiting until deadline_ns. Returns 0
 * or -ETIMEDOUT (another test's set-up held it too long).
 */
NB_MUST_CHECK int iperf3_udp_turn(uint64_t deadline_ns);
void iperf3_udp_turn_end(void);

/*
 * Opens the first stream's socket on ctl_fd's local address and port.
 * Returns the socket or -errno with a message.
 */
NB_MUST_CHECK int iperf3_udp_listen(int ctl_fd, uint32_t sockbuf, char *err, size_t errlen);

/*
 * Accepts n streams, the first on listener (which becomes fds[0]): each
 * waits for a datagram from the control peer's host (others are ignored)
 * until deadline_ns. fds[i] receives stream i's connected socket; on
 * failure the ones made so far are in fds (-1 elsewhere) for the caller to
 * close. Returns 0 or -errno with a message.
 */
NB_MUST_CHECK int iperf3_udp_accept(int ctl_fd, int listener, int n, uint32_t sockbuf, int *fds,
                                    uint64_t deadline_ns, char *err, size_t errlen);

#endif
