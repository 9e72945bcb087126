/* TCP socket set-up with real error messages (redis anet.c style). */
#ifndef NETAB_UTIL_SOCK_H
#define NETAB_UTIL_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util/err.h"

/*
 * Opens a listening TCP socket on addr (NULL or "" = any) and port (0 =
 * ephemeral), family AF_INET, AF_INET6 or AF_UNSPEC (IPv6 dual-stack when
 * addr is NULL, else whatever addr resolves to). Returns the fd or -errno;
 * *bound_port receives the port actually bound.
 */
NB_MUST_CHECK int sock_listen(const char *addr, uint16_t port, int family, uint16_t *bound_port,
                              char *err, size_t errlen);

/*
 * Connects to host:port within timeout_ms. bind_addr (may be NULL) and
 * bind_port (0 = kernel's choice) fix the local end. Returns fd or -errno.
 */
NB_MUST_CHECK int sock_connect(const char *host, uint16_t port, int family, const char *bind_addr,
                               uint16_t bind_port, int timeout_ms, char *err, size_t errlen);

/* Formats the peer of fd as "addr:port" (IPv6 as "[addr]:port"). */
void sock_peer_name(int fd, char *buf, size_t len);

/* Same for a sockaddr. */
void sock_addr_name(const struct sockaddr *sa, char *buf, size_t len);

/* Sets SO_RCVTIMEO and SO_SNDTIMEO to ms milliseconds. Returns 0 or -errno. */
NB_MUST_CHECK int sock_set_timeouts(int fd, int ms);

/*
 * Makes a TCP connection notice a vanished peer within about timeout_ms:
 * TCP_USER_TIMEOUT bounds how long sent data may stay unacknowledged, and
 * keepalive probes (after 1 s idle, every 1 s) give an idle connection data
 * to time out on. Returns 0 or -errno.
 */
NB_MUST_CHECK int sock_set_liveness(int fd, int timeout_ms);

/*
 * Makes fd a control connection's socket: TCP_NODELAY, so that a short
 * message (a state, a heartbeat, a stop) leaves at once instead of waiting
 * behind Nagle's algorithm for the peer's delayed ACK (~40 ms), while data
 * may already flow on the test's other sockets. Returns 0 or -errno.
 */
NB_MUST_CHECK int sock_set_control(int fd);

#endif
