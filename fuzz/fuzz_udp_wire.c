/*
 * UDP datagrams as receivers and the server's registration wait read them:
 * the data header (udp_wire_get) and the registration (udp_wire_get_reg),
 * then the same bytes as a UDP_GRO buffer split into datagrams
 * (udp_gro_next) with the segment size its first two bytes give. The same
 * datagram is also a latency-under-load probe (rrul, docs/rrul.md): a request
 * asking for the server's receive time ("NBTS", udp_wire_wants_stamp) as the
 * udp_rr server answers it, and an answer carrying one ("NBTR",
 * udp_wire_get_stamp) as the prober reads it.
 */
#include "fuzz.h"

#include "engine/udp_gro.h"
#include "engine/udp_wire.h"

/* Splits buf as a receiver with --gro does and parses every datagram's header. */
static void split_gro(const char *buf, size_t len, int gso)
{
    size_t off = 0, n, count = 0;
    while ((n = udp_gro_next(len, off, gso)) > 0) {
        FUZZ_CHECK(n <= len - off, "a datagram lies within the buffer");
        uint32_t stream;
        uint64_t seq, ns;
        (void)udp_wire_get(buf + off, n, &stream, &seq, &ns);
        off += n;
        FUZZ_CHECK(++count <= len, "the split ends");
    }
    FUZZ_CHECK(off == len, "the split covers the whole buffer");
}

/*
 * The stamp of a probe round trip. A request is answered as the udp_rr server
 * does (engine/stream_rr.c: the header echoed, the stamp written into a
 * response of the request's size), and the prober must read back the receive
 * time written; an answer read as the prober does re-encodes to its bytes.
 * No datagram is both a request for a stamp and a stamped answer, so a
 * server never takes a reflected answer for a new probe.
 */
static void probe_stamps(const char *buf, size_t len)
{
    bool wants = udp_wire_wants_stamp(buf, len);
    uint64_t rx_ns;
    bool stamped = udp_wire_get_stamp(buf, len, &rx_ns);
    FUZZ_CHECK(!(wants && stamped), "a datagram is a stamp request or a stamped answer");
    if (stamped) {
        FUZZ_CHECK(len >= UDP_WIRE_STAMP_LEN, "a stamp lies within the datagram");
        char again[UDP_WIRE_STAMP_LEN];
        memcpy(again, buf, UDP_WIRE_HEADER);
        udp_wire_put_stamp(again, rx_ns);
        FUZZ_CHECK(memcmp(again, buf, UDP_WIRE_STAMP_LEN) == 0, "a stamp re-encodes");
    }
    if (!wants)
        return;
    FUZZ_CHECK(len >= UDP_WIRE_STAMP_LEN, "a stamp request has room for the answer");
    char *resp = malloc(len);
    if (!resp)
        abort();
    memcpy(resp, buf, len);
    /* Any receive time, taken from the request's own bytes so every value is tried. */
    uint64_t t;
    memcpy(&t, buf + UDP_WIRE_HEADER + 4, sizeof(t));
    udp_wire_put_stamp(resp, t);
    uint64_t got = ~t;
    FUZZ_CHECK(udp_wire_get_stamp(resp, len, &got) && got == t, "an answer's stamp reads back");
    FUZZ_CHECK(!udp_wire_wants_stamp(resp, len), "an answer asks for no stamp");
    uint32_t id, id2;
    uint64_t seq, seq2, ns, ns2;
    int rc = udp_wire_get(buf, len, &id, &seq, &ns);
    FUZZ_CHECK(rc == udp_wire_get(resp, len, &id2, &seq2, &ns2) &&
                   (rc || (id == id2 && seq == seq2 && ns == ns2)),
               "an answer's header is its request's");
    free(resp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes, so reading past the datagram is caught. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    uint32_t stream;
    uint64_t seq, ns;
    if (udp_wire_get(buf, size, &stream, &seq, &ns) == 0) {
        char again[UDP_WIRE_HEADER];
        udp_wire_put(again, stream, seq, ns);
        FUZZ_CHECK(memcmp(again, buf, UDP_WIRE_HEADER) == 0, "a data header re-encodes");
    }
    uint8_t cookie[TEST_COOKIE_LEN];
    bool is_reg = udp_wire_is_reg(buf, size);
    if (udp_wire_get_reg(buf, size, cookie, &stream) == 0) {
        FUZZ_CHECK(is_reg, "a parsed registration is recognised as one");
        char again[UDP_WIRE_REG_LEN];
        udp_wire_put_reg(again, cookie, stream);
        FUZZ_CHECK(memcmp(again, buf, UDP_WIRE_REG_LEN) == 0, "a registration re-encodes");
    }
    probe_stamps(buf, size);
    if (size >= 2)
        split_gro(buf + 2, size - 2, (int)((uint8_t)buf[0] << 8 | (uint8_t)buf[1]) - 1);
    free(buf);
    return 0;
}
