/*
 * The forms of a build identity: JSON (run results, environment snapshots,
 * the server's result message) and the composite text of `netab env
 * --identity`; and the interface a socket's local address belongs to.
 */
#include "measure/identity.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

static json_t *str_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

json_t *identity_to_json(const struct identity *id)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "release", str_or_null(id->release));
    json_object_set_new(o, "version", str_or_null(id->version));
    json_object_set_new(o, "build_id", str_or_null(id->build_id));
    json_object_set_new(o, "config_sha256", str_or_null(id->config_sha256));
    json_object_set_new(o, "config_source", str_or_null(id->config_source));
    json_object_set_new(o, "cmdline", str_or_null(id->cmdline));
    json_object_set_new(o, "interface", str_or_null(id->iface));
    json_t *m = json_null();
    if (id->module.name[0]) {
        m = json_object();
        json_object_set_new(m, "name", json_string(id->module.name));
        json_object_set_new(
            m, "builtin", id->module.builtin < 0 ? json_null() : json_boolean(id->module.builtin));
        json_object_set_new(m, "srcversion", str_or_null(id->module.srcversion));
        json_object_set_new(m, "build_id", str_or_null(id->module.build_id));
    }
    json_object_set_new(o, "module", m);
    return o;
}

/*
 * Copies member key of obj (a string or null/absent) into out, checking it
 * fits, is printable ASCII and, with hex, is an even number of lower-case
 * hex digits. Returns 0 or -EPROTO naming the member.
 */
static int take_str(const json_t *obj, const char *what, const char *key, char *out, size_t len,
                    int hex, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    out[0] = '\0';
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || json_string_length(v) >= len)
        return err_set(err, errlen, EPROTO, "%s.%s is not a string of fewer than %zu bytes", what,
                       key, len);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int ok = hex ? (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') : c >= 0x20 && c <= 0x7e;
        if (!ok)
            return err_set(err, errlen, EPROTO, "%s.%s has a byte 0x%02x that does not belong",
                           what, key, c);
    }
    if (hex && n % 2)
        return err_set(err, errlen, EPROTO, "%s.%s has an odd number of hex digits", what, key);
    memcpy(out, s, n + 1);
    return 0;
}

static int module_from_json(const json_t *m, struct identity_module *mod, char *err, size_t errlen)
{
    int e;
    if (!m || json_is_null(m))
        return 0;
    if (!json_is_object(m))
        return err_set(err, errlen, EPROTO, "identity.module is neither an object nor null");
    if ((e = take_str(m, "identity.module", "name", mod->name, sizeof(mod->name), 0, err,
                      errlen)) ||
        (e = take_str(m, "identity.module", "srcversion", mod->srcversion, sizeof(mod->srcversion),
                      0, err, errlen)) ||
        (e = take_str(m, "identity.module", "build_id", mod->build_id, sizeof(mod->build_id), 1,
                      err, errlen)))
        return e;
    if (!mod->name[0])
        return err_set(err, errlen, EPROTO, "identity.module has no name");
    json_t *b = json_object_get(m, "builtin");
    if (b && !json_is_null(b) && !json_is_boolean(b))
        return err_set(err, errlen, EPROTO,
                       "identity.module.builtin is neither true, false nor null");
    mod->builtin = json_is_boolean(b) ? json_is_true(b) : -1;
    return 0;
}

int identity_from_json(const json_t *obj, struct identity *id, char *err, size_t errlen)
{
    static const struct {
        const char *key;
        size_t offset, len;
        int hex;
    } fields[] = {
        {"release", offsetof(struct identity, release), sizeof(id->release), 0},
        {"version", offsetof(struct identity, version), sizeof(id->version), 0},
        {"build_id", offsetof(struct identity, build_id), sizeof(id->build_id), 1},
        {"config_sha256", offsetof(struct identity, config_sha256), sizeof(id->config_sha256), 1},
        {"config_source", offsetof(struct identity, config_source), sizeof(id->config_source), 0},
        {"cmdline", offsetof(struct identity, cmdline), sizeof(id->cmdline), 0},
        {"interface", offsetof(struct identity, iface), sizeof(id->iface), 0},
    };
    memset(id, 0, sizeof(*id));
    id->module.builtin = -1;
    if (!json_is_object(obj))
        return err_set(err, errlen, EPROTO, "identity is not a JSON object");
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        int e = take_str(obj, "identity", fields[i].key, (char *)id + fields[i].offset,
                         fields[i].len, fields[i].hex, err, errlen);
        if (e)
            return e;
    }
    if (id->config_sha256[0] && strlen(id->config_sha256) != 64)
        return err_set(err, errlen, EPROTO, "identity.config_sha256 is not 64 hex digits");
    return module_from_json(json_object_get(obj, "module"), &id->module, err, errlen);
}

static const char *or_unknown(const char *s)
{
    return s[0] ? s : "unknown";
}

void identity_write_text(const struct identity *id, FILE *f)
{
    fprintf(f, "release: %s\n", or_unknown(id->release));
    fprintf(f, "version: %s\n", or_unknown(id->version));
    fprintf(f, "build_id: %s\n", or_unknown(id->build_id));
    if (id->config_sha256[0])
        fprintf(f, "config_sha256: %s (%s)\n", id->config_sha256, id->config_source);
    else
        fprintf(f, "config_sha256: unknown\n");
    fprintf(f, "cmdline: %s\n", or_unknown(id->cmdline));
    const struct identity_module *m = &id->module;
    if (!m->name[0])
        fprintf(f, "module: none\n");
    else if (m->builtin == 1)
        fprintf(f, "module: %s built-in\n", m->name);
    else
        fprintf(f, "module: %s srcversion %s build_id %s\n", m->name, or_unknown(m->srcversion),
                or_unknown(m->build_id));
}

/* Does the interface address a equal the socket address s (same family, same address)? */
static int same_addr(const struct sockaddr *a, const struct sockaddr_storage *s)
{
    if (!a || a->sa_family != s->ss_family)
        return 0;
    if (a->sa_family == AF_INET)
        return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
                       &((const struct sockaddr_in *)s)->sin_addr, sizeof(struct in_addr));
    if (a->sa_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)s)->sin6_addr, sizeof(struct in6_addr));
    return 0;
}

/* Turns an IPv4-mapped IPv6 address into the IPv4 address it maps. */
static void unmap_v4(struct sockaddr_storage *ss)
{
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
        return;
    struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};
    memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
    memset(ss, 0, sizeof(*ss));
    memcpy(ss, &s4, sizeof(s4));
}

static int is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    return ss->ss_family == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

int identity_iface_of_socket(int fd, char *ifname, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    struct ifaddrs *ifa = NULL;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl))
        return -errno;
    unmap_v4(&ss);
    if (getifaddrs(&ifa))
        return -errno;
    int e = -ENODEV;
    for (struct ifaddrs *i = ifa; i && e; i = i->ifa_next)
        if (i->ifa_name && same_addr(i->ifa_addr, &ss) && strlen(i->ifa_name) < len) {
            snprintf(ifname, len, "%s", i->ifa_name);
            e = 0;
        }
    freeifaddrs(ifa);
    if (e && is_loopback(&ss) && len > 2) {
        snprintf(ifname, len, "lo");
        e = 0;
    }
    return e;
}

void identity_capture_socket(struct identity *id, int fd)
{
    char ifname[64];
    identity_capture(id, NULL,
                     identity_iface_of_socket(fd, ifname, sizeof(ifname)) ? NULL : ifname);
}
