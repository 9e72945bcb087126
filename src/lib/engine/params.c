#include "engine/params.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/path_rx.h"
#include "measure/profile.h"

void params_defaults(struct test_params *p)
{
    memset(p, 0, sizeof(*p));
    p->kind = TEST_TCP_STREAM;
    p->duration_s = 10;
    p->streams = 1;
    p->block = 128 * 1024;
    p->interval_s = 1;
    p->server_cpu = -1;
    p->rate_bps = 1000 * 1000;
    p->req_size = 1;
    p->resp_size = 1;
    p->outstanding = 1;
    p->rr_timeout_ms = 200;
}

uint32_t params_default_block(enum test_kind kind)
{
    return params_is_udp(kind) ? 1460 : 128 * 1024;
}

bool params_is_udp(enum test_kind kind)
{
    return kind == TEST_UDP_STREAM || kind == TEST_UDP_RR;
}

bool params_is_rr(enum test_kind kind)
{
    return kind == TEST_TCP_RR || kind == TEST_UDP_RR || kind == TEST_TCP_CRR;
}

static const char *const kind_names[] = {
    [TEST_TCP_STREAM] = "tcp_stream", [TEST_UDP_STREAM] = "udp_stream", [TEST_TCP_RR] = "tcp_rr",
    [TEST_UDP_RR] = "udp_rr",         [TEST_TCP_CRR] = "tcp_crr",       [TEST_RRUL] = "rrul",
};

const char *params_kind_name(enum test_kind kind)
{
    if ((unsigned)kind < sizeof(kind_names) / sizeof(kind_names[0]))
        return kind_names[kind];
    return "unknown";
}

int params_kind_from_name(const char *name, enum test_kind *kind)
{
    for (unsigned i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
        if (kind_names[i] && !strcmp(name, kind_names[i])) {
            *kind = (enum test_kind)i;
            return 0;
        }
    return -EINVAL;
}

int params_connections(const struct test_params *p)
{
    return p->bidir ? 2 * p->streams : p->streams;
}

/* --flows and --threads: ranges, and the test kinds the flow engine runs so far. */
static int params_validate_flows(const struct test_params *p, char *err, size_t errlen)
{
    if (p->threads < 0 || p->threads > PARAMS_MAX_THREADS)
        return err_set(err, errlen, EINVAL, "threads %d is out of range 1..%d", p->threads,
                       PARAMS_MAX_THREADS);
    if (!p->flows)
        return p->threads ? err_set(err, errlen, EINVAL, "--threads applies only with --flows") : 0;
    if (p->flows < 1 || p->flows > PARAMS_MAX_FLOWS)
        return err_set(err, errlen, EINVAL, "flows %d is out of range 1..%d", p->flows,
                       PARAMS_MAX_FLOWS);
    if (p->streams != p->flows)
        return err_set(err, errlen, EINVAL, "-P and --flows cannot be combined");
    if (p->kind == TEST_UDP_STREAM)
        return err_set(err, errlen, EINVAL,
                       "--flows runs tcp_stream, tcp_rr, udp_rr and tcp_crr so far, not %s",
                       params_kind_name(p->kind));
    if (params_is_rr(p->kind) && p->outstanding != 1)
        return err_set(err, errlen, EINVAL, "--flows keeps one transaction in flight per flow");
    return 0;
}

int params_validate(const struct test_params *p, char *err, size_t errlen)
{
    return params_validate_udp_min(p, PARAMS_UDP_HEADER, err, errlen);
}

int params_validate_udp_min(const struct test_params *p, uint32_t udp_min, char *err, size_t errlen)
{
    if (!isfinite(p->duration_s) || p->duration_s <= 0 || p->duration_s > PARAMS_MAX_DURATION)
        return err_set(err, errlen, EINVAL, "duration %g s is out of range (0, %g]", p->duration_s,
                       PARAMS_MAX_DURATION);
    int rc = params_validate_flows(p, err, errlen);
    if (rc)
        return rc;
    if (!p->flows && (p->streams < 1 || p->streams > PARAMS_MAX_STREAMS))
        return err_set(err, errlen, EINVAL, "streams %d is out of range 1..%d", p->streams,
                       PARAMS_MAX_STREAMS);
    if (p->block < 1 || p->block > PARAMS_MAX_BLOCK)
        return err_set(err, errlen, EINVAL, "block size %u is out of range 1..%u", p->block,
                       PARAMS_MAX_BLOCK);
    if (p->sockbuf > 1024u * 1024 * 1024)
        return err_set(err, errlen, EINVAL, "socket buffer %u is above 1 GiB", p->sockbuf);
    if (p->mss != 0 && (p->mss < 88 || p->mss > 65535))
        return err_set(err, errlen, EINVAL, "MSS %u is out of range 88..65535", p->mss);
    if (!isfinite(p->omit_s) || p->omit_s < 0 || p->omit_s > 3600)
        return err_set(err, errlen, EINVAL, "omit %g s is out of range [0, 3600]", p->omit_s);
    if (!isfinite(p->interval_s) || p->interval_s < 0 ||
        (p->interval_s > 0 && p->interval_s < 0.1) || p->interval_s > 3600)
        return err_set(err, errlen, EINVAL,
                       "interval %g s is out of range (0 for none, else 0.1 to 3600)",
                       p->interval_s);
    if (p->reverse && p->bidir)
        return err_set(err, errlen, EINVAL, "--reverse and --bidir cannot be combined");
    if (p->server_cpu < -1 || p->server_cpu > 4095)
        return err_set(err, errlen, EINVAL, "server CPU %d is out of range 0..4095", p->server_cpu);
    if (params_is_udp(p->kind) && p->kind == TEST_UDP_STREAM &&
        (p->block < udp_min || p->block > PARAMS_UDP_MAX))
        return err_set(err, errlen, EINVAL, "UDP datagram size %u is out of range %u..%d", p->block,
                       udp_min, PARAMS_UDP_MAX);
    if (p->rate_bps > 400ull * 1000 * 1000 * 1000)
        return err_set(err, errlen, EINVAL, "rate %llu bit/s is above 400 Gbit/s",
                       (unsigned long long)p->rate_bps);
    if (params_is_rr(p->kind)) {
        uint32_t lo = p->kind == TEST_UDP_RR ? PARAMS_UDP_HEADER : 1;
        uint32_t hi = p->kind == TEST_UDP_RR ? PARAMS_UDP_MAX : PARAMS_MAX_RR_SIZE;
        if (p->req_size < lo || p->req_size > hi || p->resp_size < lo || p->resp_size > hi)
            return err_set(err, errlen, EINVAL,
                           "request and response sizes must be in range %u..%u for %s", lo, hi,
                           params_kind_name(p->kind));
        if (p->bidir || p->reverse)
            return err_set(err, errlen, EINVAL, "--reverse and --bidir do not apply to %s",
                           params_kind_name(p->kind));
        if (p->bytes)
            return err_set(err, errlen, EINVAL, "-n does not apply to %s; use -t",
                           params_kind_name(p->kind));
    }
    if (p->outstanding < 1 || p->outstanding > PARAMS_MAX_OUTSTANDING ||
        (p->kind == TEST_TCP_CRR && p->outstanding != 1))
        return err_set(err, errlen, EINVAL, "outstanding %d is out of range 1..%d%s",
                       p->outstanding, PARAMS_MAX_OUTSTANDING,
                       p->kind == TEST_TCP_CRR ? " (tcp_crr takes 1)" : "");
    if (p->rr_timeout_ms < 1 || p->rr_timeout_ms > 60000)
        return err_set(err, errlen, EINVAL, "response timeout %u ms is out of range 1..60000",
                       p->rr_timeout_ms);
    if ((p->gso || p->gro) && p->kind != TEST_UDP_STREAM)
        return err_set(err, errlen, EINVAL, "--gso and --gro apply only to udp_stream");
    /* send path (issue 32) */
    if ((rc = path_tx_params_validate(&p->tx, params_kind_name(p->kind), p->kind == TEST_TCP_STREAM,
                                      p->flows, err, errlen)))
        return rc;
    /* receive and socket paths (issue 32) */
    if ((rc = path_rx_validate(p, err, errlen)))
        return rc;
    if (memchr(p->cc, '\0', sizeof(p->cc)) == NULL)
        return err_set(err, errlen, EINVAL, "congestion control name is too long");
    for (const char *c = p->cc; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
            return err_set(err, errlen, EINVAL,
                           "congestion control name '%s' has invalid characters", p->cc);
    return 0;
}

json_t *params_to_json(const struct test_params *p)
{
    json_t *o =
        json_pack("{s:s, s:f, s:I, s:i, s:b, s:b, s:I, s:I, s:I, s:b, s:s, s:f, s:f, s:i}", "test",
                  params_kind_name(p->kind), "duration", p->duration_s, "bytes",
                  (json_int_t)p->bytes, "streams", p->streams, "reverse", p->reverse, "bidir",
                  p->bidir, "block", (json_int_t)p->block, "sockbuf", (json_int_t)p->sockbuf, "mss",
                  (json_int_t)p->mss, "nodelay", p->nodelay, "congestion", p->cc, "omit", p->omit_s,
                  "interval", p->interval_s, "server_cpu", p->server_cpu);
    json_t *more =
        json_pack("{s:I, s:b, s:b, s:I, s:I, s:i, s:I, s:b}", "rate", (json_int_t)p->rate_bps,
                  "gso", p->gso, "gro", p->gro, "req_size", (json_int_t)p->req_size, "resp_size",
                  (json_int_t)p->resp_size, "outstanding", p->outstanding, "rr_timeout_ms",
                  (json_int_t)p->rr_timeout_ms, "linger0", p->linger0);
    json_object_update(o, more);
    json_decref(more);
    /* Sent only when set, so servers that predate it keep accepting every other test. */
    if (p->udp_default_buffers)
        json_object_set_new(o, "udp_default_buffers", json_true());
    if (p->perf)
        json_object_set_new(o, "perf", json_true());
    if (p->flows)
        json_object_set_new(o, "flows", json_integer(p->flows));
    if (p->threads)
        json_object_set_new(o, "threads", json_integer(p->threads));
    if (p->profile[0])
        json_object_set_new(o, "profile", json_string(p->profile));
    /* Only the scope that is not the default: a server before scopes knows no other. */
    if (p->profile[0] && p->profile_system)
        json_object_set_new(o, "profile_scope", json_string("system"));
    /* send path (issue 32): its members only when set, as above. */
    path_tx_params_to_json(&p->tx, o);
    /* receive and socket paths (issue 32) */
    path_rx_params_to_json(p, o);
    return o;
}

static int get_num(const json_t *obj, const char *key, double *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return err_set(err, errlen, EINVAL, "test parameters lack \"%s\"", key);
    if (!json_is_number(v))
        return err_set(err, errlen, EINVAL, "test parameter \"%s\" is not a number", key);
    *out = json_number_value(v);
    return 0;
}

/*
 * An integer parameter that fits its field (0..max). The field's own range
 * is params_validate()'s to check, so that a value out of it gets one
 * sentence whichever side it falls on (129 and 0 streams alike).
 */
static int get_uint(const json_t *obj, const char *key, uint64_t max, uint64_t *out, char *err,
                    size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return err_set(err, errlen, EINVAL, "test parameters lack \"%s\"", key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return err_set(err, errlen, EINVAL,
                       "test parameter \"%s\" is not an integer in range 0..%llu", key,
                       (unsigned long long)max);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* get_uint() into a uint32_t field. */
static int get_u32(const json_t *obj, const char *key, uint32_t *out, char *err, size_t errlen)
{
    uint64_t u;
    int rc = get_uint(obj, key, UINT32_MAX, &u, err, errlen);
    if (!rc)
        *out = (uint32_t)u;
    return rc;
}

/* get_uint() into an int field (0..INT_MAX). */
static int get_int(const json_t *obj, const char *key, int *out, char *err, size_t errlen)
{
    uint64_t u;
    int rc = get_uint(obj, key, INT_MAX, &u, err, errlen);
    if (!rc)
        *out = (int)u;
    return rc;
}

static int get_bool(const json_t *obj, const char *key, bool *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_boolean(v))
        return err_set(err, errlen, EINVAL, "test parameter \"%s\" is missing or not a boolean",
                       key);
    *out = json_is_true(v);
    return 0;
}

static const char *const known_keys[] = {"test",
                                         "duration",
                                         "bytes",
                                         "streams",
                                         "reverse",
                                         "bidir",
                                         "block",
                                         "sockbuf",
                                         "mss",
                                         "nodelay",
                                         "congestion",
                                         "omit",
                                         "interval",
                                         "server_cpu",
                                         "rate",
                                         "gso",
                                         "gro",
                                         "req_size",
                                         "resp_size",
                                         "outstanding",
                                         "rr_timeout_ms",
                                         "linger0",
                                         "udp_default_buffers",
                                         "perf",
                                         "profile",
                                         "profile_scope",
                                         "flows",
                                         "threads"};

/*
 * 0 when obj is a JSON object whose every key is in known_keys, else
 * -EINVAL with err naming the first unknown key: a parameter this netab
 * does not know must be refused, not ignored.
 */
static int check_keys(const json_t *obj, char *err, size_t errlen)
{
    if (!json_is_object(obj))
        return err_set(err, errlen, EINVAL, "test parameters are not a JSON object");
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val)
    {
        int known = 0;
        for (unsigned i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
            known |= !strcmp(key, known_keys[i]);
        known |= path_tx_params_key(key); /* send path (issue 32) */
        known |= path_rx_key_known(key);  /* receive and socket paths (issue 32) */
        if (!known)
            return err_set(err, errlen, EINVAL, "unknown test parameter \"%s\"", key);
    }
    return 0;
}

int params_from_json(const json_t *obj, struct test_params *p, char *err, size_t errlen)
{
    int rc = check_keys(obj, err, errlen);
    if (rc)
        return rc;
    params_defaults(p);
    const char *name = json_string_value(json_object_get(obj, "test"));
    if (!name)
        return err_set(err, errlen, EINVAL, "test parameter \"test\" is missing or not a string");
    if (params_kind_from_name(name, &p->kind))
        return err_set(err, errlen, EINVAL, "unknown test \"%.40s\"", name);
    const char *cc = json_string_value(json_object_get(obj, "congestion"));
    if (!cc)
        return err_set(err, errlen, EINVAL,
                       "test parameter \"congestion\" is missing or not a string");
    if (strlen(cc) >= sizeof(p->cc))
        return err_set(err, errlen, EINVAL, "congestion control name is too long");
    strcpy(p->cc, cc);
    if ((rc = get_num(obj, "duration", &p->duration_s, err, errlen)) ||
        (rc = get_num(obj, "omit", &p->omit_s, err, errlen)) ||
        (rc = get_num(obj, "interval", &p->interval_s, err, errlen)) ||
        (rc = get_uint(obj, "bytes", UINT64_MAX >> 2, &p->bytes, err, errlen)) ||
        (rc = get_bool(obj, "reverse", &p->reverse, err, errlen)) ||
        (rc = get_bool(obj, "bidir", &p->bidir, err, errlen)) ||
        (rc = get_bool(obj, "nodelay", &p->nodelay, err, errlen)) ||
        (rc = get_bool(obj, "gso", &p->gso, err, errlen)) ||
        (rc = get_bool(obj, "gro", &p->gro, err, errlen)) ||
        (rc = get_bool(obj, "linger0", &p->linger0, err, errlen)) ||
        (rc = get_uint(obj, "rate", UINT64_MAX >> 2, &p->rate_bps, err, errlen)))
        return rc;
    /* Decoded as their field's type; params_validate() ranges them. */
    if ((rc = get_u32(obj, "req_size", &p->req_size, err, errlen)) ||
        (rc = get_u32(obj, "resp_size", &p->resp_size, err, errlen)) ||
        (rc = get_int(obj, "outstanding", &p->outstanding, err, errlen)) ||
        (rc = get_u32(obj, "rr_timeout_ms", &p->rr_timeout_ms, err, errlen)) ||
        (rc = get_int(obj, "streams", &p->streams, err, errlen)) ||
        (rc = get_u32(obj, "block", &p->block, err, errlen)) ||
        (rc = get_u32(obj, "sockbuf", &p->sockbuf, err, errlen)) ||
        (rc = get_u32(obj, "mss", &p->mss, err, errlen)))
        return rc;
    json_t *cpu = json_object_get(obj, "server_cpu");
    if (!json_is_integer(cpu) || json_integer_value(cpu) < -1 || json_integer_value(cpu) > 4095)
        return err_set(err, errlen, EINVAL,
                       "test parameter \"server_cpu\" is missing or out of range");
    p->server_cpu = (int)json_integer_value(cpu);
    if (json_object_get(obj, "udp_default_buffers") &&
        (rc = get_bool(obj, "udp_default_buffers", &p->udp_default_buffers, err, errlen)))
        return rc;
    if (json_object_get(obj, "perf") && (rc = get_bool(obj, "perf", &p->perf, err, errlen)))
        return rc;
    /* Optional: absent from every test that is not --flows, as older peers send them. */
    if ((json_object_get(obj, "flows") && (rc = get_int(obj, "flows", &p->flows, err, errlen))) ||
        (json_object_get(obj, "threads") &&
         (rc = get_int(obj, "threads", &p->threads, err, errlen))))
        return rc;
    const json_t *prof = json_object_get(obj, "profile");
    if (prof && (!json_is_string(prof) || !params_profile_event_known(json_string_value(prof))))
        return err_set(err, errlen, EINVAL,
                       "test parameter \"profile\" is not an event this netab samples");
    if (prof)
        snprintf(p->profile, sizeof(p->profile), "%s", json_string_value(prof));
    const json_t *scope = json_object_get(obj, "profile_scope");
    enum profile_scope sc = PROFILE_SCOPE_TEST;
    if (scope &&
        (!prof || !json_is_string(scope) || profile_scope_from_name(json_string_value(scope), &sc)))
        return err_set(
            err, errlen, EINVAL,
            "test parameter \"profile_scope\" is not \"test\" or \"system\" of a profile");
    p->profile_system = sc == PROFILE_SCOPE_SYSTEM;
    /* send path (issue 32) */
    if ((rc = path_tx_params_from_json(obj, &p->tx, err, errlen)))
        return rc;
    /* receive and socket paths (issue 32) */
    if ((rc = path_rx_params_from_json(obj, p, err, errlen)))
        return rc;
    return params_validate(p, err, errlen);
}

int params_profile_scope(const char *name, bool *system)
{
    enum profile_scope sc;
    if (profile_scope_from_name(name, &sc))
        return -EINVAL;
    *system = sc == PROFILE_SCOPE_SYSTEM;
    return 0;
}

bool params_profile_event_known(const char *name)
{
    enum profile_event e[PROFILE_MAX_EVENTS];
    return profile_events_from_list(name, e) > 0;
}
