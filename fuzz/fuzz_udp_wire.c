/*
 * UDP datagrams as receivers and the server's registration wait read them:
 * the data header (udp_wire_get) and the registration (udp_wire_get_reg),
 * then the same bytes as a UDP_GRO buffer split into datagrams
 * (udp_gro_next) with the segment size its first two bytes give.
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
    if (size >= 2)
        split_gro(buf + 2, size - 2, (int)((uint8_t)buf[0] << 8 | (uint8_t)buf[1]) - 1);
    free(buf);
    return 0;
}
