/*
 * Control frames as the server and the client read them: a length prefix
 * and a JSON body (frame_decode), then the greeting and type checks of
 * msg.c that every received message goes through.
 */
#include "fuzz.h"

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
