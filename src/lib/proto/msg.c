#include "proto/msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/printable.h"

json_t *msg_hello(void)
{
    return json_pack("{s:s, s:s, s:i, s:s}", "type", "hello", "magic", PROTO_MAGIC, "version",
                     PROTO_VERSION, "software", "netab " NETAB_VERSION);
}

json_t *msg_welcome(void)
{
    return json_pack("{s:s, s:s, s:i, s:s}", "type", "welcome", "magic", PROTO_MAGIC, "version",
                     PROTO_VERSION, "software", "netab " NETAB_VERSION);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if p starts none (RFC 3629). */
static size_t utf8_seq(const unsigned char *p)
{
    size_t n = p[0] < 0x80                    ? 1
               : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
               : (p[0] & 0xf0) == 0xe0        ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] > 0x9f) ||
        (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] > 0x8f))
        return 0; /* overlong, surrogate or beyond U+10FFFF */
    return n;
}

/*
 * Makes s valid UTF-8 in place: each byte that starts no valid sequence
 * becomes '?', so text cut mid-character (a peer's string under %.64s, a
 * full buffer) still encodes as JSON and the error reply is always sent.
 */
static void utf8_clean(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        size_t n = utf8_seq(p);
        if (n)
            p += n;
        else
            *p++ = '?';
    }
}

json_t *msg_error(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    utf8_clean(text);
    return json_pack("{s:s, s:s}", "type", "error", "message", text);
}

json_t *msg_simple(const char *type)
{
    return json_pack("{s:s}", "type", type);
}

const char *msg_type(const json_t *msg)
{
    const char *t = json_string_value(json_object_get(msg, "type"));
    return t ? t : "";
}

/* The type msg claims, cut and made printable for a message that quotes it. */
static const char *shown_type(const json_t *msg, char *buf, size_t len)
{
    char cut[33];
    snprintf(cut, sizeof(cut), "%s", msg_type(msg));
    printable_copy(buf, len, cut);
    return buf;
}

static int check_greeting(const json_t *msg, const char *type, char *err, size_t errlen)
{
    char shown[136];
    if (strcmp(msg_type(msg), type))
        return err_set(err, errlen, EPROTO, "expected a \"%s\" message, got \"%s\"", type,
                       shown_type(msg, shown, sizeof(shown)));
    const char *magic = json_string_value(json_object_get(msg, "magic"));
    if (!magic || strcmp(magic, PROTO_MAGIC))
        return err_set(err, errlen, EPROTO, "peer does not speak the netab protocol");
    json_t *v = json_object_get(msg, "version");
    if (!json_is_integer(v))
        return err_set(err, errlen, EPROTO, "peer sent no protocol version");
    if (json_integer_value(v) != PROTO_VERSION) {
        /* The peer's words, made printable: they reach a terminal or a log. */
        char cut[65], sw[4 * sizeof(cut)];
        const char *said = json_string_value(json_object_get(msg, "software"));
        snprintf(cut, sizeof(cut), "%s", said ? said : "unknown software");
        printable_copy(sw, sizeof(sw), cut);
        return err_set(err, errlen, EPROTO,
                       "protocol version mismatch: peer (%s) speaks version %lld, this netab "
                       "speaks version %d",
                       sw, (long long)json_integer_value(v), PROTO_VERSION);
    }
    return 0;
}

int msg_check_hello(const json_t *msg, char *err, size_t errlen)
{
    return check_greeting(msg, "hello", err, errlen);
}

int msg_check_welcome(const json_t *msg, char *err, size_t errlen)
{
    if (!strcmp(msg_type(msg), "error"))
        return msg_expect(msg, "welcome", "server", err, errlen);
    return check_greeting(msg, "welcome", err, errlen);
}

int msg_expect(const json_t *msg, const char *type, const char *peer, char *err, size_t errlen)
{
    const char *t = msg_type(msg);
    if (!strcmp(t, type))
        return 0;
    if (!strcmp(t, "error")) {
        /* The peer's words, made printable: they reach a terminal or a log. */
        char cut[401], m[4 * sizeof(cut)];
        const char *said = json_string_value(json_object_get(msg, "message"));
        snprintf(cut, sizeof(cut), "%s", said ? said : "error without a message");
        printable_copy(m, sizeof(m), cut);
        return err_set(err, errlen, ECONNABORTED, "%s: %s", peer, m);
    }
    char shown[136];
    return err_set(err, errlen, EPROTO, "expected a \"%s\" message from the %s, got \"%s\"", type,
                   peer, shown_type(msg, shown, sizeof(shown)));
}
