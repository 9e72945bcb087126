#include "proto/frame.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/io.h"
#include "util/jsonout.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int frame_check_length(uint32_t len, char *err, size_t errlen)
{
    return frame_check_length_max(len, FRAME_MAX, err, errlen);
}

int frame_check_length_max(uint32_t len, uint32_t max, char *err, size_t errlen)
{
    if (len == 0)
        return err_set(err, errlen, EMSGSIZE, "empty control message (length 0)");
    if (len > max) {
        /* Show the prefix as text when it is printable: "GET " is an HTTP client. */
        uint8_t b[4] = {len >> 24, len >> 16, len >> 8, len};
        int printable = 1;
        for (int i = 0; i < 4; i++)
            printable &= isprint(b[i]) != 0;
        if (printable)
            return err_set(err, errlen, EMSGSIZE,
                           "peer does not speak the netab protocol (it sent \"%c%c%c%c\")", b[0],
                           b[1], b[2], b[3]);
        return err_set(err, errlen, EMSGSIZE,
                       "control message length %u exceeds the limit of %u bytes", len,
                       (unsigned)max);
    }
    return 0;
}

int frame_parse_body(const char *body, size_t len, json_t **out, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *msg = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!msg)
        return err_set(err, errlen, EPROTO, "control message is not valid JSON: %s", jerr.text);
    if (!json_is_object(msg)) {
        json_decref(msg);
        return err_set(err, errlen, EPROTO, "control message is not a JSON object");
    }
    if (!json_is_string(json_object_get(msg, "type"))) {
        json_decref(msg);
        return err_set(err, errlen, EPROTO, "control message has no string field \"type\"");
    }
    *out = msg;
    return 0;
}

int frame_decode(const uint8_t *buf, size_t len, json_t **out, size_t *consumed, char *err,
                 size_t errlen)
{
    if (len < FRAME_HEADER)
        return -EAGAIN;
    uint32_t body = be32(buf);
    int rc = frame_check_length(body, err, errlen);
    if (rc)
        return rc;
    if (len - FRAME_HEADER < body)
        return -EAGAIN;
    rc = frame_parse_body((const char *)buf + FRAME_HEADER, body, out, err, errlen);
    if (!rc)
        *consumed = FRAME_HEADER + body;
    return rc;
}

int frame_encode(const json_t *msg, uint8_t **out, size_t *outlen)
{
    return frame_encode_max(msg, FRAME_MAX, out, outlen);
}

int frame_encode_max(const json_t *msg, size_t max, uint8_t **out, size_t *outlen)
{
    char *text = jsonout_compact(msg);
    if (!text)
        return -ENOMEM;
    size_t len = strlen(text);
    if (len == 0 || len > max || len > UINT32_MAX) {
        free(text);
        return -EMSGSIZE;
    }
    uint8_t *buf = malloc(FRAME_HEADER + len);
    if (!buf) {
        free(text);
        return -ENOMEM;
    }
    buf[0] = (uint8_t)(len >> 24);
    buf[1] = (uint8_t)(len >> 16);
    buf[2] = (uint8_t)(len >> 8);
    buf[3] = (uint8_t)len;
    memcpy(buf + FRAME_HEADER, text, len);
    free(text);
    *out = buf;
    *outlen = FRAME_HEADER + len;
    return 0;
}

int frame_send(int fd, const json_t *msg, uint64_t deadline_ns, char *err, size_t errlen)
{
    return frame_send_max(fd, msg, FRAME_MAX, deadline_ns, err, errlen);
}

int frame_send_max(int fd, const json_t *msg, size_t max, uint64_t deadline_ns, char *err,
                   size_t errlen)
{
    uint8_t *buf;
    size_t len;
    int rc = frame_encode_max(msg, max, &buf, &len);
    if (rc)
        return err_set(err, errlen, rc, "cannot encode control message: %s", strerror(-rc));
    rc = io_write_full(fd, buf, len, deadline_ns);
    free(buf);
    if (rc)
        return err_set(err, errlen, rc, "cannot send control message: %s", strerror(-rc));
    return 0;
}

static int recv_error(int rc, size_t got, size_t want, const char *what, char *err, size_t errlen)
{
    if (rc == -ETIMEDOUT)
        return err_set(err, errlen, rc, "timed out waiting for %s", what);
    if (rc == -ECONNRESET)
        return err_set(err, errlen, rc,
                       "peer closed the control connection (%zu of %zu bytes of %s)", got, want,
                       what);
    return err_set(err, errlen, rc, "cannot read %s: %s", what, strerror(-rc));
}

/* frame_recv_body() against a limit of max bytes. */
static int recv_body_max(int fd, const uint8_t prefix[FRAME_HEADER], uint32_t max, json_t **out,
                         uint64_t deadline_ns, char *err, size_t errlen)
{
    uint32_t len = be32(prefix);
    int rc = frame_check_length_max(len, max, err, errlen);
    if (rc)
        return rc;
    char *body = malloc(len);
    if (!body)
        return err_set(err, errlen, ENOMEM, "out of memory");
    size_t got = 0;
    rc = io_read_full(fd, body, len, deadline_ns, &got);
    if (rc)
        rc = recv_error(rc, got, len, "a control message body", err, errlen);
    else
        rc = frame_parse_body(body, len, out, err, errlen);
    free(body);
    return rc;
}

int frame_recv_body(int fd, const uint8_t prefix[FRAME_HEADER], json_t **out, uint64_t deadline_ns,
                    char *err, size_t errlen)
{
    return recv_body_max(fd, prefix, FRAME_MAX, out, deadline_ns, err, errlen);
}

int frame_recv_max(int fd, json_t **out, uint32_t max, uint64_t deadline_ns, char *err,
                   size_t errlen)
{
    uint8_t prefix[FRAME_HEADER];
    size_t got = 0;
    int rc = io_read_full(fd, prefix, sizeof(prefix), deadline_ns, &got);
    if (rc)
        return recv_error(rc, got, sizeof(prefix), "a control message", err, errlen);
    return recv_body_max(fd, prefix, max, out, deadline_ns, err, errlen);
}

int frame_recv(int fd, json_t **out, uint64_t deadline_ns, char *err, size_t errlen)
{
    return frame_recv_max(fd, out, FRAME_MAX, deadline_ns, err, errlen);
}
