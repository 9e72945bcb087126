/*
 * The first bytes of a data connection as the server reads them: the
 * "NDAT" magic test, the 28-byte header (datahdr_decode), and the cookie's
 * hex form as the client reads it from "accept" (datahdr_cookie_from_hex).
 */
#include "fuzz.h"

#include "proto/datahdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 4)
        (void)datahdr_is_data(data);
    if (size >= DATAHDR_LEN) {
        struct datahdr h;
        if (datahdr_decode(data, &h) == 0) {
            uint8_t again[DATAHDR_LEN];
            datahdr_encode(&h, again);
            FUZZ_CHECK(memcmp(again, data, DATAHDR_LEN) == 0, "a decoded header re-encodes");
        }
    }
    char *hex = fuzz_strdup(data, size);
    uint8_t cookie[TEST_COOKIE_LEN];
    if (datahdr_cookie_from_hex(hex, cookie) == 0) {
        char back[33];
        datahdr_cookie_to_hex(cookie, back);
        FUZZ_CHECK(strcmp(back, hex) == 0, "a decoded cookie re-encodes to the same hex");
    }
    free(hex);
    return 0;
}
