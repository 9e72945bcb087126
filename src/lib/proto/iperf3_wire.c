#include "proto/iperf3_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "util/io.h"
#include "util/jsonout.h"

const uint8_t IPERF3_UDP_HELLO[4] = {0x39, 0x38, 0x37, 0x36};
const uint8_t IPERF3_UDP_REPLY[4] = {0x36, 0x37, 0x38, 0x39};

static const char cookie_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

const char *iperf3_state_name(int state)
{
    switch (state) {
    case IPERF3_TEST_START:
        return "TEST_START";
    case IPERF3_TEST_RUNNING:
        return "TEST_RUNNING";
    case IPERF3_TEST_END:
        return "TEST_END";
    case IPERF3_PARAM_EXCHANGE:
        return "PARAM_EXCHANGE";
    case IPERF3_CREATE_STREAMS:
        return "CREATE_STREAMS";
    case IPERF3_SERVER_TERMINATE:
        return "SERVER_TERMINATE";
    case IPERF3_CLIENT_TERMINATE:
        return "CLIENT_TERMINATE";
    case IPERF3_EXCHANGE_RESULTS:
        return "EXCHANGE_RESULTS";
    case IPERF3_DISPLAY_RESULTS:
        return "DISPLAY_RESULTS";
    case IPERF3_IPERF_DONE:
        return "IPERF_DONE";
    case IPERF3_ACCESS_DENIED:
        return "ACCESS_DENIED";
    case IPERF3_SERVER_ERROR:
        return "SERVER_ERROR";
    default:
        return "unknown";
    }
}

int iperf3_cookie_make(char cookie[IPERF3_COOKIE_LEN])
{
    uint8_t rnd[IPERF3_COOKIE_LEN - 1];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        return -EIO;
    /* 32 symbols: the low five bits of each random byte pick one uniformly. */
    for (size_t i = 0; i < sizeof(rnd); i++)
        cookie[i] = cookie_alphabet[rnd[i] & 31];
    cookie[IPERF3_COOKIE_LEN - 1] = '\0';
    return 0;
}

static bool in_alphabet(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
}

bool iperf3_cookie_prefix(const uint8_t *b, size_t n)
{
    if (n > IPERF3_COOKIE_LEN - 1)
        n = IPERF3_COOKIE_LEN - 1;
    for (size_t i = 0; i < n; i++)
        if (!in_alphabet(b[i]))
            return false;
    return true;
}

bool iperf3_cookie_valid(const uint8_t b[IPERF3_COOKIE_LEN])
{
    return iperf3_cookie_prefix(b, IPERF3_COOKIE_LEN - 1) && b[IPERF3_COOKIE_LEN - 1] == 0;
}

int iperf3_stream_id(int i)
{
    return i == 0 ? 1 : i + 2;
}

int iperf3_stream_index(int id, int n)
{
    int i = id == 1 ? 0 : id - 2;
    return id == 2 || i < 0 || i >= n ? -1 : i;
}

int iperf3_state_send(int fd, int state, uint64_t deadline_ns, char *err, size_t errlen)
{
    int8_t b = (int8_t)state;
    int rc = io_write_full(fd, &b, 1, deadline_ns);
    if (rc)
        return err_set(err, errlen, rc, "cannot send iperf3 state %s: %s", iperf3_state_name(state),
                       strerror(-rc));
    return 0;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int iperf3_state_recv(int fd, int *state, uint64_t deadline_ns, char *err, size_t errlen)
{
    int8_t b;
    int rc = io_read_full(fd, &b, 1, deadline_ns, NULL);
    if (rc == -ETIMEDOUT)
        return err_set(err, errlen, rc, "timed out waiting for the iperf3 peer's next state");
    if (rc == -ECONNRESET)
        return err_set(err, errlen, rc, "the iperf3 peer closed the control connection");
    if (rc)
        return err_set(err, errlen, rc, "cannot read the iperf3 peer's state: %s", strerror(-rc));
    *state = b;
    if (b == IPERF3_ACCESS_DENIED)
        return err_set(err, errlen, EBUSY,
                       "the iperf3 server refused the test (ACCESS_DENIED: it is busy "
                       "with another test, or the cookie was wrong)");
    if (b == IPERF3_SERVER_ERROR) {
        uint8_t nums[8];
        rc = io_read_full(fd, nums, sizeof(nums), deadline_ns, NULL);
        if (rc)
            return err_set(err, errlen, EREMOTEIO, "the iperf3 server reported an error");
        return err_set(err, errlen, EREMOTEIO,
                       "the iperf3 server reported an error (iperf3 error %d, errno %d: %s)",
                       (int)get32(nums), (int)get32(nums + 4), strerror((int)get32(nums + 4)));
    }
    return 0;
}

int iperf3_json_send(int fd, const json_t *doc, uint64_t deadline_ns, char *err, size_t errlen)
{
    char *text = jsonout_compact(doc);
    if (!text)
        return err_set(err, errlen, ENOMEM, "out of memory");
    size_t len = strlen(text);
    uint8_t hdr[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                      (uint8_t)len};
    int rc = io_write_full(fd, hdr, sizeof(hdr), deadline_ns);
    if (!rc)
        rc = io_write_full(fd, text, len, deadline_ns);
    free(text);
    if (rc)
        return err_set(err, errlen, rc, "cannot send an iperf3 JSON document: %s", strerror(-rc));
    return 0;
}

/*
 * iperf3 writes -1 in a few members (a receiver's retransmits and
 * sender_has_retransmits) cast to unsigned 64 bits: 18446744073709551615,
 * past what jansson's integers hold. Each such number after ':', ',' or
 * '[' becomes -1 padded with spaces, in place, so the rest of the document
 * keeps its integers.
 */
static void unsigned_minus_one(char *text, size_t len)
{
    static const char big[] = "18446744073709551615";
    const size_t blen = sizeof(big) - 1;
    for (size_t i = 1; i + blen <= len; i++) {
        if (memcmp(text + i, big, blen))
            continue;
        size_t k = i;
        while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\n' || text[k - 1] == '\t'))
            k--;
        bool number = k > 0 && (text[k - 1] == ':' || text[k - 1] == ',' || text[k - 1] == '[');
        bool ends = i + blen == len || strchr(",}] \n\t", text[i + blen]);
        if (number && ends) {
            memset(text + i, ' ', blen);
            memcpy(text + i, "-1", 2);
        }
    }
}

int iperf3_json_parse(const char *text, size_t len, bool strict, json_t **out, char *err,
                      size_t errlen)
{
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return err_set(err, errlen, ENOMEM, "out of memory");
    memcpy(copy, text, len);
    unsigned_minus_one(copy, len);
    json_error_t je;
    json_t *doc = json_loadb(copy, len, strict ? JSON_REJECT_DUPLICATES : 0, &je);
    free(copy);
    if (!doc)
        return err_set(err, errlen, EPROTO, "iperf3 JSON document is not valid JSON: %s (at %d)",
                       je.text, je.position);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return err_set(err, errlen, EPROTO, "iperf3 JSON document is not an object");
    }
    *out = doc;
    return 0;
}

int iperf3_json_recv(int fd, uint32_t max, bool strict, json_t **out, uint64_t deadline_ns,
                     char *err, size_t errlen)
{
    uint8_t hdr[4];
    int rc = io_read_full(fd, hdr, sizeof(hdr), deadline_ns, NULL);
    if (rc)
        return err_set(err, errlen, rc, "cannot read an iperf3 JSON document's length: %s",
                       rc == -ETIMEDOUT ? "timed out" : strerror(-rc));
    uint32_t len = get32(hdr);
    if (len == 0 || len > max)
        return err_set(err, errlen, EMSGSIZE,
                       "iperf3 JSON document of %u bytes refused (1 to %u allowed)", len, max);
    char *text = malloc(len);
    if (!text)
        return err_set(err, errlen, ENOMEM, "out of memory");
    rc = io_read_full(fd, text, len, deadline_ns, NULL);
    if (rc)
        err_set(err, errlen, rc, "cannot read an iperf3 JSON document of %u bytes: %s", len,
                rc == -ETIMEDOUT ? "timed out" : strerror(-rc));
    else
        rc = iperf3_json_parse(text, len, strict, out, err, errlen);
    free(text);
    return rc;
}
