/*
 * Receive and socket paths (issue 32): their parameters, the kernel checks
 * made before a test and the record of what the kernel did (path_rx.h).
 */
#include "engine/path_rx.h"
#include "engine/path_tx_params.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <liburing.h>

#include "engine/stream_set.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif

bool path_rx_any(const struct test_params *p)
{
    return p->skip_rx_copy || p->busy_poll_us || p->mptcp || p->io_uring || p->ktls;
}

const char *path_rx_asked_name(const struct test_params *p)
{
    if (p->skip_rx_copy)
        return "--skip-rx-copy";
    if (p->busy_poll_us)
        return "--busy-poll";
    if (p->mptcp)
        return "--mptcp";
    if (p->io_uring)
        return p->io_uring == PATH_URING_ZC ? "--io-uring=zc" : "--io-uring";
    return "--ktls";
}

static const char *const uring_names[] = {"off", "plain", "zc"};

const char *path_rx_uring_name(int mode)
{
    return mode >= 0 && mode <= PATH_URING_ZC ? uring_names[mode] : "unknown";
}

int path_rx_uring_from_name(const char *name, int *mode)
{
    for (int i = 0; i <= PATH_URING_ZC; i++)
        if (!strcmp(name, uring_names[i])) {
            *mode = i;
            return 0;
        }
    return -EINVAL;
}

int path_rx_validate(const struct test_params *p, char *err, size_t errlen)
{
    if (p->busy_poll_us > PATH_RX_BUSY_POLL_MAX)
        return err_set(err, errlen, EINVAL, "busy poll %u us is out of range 0..%u",
                       p->busy_poll_us, PATH_RX_BUSY_POLL_MAX);
    if (p->io_uring < PATH_URING_OFF || p->io_uring > PATH_URING_ZC)
        return err_set(err, errlen, EINVAL, "io_uring mode %d is unknown", p->io_uring);
    if (!path_rx_any(p))
        return 0;
    if (p->kind != TEST_TCP_STREAM)
        return err_set(err, errlen, EINVAL, "%s applies to tcp_stream only, not %s",
                       path_rx_asked_name(p), params_kind_name(p->kind));
    /* The flow engine's loops are its own (engine/flows.h); the paths live in the stream's. */
    if (p->flows)
        return err_set(err, errlen, EINVAL,
                       "%s runs on the stream engine (-P), not with --flows yet",
                       path_rx_asked_name(p));
    /* io_uring's loop does its own sends: a send path or -b pacing would silently not apply. */
    if (p->io_uring && path_tx_params_used(&p->tx))
        return err_set(err, errlen, EINVAL,
                       "--io-uring sends through its own ring: not with %s (send path, issue 32)",
                       p->tx.mode != PATH_TX_COPY ? path_tx_mode_option(p->tx.mode)
                       : p->tx.pace_bps           ? "-b"
                       : p->tx.fq_rate_bps        ? "--fq-rate"
                                                  : "--notsent-lowat");
    return 0;
}

/*
 * --ktls: TCP_ULP "tls" on a TCP socket. ENOENT is the kernel's word for a
 * ULP it does not have (no CONFIG_TLS, or its module cannot be loaded);
 * any other answer (ENOTCONN on an unconnected socket) means it has one.
 * netab has no kTLS data path yet, so a kernel that has it is refused
 * too, saying so: the run never quietly goes without the path asked.
 */
static int check_ktls(char *err, size_t errlen)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set(err, errlen, errno, "--ktls: socket: %s", strerror(errno));
    int rc = setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", 3) ? errno : 0;
    close(fd);
    if (rc == ENOENT)
        return err_set(err, errlen, EOPNOTSUPP,
                       "--ktls: this kernel has no kTLS: setsockopt(TCP_ULP, \"tls\") fails "
                       "with ENOENT (CONFIG_TLS is not built or the tls module cannot be loaded; "
                       "see /proc/sys/net/ipv4/tcp_available_ulp)");
    return err_set(err, errlen, EOPNOTSUPP,
                   "--ktls: the kernel has the tls ULP, but netab has no kTLS data path yet");
}

/*
 * --mptcp: an IPPROTO_MPTCP socket; EPROTONOSUPPORT without CONFIG_MPTCP,
 * ENOPROTOOPT disabled. The send path's socket options must take on an
 * MPTCP socket too (the send path's own check tries a TCP socket, and MPTCP
 * refuses some, SO_MAX_PACING_RATE among them): refused here, before the run.
 */
static const char *mptcp_refuses(int fd, const struct path_tx_params *tx, int *e)
{
    int one = 1, lowat = (int)tx->notsent_lowat;
    uint64_t rate = tx->fq_rate_bps / 8;
    const char *opt = NULL;
    if (tx->mode == PATH_TX_MSG_ZEROCOPY &&
        setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
        opt = "--msg-zerocopy (SO_ZEROCOPY)";
    else if (tx->fq_rate_bps && setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)))
        opt = "--fq-rate (SO_MAX_PACING_RATE)";
    else if (tx->notsent_lowat &&
             setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat)))
        opt = "--notsent-lowat (TCP_NOTSENT_LOWAT)";
    *e = opt ? errno : 0;
    return opt;
}

static int check_mptcp(const struct path_tx_params *tx, char *err, size_t errlen)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (fd >= 0) {
        int e;
        const char *opt = mptcp_refuses(fd, tx, &e);
        close(fd);
        if (opt)
            return err_set(err, errlen, EOPNOTSUPP,
                           "--mptcp with %s: this kernel's MPTCP sockets refuse it: %s", opt,
                           strerror(e));
        return 0;
    }
    int e = errno;
    return err_set(
        err, errlen, EOPNOTSUPP,
        "--mptcp: this kernel has no MPTCP: socket(IPPROTO_MPTCP) fails: %s (%s)", strerror(e),
        e == ENOPROTOOPT ? "sysctl net.mptcp.enabled is 0" : "CONFIG_MPTCP is not built");
}

/* --io-uring: a ring can be set up, and has the operations the mode uses. */
static int check_uring(int mode, char *err, size_t errlen)
{
    struct io_uring ring;
    struct io_uring_params params = {0};
    int rc = io_uring_queue_init_params(4, &ring, &params);
    if (rc < 0)
        return err_set(err, errlen, EOPNOTSUPP,
                       "--io-uring: this kernel refuses io_uring_setup: %s (CONFIG_IO_URING, "
                       "sysctl kernel.io_uring_disabled)",
                       strerror(-rc));
    struct io_uring_probe *probe = io_uring_get_probe_ring(&ring);
    const char *missing = NULL;
    /*
     * Without IORING_FEAT_EXT_ARG liburing's timed wait queues a timeout SQE
     * whose completion the receive loop would take for a receive.
     */
    if (!(params.features & IORING_FEAT_EXT_ARG))
        missing = "IORING_FEAT_EXT_ARG (Linux 5.11), which netab's timed waits need";
    else if (!probe)
        missing = "IORING_REGISTER_PROBE (Linux 5.6)";
    else if (!io_uring_opcode_supported(probe, IORING_OP_SEND) ||
             !io_uring_opcode_supported(probe, IORING_OP_RECV))
        missing = "IORING_OP_SEND and IORING_OP_RECV (Linux 5.6)";
    else if (mode == PATH_URING_ZC && !io_uring_opcode_supported(probe, IORING_OP_SEND_ZC))
        missing = "IORING_OP_SEND_ZC (Linux 6.0)";
    if (probe)
        io_uring_free_probe(probe);
    io_uring_queue_exit(&ring);
    if (missing)
        return err_set(err, errlen, EOPNOTSUPP, "%s: this kernel's io_uring lacks %s",
                       mode == PATH_URING_ZC ? "--io-uring=zc" : "--io-uring", missing);
    return 0;
}

int path_rx_preflight(const struct test_params *p, char *err, size_t errlen)
{
    int rc = 0;
    if (p->ktls)
        rc = check_ktls(err, errlen);
    if (!rc && p->mptcp)
        rc = check_mptcp(&p->tx, err, errlen);
    if (!rc && p->io_uring)
        rc = check_uring(p->io_uring, err, errlen);
    /* MPTCP sockets do not offer zero-copy sends (SOCK_SUPPORT_ZC): the send fails EOPNOTSUPP. */
    if (!rc && p->mptcp && p->io_uring == PATH_URING_ZC)
        rc = err_set(err, errlen, EOPNOTSUPP,
                     "--io-uring=zc with --mptcp: the kernel's MPTCP sockets have no zero-copy "
                     "send (IORING_OP_SEND_ZC fails with EOPNOTSUPP)");
    /* --busy-poll: on a socket of the test's own kind, as the data connections will be set. */
    if (!rc && p->busy_poll_us) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, p->mptcp ? IPPROTO_MPTCP : 0);
        if (fd < 0)
            return err_set(err, errlen, errno, "--busy-poll: socket: %s", strerror(errno));
        rc = path_rx_sockopts(fd, p, err, errlen);
        close(fd);
    }
    return rc;
}

int path_rx_sockopts(int fd, const struct test_params *p, char *err, size_t errlen)
{
    if (!p->busy_poll_us)
        return 0;
    int v = (int)p->busy_poll_us;
    /* Raising it above net.core.busy_read takes CAP_NET_ADMIN: the kernel says EPERM. */
    if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v))) {
        int e = errno;
        return err_set(err, errlen, e, "--busy-poll %u: SO_BUSY_POLL refused: %s%s",
                       p->busy_poll_us, strerror(e),
                       e == EPERM ? " (above net.core.busy_read it needs CAP_NET_ADMIN)" : "");
    }
    /*
     * Preferring busy polling to softirq processing and a larger budget are
     * Linux 5.11's, and also need CAP_NET_ADMIN: where the kernel does not
     * take them the record says so (path_rx_side_json() reads them back).
     */
    int one = 1, budget = PATH_RX_BUSY_POLL_BUDGET;
    (void)!setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one));
    (void)!setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget));
    return 0;
}

int path_rx_recv_flags(const struct test_params *p)
{
    return p->skip_rx_copy ? MSG_TRUNC : 0;
}

void path_rx_params_to_json(const struct test_params *p, json_t *o)
{
    /* Only when set: a server before issue 32 refuses unknown keys, and plain runs keep working. */
    if (p->skip_rx_copy)
        json_object_set_new(o, "skip_rx_copy", json_true());
    if (p->busy_poll_us)
        json_object_set_new(o, "busy_poll_us", json_integer(p->busy_poll_us));
    if (p->mptcp)
        json_object_set_new(o, "mptcp", json_true());
    if (p->io_uring)
        json_object_set_new(o, "io_uring", json_string(path_rx_uring_name(p->io_uring)));
    if (p->ktls)
        json_object_set_new(o, "ktls", json_true());
}

static const char *const keys[] = {"skip_rx_copy", "busy_poll_us", "mptcp", "io_uring", "ktls"};

bool path_rx_key_known(const char *key)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

/* An optional boolean key: absent is false. */
static int opt_bool(const json_t *obj, const char *key, bool *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(obj, key);
    if (v && !json_is_boolean(v))
        return err_set(err, errlen, EINVAL, "test parameter \"%s\" is not a boolean", key);
    *out = json_is_true(v);
    return 0;
}

int path_rx_params_from_json(const json_t *obj, struct test_params *p, char *err, size_t errlen)
{
    int rc;
    if ((rc = opt_bool(obj, "skip_rx_copy", &p->skip_rx_copy, err, errlen)) ||
        (rc = opt_bool(obj, "mptcp", &p->mptcp, err, errlen)) ||
        (rc = opt_bool(obj, "ktls", &p->ktls, err, errlen)))
        return rc;
    const json_t *bp = json_object_get(obj, "busy_poll_us");
    if (bp && (!json_is_integer(bp) || json_integer_value(bp) < 1 ||
               json_integer_value(bp) > PATH_RX_BUSY_POLL_MAX))
        return err_set(err, errlen, EINVAL,
                       "test parameter \"busy_poll_us\" is not an integer in range 1..%u",
                       PATH_RX_BUSY_POLL_MAX);
    p->busy_poll_us = bp ? (uint32_t)json_integer_value(bp) : 0;
    const json_t *ur = json_object_get(obj, "io_uring");
    p->io_uring = PATH_URING_OFF;
    if (ur &&
        (!json_is_string(ur) || path_rx_uring_from_name(json_string_value(ur), &p->io_uring) ||
         p->io_uring == PATH_URING_OFF))
        return err_set(err, errlen, EINVAL,
                       "test parameter \"io_uring\" is not \"plain\" or \"zc\"");
    return 0;
}

json_t *path_rx_asked_json(const struct test_params *p)
{
    if (!path_rx_any(p))
        return NULL;
    return json_pack("{s:b, s:i, s:b, s:s, s:b}", "skip_rx_copy", p->skip_rx_copy, "busy_poll_us",
                     (int)p->busy_poll_us, "mptcp", p->mptcp, "io_uring",
                     path_rx_uring_name(p->io_uring), "ktls", p->ktls);
}
