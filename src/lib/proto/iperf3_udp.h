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
 * How long one test's UDP set-up may hold the process's turn waiting for
 * its streams' hellos, all of them together, from CREATE_STREAMS on (or the
 * idle timeout when that is shorter). The turn is server-wide, so a client
 * that asks for UDP and never says hello delays other iperf3 UDP tests by
 * this much at most, not by an idle timeout; its own test fails. A real
 * iperf3 client sends each hello as soon as the previous one is answered:
 * 128 streams take a few milliseconds on a LAN.
 */
#define IPERF3_UDP_HELLO_MS 2000

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
 * waits for a datagram from the control peer's host (others are ignored),
 * all of them within IPERF3_UDP_HELLO_MS and before deadline_ns. fds[i] receives stream i's
 * connected socket; on failure the ones made so far are in fds (-1 elsewhere) for the caller to
 * close. Returns 0 or -errno with a message.
 */
NB_MUST_CHECK int iperf3_udp_accept(int ctl_fd, int listener, int n, uint32_t sockbuf, int *fds,
                                    uint64_t deadline_ns, char *err, size_t errlen);

#endif
