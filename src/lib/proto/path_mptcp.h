/*
 * --mptcp (issue 32): MPTCP data connections. The server's front door is a
 * plain TCP listener, which would answer an MPTCP SYN as TCP (a silent
 * fallback), so a --mptcp test gets a listener of its own, IPPROTO_MPTCP,
 * on the control connection's local address; its port travels in
 * "accept" as "mptcp_port" (docs/protocol.md). The data connections still
 * start with their NDAT header and attach to the test by its cookie. The
 * control connection stays TCP.
 */
#ifndef NETAB_PROTO_PATH_MPTCP_H
#define NETAB_PROTO_PATH_MPTCP_H

#include <stdint.h>

#include "engine/params.h"
#include "proto/registry.h"
#include "util/err.h"

/* Server: the test's MPTCP listener; returns its fd (port into *port) or -errno with err. */
NB_MUST_CHECK int path_mptcp_listen(int ctl_fd, uint16_t *port, char *err, size_t errlen);

/*
 * Server: accepts t's data connections on lfd, reads each one's header and
 * attaches it (registry_attach(); a connection that does not belong is
 * closed) until all arrived (0), deadline_ns passed (-ETIMEDOUT) or the
 * client closed ctl_fd (-ECONNRESET with err).
 */
NB_MUST_CHECK int path_mptcp_gather(struct registry *reg, struct pending_test *t, int lfd,
                                    int ctl_fd, uint64_t deadline_ns, char *err, size_t errlen);

/* Client: an MPTCP connection to the server's host (as ctl_fd sees it) on port, or -errno. */
NB_MUST_CHECK int path_mptcp_connect(int ctl_fd, uint16_t port, int timeout_ms, char *err,
                                     size_t errlen);

/*
 * sock_set_liveness() for a data connection of p: an MPTCP socket takes
 * the keepalives but not TCP_USER_TIMEOUT (ENOPROTOOPT, the last one set),
 * so there the keepalives alone show a vanished peer.
 */
NB_MUST_CHECK int path_mptcp_liveness(int fd, const struct test_params *p, int timeout_ms);

#endif
