/*
 * Setting up the data path of tests that do not use "NDAT" TCP connections:
 * per-stream UDP sockets with a registration handshake, and the listener of
 * a tcp_crr test. Both ends derive addresses from the control connection,
 * so the data goes exactly where the control connection goes, and the
 * server sends UDP only to the client that registered over that path.
 */
#ifndef NETAB_PROTO_TRANSPORT_H
#define NETAB_PROTO_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto/datahdr.h"
#include "util/err.h"

/*
 * Server: opens n UDP sockets on the control connection's local address,
 * ephemeral ports. fds and ports receive them. Returns 0 or -errno.
 */
NB_MUST_CHECK int transport_udp_open(int ctl_fd, int n, int *fds, uint16_t *ports, uint32_t sockbuf,
                                     bool kernel_default, char *err, size_t errlen);

/*
 * Server: waits until every socket got a registration with the test's cookie
 * from the control peer's host; peers[i] receives the client's address for
 * stream i. Other datagrams are ignored. Returns 0 or -ETIMEDOUT.
 */
NB_MUST_CHECK int transport_udp_await(int ctl_fd, const int *fds, int n,
                                      const uint8_t cookie[TEST_COOKIE_LEN],
                                      struct sockaddr_storage *peers, socklen_t *peer_lens,
                                      uint64_t deadline_ns, char *err, size_t errlen);

/*
 * Client: n UDP sockets connected to the server's host (as seen on ctl_fd),
 * ports[i]. bind_addr (-B, may be NULL) and cport (--cport, 0 = any) fix the
 * local end: socket i binds cport + i. sockbuf (-w, 0 = netab's 4 MiB) sizes
 * the buffers; kernel_default (--udp-default-buffers) keeps the kernel's
 * default instead of the 4 MiB request when sockbuf is 0 (docs/udp.md).
 */
NB_MUST_CHECK int transport_udp_connect(int ctl_fd, int n, const uint16_t *ports, int *fds,
                                        const char *bind_addr, uint16_t cport, uint32_t sockbuf,
                                        bool kernel_default, char *err, size_t errlen);

/* Client: sends one registration datagram on each socket (repeat until "ready"). */
void transport_udp_register(const int *fds, int n, const uint8_t cookie[TEST_COOKIE_LEN]);

/* Server: a TCP listener for tcp_crr on the control connection's local address. */
NB_MUST_CHECK int transport_crr_listen(int ctl_fd, uint16_t *port, char *err, size_t errlen);

/* Client: the server's address as seen on ctl_fd, with another port. */
int transport_peer_with_port(int ctl_fd, uint16_t port, struct sockaddr_storage *out,
                             socklen_t *len);

#endif
