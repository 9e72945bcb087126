#include "proto/msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

json_t *msg_error(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
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

static int check_greeting(const json_t *msg, const char *type, char *err, size_t errlen)
{
    if (strcmp(msg_type(msg), type))
        return err_set(err, errlen, EPROTO, "expected a \"%s\" message, got \"%.32s\"", type,
                       msg_type(msg));
    const char *magic = json_string_value(json_object_get(msg, "magic"));
    if (!magic || strcmp(magic, PROTO_MAGIC))
        return err_set(err, errlen, EPROTO, "peer does not speak the netab protocol");
    json_t *v = json_object_get(msg, "version");
    if (!json_is_integer(v))
        return err_set(err, errlen, EPROTO, "peer sent no protocol version");
    if (json_integer_value(v) != PROTO_VERSION) {
        const char *sw = json_string_value(json_object_get(msg, "software"));
        return err_set(err, errlen, EPROTO,
                       "protocol version mismatch: peer (%.64s) speaks version %lld, this netab "
                       "speaks version %d",
                       sw ? sw : "unknown software", (long long)json_integer_value(v),
                       PROTO_VERSION);
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
        const char *m = json_string_value(json_object_get(msg, "message"));
        return err_set(err, errlen, ECONNABORTED, "%s: %.400s", peer,
                       m ? m : "error without a message");
    }
    return err_set(err, errlen, EPROTO, "expected a \"%s\" message from the %s, got \"%.32s\"",
                   type, peer, t);
}
