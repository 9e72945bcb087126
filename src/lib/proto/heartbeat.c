#include "proto/heartbeat.h"

#include <errno.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/msg.h"
#include "util/clock.h"

void heartbeat_init(struct heartbeat *h, int liveness_ms, uint64_t now_ns)
{
    memset(h, 0, sizeof(*h));
    if (liveness_ms <= 0)
        return;
    h->on = true;
    h->liveness_ms = liveness_ms;
    h->every_ns = (uint64_t)liveness_ms * 100000; /* a tenth */
    h->gone_ns = h->every_ns * 8;
    h->last_rx_ns = now_ns;
    h->next_tx_ns = now_ns;
}

void heartbeat_seen(struct heartbeat *h, uint64_t now_ns)
{
    h->last_rx_ns = now_ns;
}

int heartbeat_tick(struct heartbeat *h, int fd, const char *peer, uint64_t now_ns, char *err,
                   size_t errlen)
{
    if (!h->on)
        return 0;
    if (now_ns - h->last_rx_ns > h->gone_ns)
        return err_set(err, errlen, ETIMEDOUT,
                       "%s vanished: no message on the control connection for %.1f s "
                       "(liveness timeout %d ms)",
                       peer, (double)(now_ns - h->last_rx_ns) / 1e9, h->liveness_ms);
    if (now_ns < h->next_tx_ns)
        return 0;
    h->next_tx_ns = now_ns + h->every_ns;
    json_t *m = msg_simple("heartbeat");
    /* A heartbeat never waits long: a peer that takes none is what we want to find out. */
    int rc = frame_send(fd, m, clock_now_ns() + h->every_ns, err, errlen);
    json_decref(m);
    return rc;
}

uint64_t heartbeat_next_ns(const struct heartbeat *h)
{
    if (!h->on)
        return UINT64_MAX;
    uint64_t gone = h->last_rx_ns + h->gone_ns + 1; /* heartbeat_tick(): silence > gone_ns */
    return h->next_tx_ns < gone ? h->next_tx_ns : gone;
}

bool heartbeat_is(const json_t *msg)
{
    return !strcmp(msg_type(msg), "heartbeat");
}
