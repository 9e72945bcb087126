#include "engine/side_flows.h"

#include <errno.h>
#include <stdlib.h>

enum figure {
    F_SENDER,
    F_SERVER_SENDS,
    F_BYTES,
    F_TOTAL,
    F_PACKETS,
    F_LOST,
    F_SECONDS_US,
    F_CONNECT,
    F_READ,
    F_WRITE,
    F_TIMEOUT,
    F_RETRANS,
    F_COUNT
};
/* Figures a peer of an older version does not send: absent means unknown, not malformed. */
#define F_FIRST_OPTIONAL F_RETRANS

static const char *const names[F_COUNT] = {
    "sender",     "server_sends",   "bytes",       "total_bytes",  "packets",        "lost",
    "seconds_us", "connect_errors", "read_errors", "write_errors", "timeout_errors", "retransmits"};

static uint64_t figure(const struct side_stream *s, enum figure f)
{
    switch (f) {
    case F_SENDER:
        return s->sender;
    case F_SERVER_SENDS:
        return s->server_sends;
    case F_BYTES:
        return s->bytes;
    case F_TOTAL:
        return s->total_bytes;
    case F_PACKETS:
        return s->packets;
    case F_LOST:
        return s->lost;
    case F_SECONDS_US:
        return (uint64_t)(s->seconds * 1e6 + 0.5);
    case F_CONNECT:
        return s->errors.connect;
    case F_READ:
        return s->errors.read;
    case F_WRITE:
        return s->errors.write;
    case F_RETRANS:
        return s->tcpinfo.valid ? s->tcpinfo.retransmits : 0;
    default:
        return s->errors.timeout;
    }
}

static void set_figure(struct side_stream *s, enum figure f, uint64_t v)
{
    switch (f) {
    case F_SENDER:
        s->sender = v != 0;
        break;
    case F_SERVER_SENDS:
        s->server_sends = v != 0;
        break;
    case F_BYTES:
        s->bytes = v;
        break;
    case F_TOTAL:
        s->total_bytes = v;
        break;
    case F_PACKETS:
        s->packets = v;
        break;
    case F_LOST:
        s->lost = v;
        break;
    case F_SECONDS_US:
        s->seconds = (double)v / 1e6;
        break;
    case F_CONNECT:
        s->errors.connect = v;
        break;
    case F_READ:
        s->errors.read = v;
        break;
    case F_WRITE:
        s->errors.write = v;
        break;
    case F_RETRANS:
        /* Only the count: the rest of TCP_INFO stays unknown (valid 0), never shown as zeros. */
        s->tcpinfo.retransmits = (uint32_t)v;
        break;
    default:
        s->errors.timeout = v;
    }
}

json_t *side_flows_to_json(const struct side_report *r)
{
    json_t *o = json_object();
    for (int f = 0; f < F_COUNT; f++) {
        json_t *a = json_array();
        for (int i = 0; i < r->n; i++)
            json_array_append_new(a, json_integer((json_int_t)figure(&r->streams[i], f)));
        json_object_set_new(o, names[f], a);
    }
    return o;
}

int side_flows_from_json(const json_t *flows, int expected, struct side_report *r, char *err,
                         size_t errlen)
{
    if (!json_is_object(flows) || expected < 1)
        return err_set(err, errlen, EPROTO, "peer's flows are malformed");
    r->streams = calloc((size_t)expected, sizeof(*r->streams));
    if (!r->streams)
        return err_set(err, errlen, ENOMEM, "out of memory");
    r->n = expected;
    r->flows = true;
    for (int i = 0; i < expected; i++)
        r->streams[i].id = i;
    for (int f = 0; f < F_COUNT; f++) {
        const json_t *a = json_object_get(flows, names[f]);
        if (!a && f >= F_FIRST_OPTIONAL)
            continue;
        if (!json_is_array(a) || (int)json_array_size(a) != expected)
            return err_set(err, errlen, EPROTO, "peer's flows lack \"%s\" for each of %d flows",
                           names[f], expected);
        for (int i = 0; i < expected; i++) {
            const json_t *v = json_array_get(a, (size_t)i);
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                return err_set(err, errlen, EPROTO, "peer's \"%s\" of flow %d is malformed",
                               names[f], i);
            set_figure(&r->streams[i], f, (uint64_t)json_integer_value(v));
        }
    }
    return 0;
}
