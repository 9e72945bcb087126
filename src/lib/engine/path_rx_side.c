/*
 * What a test's receive and socket paths became on this end: each data
 * connection's options read back from the kernel, MPTCP_INFO's subflows,
 * and io_uring's counts (path_rx.h; docs/json.md's "rx_path").
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/path_rx.h"
#include "engine/stream_set.h"

#ifndef MPTCP_INFO
#define MPTCP_INFO 1
#endif

/*
 * struct mptcp_info up to mptcpi_subflows_total (Linux 6.10): the libc
 * headers netab builds with may be older. The kernel copies what both
 * know and says how much; an older one has only mptcpi_subflows, the
 * subflows beside the first.
 */
struct mptcp_info_v {
    uint8_t subflows, add_addr_signal, add_addr_accepted, subflows_max;
    uint8_t add_addr_signal_max, add_addr_accepted_max;
    uint32_t flags, token;
    uint64_t write_seq, snd_una, rcv_nxt;
    uint8_t local_addr_used, local_addr_max, csum_enabled;
    uint32_t retransmits;
    uint64_t bytes_retrans, bytes_sent, bytes_received, bytes_acked;
    uint8_t subflows_total;
    uint8_t reserved[3];
};
_Static_assert(offsetof(struct mptcp_info_v, subflows_total) == 80, "the kernel's layout");

/*
 * Subflows in use on an MPTCP socket, or -1 with *fallback set when the
 * connection fell back to plain TCP (the call reaches TCP, see below), or -1
 * alone when the kernel cannot say.
 */
static int mptcp_subflows(int fd, bool *fallback)
{
    struct mptcp_info_v mi;
    socklen_t len = sizeof(mi);
    memset(&mi, 0, sizeof(mi));
    *fallback = false;
    if (getsockopt(fd, SOL_MPTCP, MPTCP_INFO, &mi, &len)) {
        /* A fallen-back socket passes the call to TCP: IPv4 answers EOPNOTSUPP, IPv6 ENOPROTOOPT.
         */
        *fallback = errno == EOPNOTSUPP || errno == ENOPROTOOPT;
        return -1;
    }
    if (len > offsetof(struct mptcp_info_v, subflows_total))
        return mi.subflows_total;
    return mi.subflows + 1;
}

/* SO_PREFER_BUSY_POLL read back, or JSON null when the kernel does not answer for it. */
static json_t *prefer_json(int fd)
{
    int v;
    socklen_t len = sizeof(v);
    if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &v, &len))
        return json_null();
    return json_boolean(v);
}

/*
 * SO_BUSY_POLL_BUDGET: the kernel has no getsockopt for it, so the value
 * is set again (the same one, a no-op) to learn whether it takes it: the
 * budget, or null where it does not (before Linux 5.11, or without
 * CAP_NET_ADMIN).
 */
static json_t *budget_json(int fd)
{
    int budget = PATH_RX_BUSY_POLL_BUDGET;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)))
        return json_null();
    return json_integer(budget);
}

static json_t *busy_poll_json(const struct stream_set *set)
{
    int fd = set->n ? set->streams[0].fd : -1;
    /* Every connection got the same options; the lowest value read back is what all have. */
    long least = -1;
    for (int i = 0; i < set->n; i++) {
        int v;
        socklen_t len = sizeof(v);
        if (set->streams[i].fd >= 0 &&
            !getsockopt(set->streams[i].fd, SOL_SOCKET, SO_BUSY_POLL, &v, &len) &&
            (least < 0 || v < least))
            least = v;
    }
    FILE *f = fopen("/proc/sys/net/core/busy_read", "re");
    int sysctl = -1;
    if (f) {
        if (fscanf(f, "%d", &sysctl) != 1)
            sysctl = -1;
        fclose(f);
    }
    return json_pack("{s:i, s:o, s:o, s:o, s:i, s:i}", "asked_us", (int)set->params.busy_poll_us,
                     "so_busy_poll_us", least >= 0 ? json_integer(least) : json_null(),
                     "prefer_busy_poll", prefer_json(fd), "budget", budget_json(fd), "budget_asked",
                     PATH_RX_BUSY_POLL_BUDGET, "net_core_busy_read", sysctl);
}

void path_rx_stream_end(struct stream *s)
{
    s->rxp.mptcp_subflows = -1;
    if (s->params->mptcp && s->fd >= 0)
        s->rxp.mptcp_subflows = mptcp_subflows(s->fd, &s->rxp.mptcp_fallback);
}

static json_t *mptcp_json(const struct stream_set *set)
{
    json_t *sub = json_array();
    int mptcp = 0, fallback = 0;
    for (int i = 0; i < set->n; i++) {
        const struct path_rx_stats *x = &set->streams[i].rxp;
        mptcp += x->mptcp_subflows >= 0;
        fallback += x->mptcp_fallback;
        json_array_append_new(sub, x->mptcp_subflows >= 0 ? json_integer(x->mptcp_subflows)
                                                          : json_null());
    }
    return json_pack("{s:i, s:i, s:i, s:o}", "connections", set->n, "mptcp", mptcp, "fallback",
                     fallback, "subflows", sub);
}

static json_t *uring_json(const struct stream_set *set)
{
    struct path_rx_stats t = {0};
    int senders = 0;
    for (int i = 0; i < set->n; i++) {
        senders += set->streams[i].sender;
        const struct path_rx_stats *u = &set->streams[i].rxp;
        t.submitted += u->submitted;
        t.completed += u->completed;
        t.zc_notifs += u->zc_notifs;
        t.zc_copied += u->zc_copied;
        t.zc_usage |= u->zc_usage;
    }
    json_t *o = json_pack("{s:s, s:i, s:I, s:I}", "mode", path_rx_uring_name(set->params.io_uring),
                          "depth", PATH_URING_DEPTH, "submitted", (json_int_t)t.submitted,
                          "completed", (json_int_t)t.completed);
    /* Zero-copy is of the sends: an end that only receives has no notifications to count. */
    if (set->params.io_uring == PATH_URING_ZC && senders) {
        json_object_set_new(o, "zc_notifications", json_integer((json_int_t)t.zc_notifs));
        /* Copies are known only where the kernel reports them (IORING_SEND_ZC_REPORT_USAGE). */
        json_object_set_new(o, "zc_copied",
                            t.zc_usage ? json_integer((json_int_t)t.zc_copied) : json_null());
    }
    return o;
}

json_t *path_rx_side_json(const struct stream_set *set)
{
    const struct test_params *p = &set->params;
    if (!path_rx_any(p))
        return NULL;
    json_t *o = json_object();
    if (p->skip_rx_copy) {
        int receivers = 0;
        for (int i = 0; i < set->n; i++)
            receivers += !set->streams[i].sender;
        json_object_set_new(o, "skip_rx_copy",
                            json_pack("{s:i, s:s}", "receivers", receivers, "recv_flags",
                                      receivers ? "MSG_TRUNC" : "none (this end only sends)"));
    }
    if (p->busy_poll_us)
        json_object_set_new(o, "busy_poll", busy_poll_json(set));
    if (p->mptcp)
        json_object_set_new(o, "mptcp", mptcp_json(set));
    if (p->io_uring)
        json_object_set_new(o, "io_uring", uring_json(set));
    return o;
}

int path_rx_side_check(const json_t *v, char *err, size_t errlen)
{
    if (!v)
        return 0;
    static const char *const members[] = {"skip_rx_copy", "busy_poll", "mptcp", "io_uring"};
    bool ok = json_is_object(v);
    for (size_t i = 0; ok && i < sizeof(members) / sizeof(members[0]); i++) {
        const json_t *m = json_object_get(v, members[i]);
        ok = !m || json_is_object(m);
    }
    const json_t *sub = json_object_get(json_object_get(v, "mptcp"), "subflows");
    if (ok && sub && (!json_is_array(sub) || json_array_size(sub) > PARAMS_MAX_STREAMS * 2))
        ok = false;
    return ok ? 0 : err_set(err, errlen, EPROTO, "peer's receive path record is malformed");
}
