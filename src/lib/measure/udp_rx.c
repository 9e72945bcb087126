#include "measure/udp_rx.h"

#include <stdlib.h>

struct udp_rx *udp_rx_new(void)
{
    struct udp_rx *rx = malloc(sizeof(*rx));
    if (!rx)
        return NULL;
    udp_seq_init(&rx->seq);
    jitter_init(&rx->jitter);
    rx->bytes = 0;
    return rx;
}

size_t udp_rx_size(void)
{
    return sizeof(struct udp_rx);
}

void udp_rx_free(struct udp_rx *rx)
{
    free(rx);
}

uint64_t udp_rx_unique(const struct udp_rx *rx)
{
    return atomic_load_explicit(&rx->seq.unique, memory_order_relaxed);
}

void udp_rx_totals(const struct udp_rx *rx, struct udp_rx_totals *out)
{
    struct udp_seq_counts c;
    udp_seq_read(&rx->seq, &c);
    out->packets = c.unique;
    out->bytes = rx->bytes;
    out->duplicates = c.duplicates;
    out->out_of_order = c.out_of_order;
    out->too_late = c.too_late;
    out->next = c.next;
    out->jitter_ms = jitter_rfc3550_ns(&rx->jitter) / 1e6;
    out->jitter_mean_abs_ms = jitter_mean_abs_ns(&rx->jitter) / 1e6;
    out->jitter_p99_abs_ms = jitter_p99_abs_ns(&rx->jitter) / 1e6;
}
