/*
 * Control frames as the server and the client read them: a length prefix
 * and a JSON body (frame_decode), then the greeting and type checks of
 * msg.c that every received message goes through, and an "accept"'s clock
 * member as the latency-under-load prober reads it (measure/clocksync.h).
 */
#include "fuzz.h"

#include <string.h>

#include "measure/clocksync.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    /* A buffer may hold several frames back to back; decode as many as it holds. */
    for (int i = 0; i < 8 && off < size; i++) {
        json_t *msg = NULL;
        size_t used = 0;
        char err[NB_ERRLEN] = "";
        int rc = frame_decode(data + off, size - off, &msg, &used, err, sizeof(err));
        if (rc == -EAGAIN)
            break;
        if (rc) {
            FUZZ_CHECK(err[0] != '\0', "a refused frame has an error sentence");
            FUZZ_CHECK(msg == NULL, "a refused frame yields no message");
            break;
        }
        FUZZ_CHECK(used > FRAME_HEADER && used <= size - off, "consumed size within the buffer");
        FUZZ_CHECK(json_is_object(msg), "a frame is a JSON object");
        char e2[NB_ERRLEN] = "";
        (void)msg_type(msg);
        if (msg_check_hello(msg, e2, sizeof(e2)))
            FUZZ_CHECK(e2[0], "hello refusal has a sentence");
        if (msg_check_welcome(msg, e2, sizeof(e2)))
            FUZZ_CHECK(e2[0], "welcome refusal has a sentence");
        if (msg_expect(msg, "accept", "server", e2, sizeof(e2)))
            FUZZ_CHECK(e2[0], "unexpected message has a sentence");
        struct clock_info local = {.boot_id = "24024596-d87f-4941-9555-ba744e5f9a77"}, peer;
        bool have = false;
        enum stamp_clock clk = STAMP_MONOTONIC;
        char why[192] = "", e3[NB_ERRLEN] = "";
        int crc =
            clock_from_accept(msg, &local, &peer, &have, &clk, why, sizeof(why), e3, sizeof(e3));
        FUZZ_CHECK(crc == 0 || (crc == -EPROTO && e3[0]), "a refused clock has a sentence");
        FUZZ_CHECK(crc || why[0], "a read clock gives a reason");
        FUZZ_CHECK(crc || !have || !peer.boot_id[0] || strlen(peer.boot_id) == 36,
                   "a peer's boot id is the kernel's form");
        /* What the server answers a bad message with must itself be a valid frame. */
        json_t *reply = msg_error("%s", e2);
        uint8_t *buf = NULL;
        size_t blen = 0;
        FUZZ_CHECK(reply && frame_encode(reply, &buf, &blen) == 0,
                   "an error reply quoting the peer can be encoded");
        free(buf);
        json_decref(reply);
        json_decref(msg);
        off += used;
    }
    return 0;
}
