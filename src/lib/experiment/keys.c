/* The keys of an experiment's test: mapping and matrix, and the netab run options they become. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/params.h"
#include "experiment/experiment.h"
#include "experiment/exp_priv.h"
#include "util/units.h"

/* Keep docs/experiment.md's table in step with this one: name, option, kind, min, max. */
#define EXP_KEYS(X)                                                                                \
    X("test", "--test", EXP_TESTNAME, 0, 0)                                                        \
    X("protocol", "--iperf3", EXP_PROTOCOL, 0, 0)                                                  \
    X("time", "-t", EXP_SECONDS, 0, 0)                                                             \
    X("bytes", "-n", EXP_SIZE, 0, 0)                                                               \
    X("streams", "-P", EXP_INT, 1, PARAMS_MAX_STREAMS)                                             \
    X("flows", "--flows", EXP_INT, 1, PARAMS_MAX_FLOWS)                                            \
    X("threads", "--threads", EXP_INT, 1, PARAMS_MAX_THREADS)                                      \
    X("reverse", "-R", EXP_BOOL, 0, 0)                                                             \
    X("bidir", "--bidir", EXP_BOOL, 0, 0)                                                          \
    X("length", "-l", EXP_SIZE, 0, 0)                                                              \
    X("window", "-w", EXP_SIZE, 0, 0)                                                              \
    X("mss", "-M", EXP_INT, 88, 65535)                                                             \
    X("nodelay", "-N", EXP_BOOL, 0, 0)                                                             \
    X("congestion", "-C", EXP_STR, 0, 0)                                                           \
    X("omit", "-O", EXP_SECONDS, 0, 0)                                                             \
    X("bitrate", "-b", EXP_RATE, 0, 0)                                                             \
    X("udp_gso", "--gso", EXP_BOOL, 0, 0)                                                          \
    X("udp_gro", "--gro", EXP_BOOL, 0, 0)                                                          \
    X("udp_default_buffers", "--udp-default-buffers", EXP_BOOL, 0, 0)                              \
    X("req_size", "--req-size", EXP_SIZE, 0, 0)                                                    \
    X("resp_size", "--resp-size", EXP_SIZE, 0, 0)                                                  \
    X("outstanding", "--outstanding", EXP_INT, 1, PARAMS_MAX_OUTSTANDING)                          \
    X("rr_timeout", "--rr-timeout", EXP_INT, 1, 60000)                                             \
    X("cport_range", "--cport-range", EXP_STR, 0, 0)                                               \
    X("linger0", "--linger0", EXP_BOOL, 0, 0)                                                      \
    X("perf", "--perf", EXP_BOOL, 0, 0)                                                            \
    X("profile", "--profile", EXP_BOOL, 0, 0)                                                      \
    X("affinity", "-A", EXP_STR, 0, 0)                                                             \
    X("server", "-c", EXP_STR, 0, 0)                                                               \
    X("port", "-p", EXP_INT, 1, 65535)                                                             \
    X("bind", "-B", EXP_STR, 0, 0)                                                                 \
    X("cport", "--cport", EXP_INT, 1, 65535)                                                       \
    X("interval", "-i", EXP_SECONDS, 0, 0)                                                         \
    X("connect_timeout", "--connect-timeout", EXP_INT, 1, 3600000)                                 \
    X("idle_timeout", "--idle-timeout", EXP_INT, 100, 3600000)                                     \
    X("load_flows", "--load-flows", EXP_INT, 1, PARAMS_MAX_STREAMS)                                \
    X("load", "--load", EXP_STR, 0, 0)                                                             \
    X("probe_rate", "--probe-rate", EXP_STR, 0, 0)

#define EXP_KEY_ENTRY(name, opt, kind, min, max) {name, opt, kind, min, max},
#define EXP_KEY_NAME(name, opt, kind, min, max) name,
static const struct exp_key keys[] = {EXP_KEYS(EXP_KEY_ENTRY)};
static const char *const names[] = {EXP_KEYS(EXP_KEY_NAME)};
_Static_assert(sizeof(names) / sizeof(names[0]) <= EXP_NKEYS_MAX, "raise EXP_NKEYS_MAX");

const struct exp_key *experiment_keys(size_t *n)
{
    *n = sizeof(keys) / sizeof(keys[0]);
    return keys;
}

const char *const *exp_key_names(size_t *n)
{
    *n = sizeof(names) / sizeof(names[0]);
    return names;
}

const struct exp_key *experiment_key_find(const char *name)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!strcmp(keys[i].name, name))
            return &keys[i];
    return NULL;
}

/* Upper bound of each size option, mirroring netab run's own checks. */
static uint64_t size_max(const struct exp_key *k)
{
    if (!strcmp(k->name, "length"))
        return PARAMS_MAX_BLOCK;
    if (!strcmp(k->name, "window"))
        return 1024u * 1024 * 1024;
    if (!strcmp(k->name, "bytes"))
        return UINT64_MAX >> 2;
    return PARAMS_MAX_RR_SIZE;
}

int exp_key_check(const struct exp_key *k, const char *val, char *canon, size_t canonlen, char *err,
                  size_t errlen)
{
    char why[NB_ERRLEN];
    uint64_t u;
    double d;
    long l;
    enum test_kind kind;

    snprintf(canon, canonlen, "%s", val);
    switch (k->kind) {
    case EXP_STR:
        if (!*val)
            return err_set(err, errlen, -EINVAL, "'%s' needs a value", k->name);
        if (strlen(val) > 255)
            return err_set(err, errlen, -EINVAL, "'%s' is too long", k->name);
        return 0;
    case EXP_TESTNAME:
        if (params_kind_from_name(val, &kind))
            return err_set(err, errlen, -EINVAL,
                           "unknown test '%s' (known: tcp_stream, udp_stream, tcp_rr, udp_rr, "
                           "tcp_crr, rrul)",
                           val);
        return 0;
    case EXP_INT:
        if (units_parse_int(val, k->min, k->max, &l, why, sizeof(why)))
            return err_set(err, errlen, -EINVAL, "'%s': %s", k->name, why);
        snprintf(canon, canonlen, "%ld", l);
        return 0;
    case EXP_SIZE:
        if (units_parse_size(val, &u, why, sizeof(why)))
            return err_set(err, errlen, -EINVAL, "'%s': %s", k->name, why);
        if (u > size_max(k))
            return err_set(err, errlen, -EINVAL, "'%s': %s is too large", k->name, val);
        if (u == 0 && strcmp(k->name, "window"))
            return err_set(err, errlen, -EINVAL, "'%s' must be positive", k->name);
        return 0;
    case EXP_SECONDS:
        if (units_parse_seconds(val, &d, why, sizeof(why)))
            return err_set(err, errlen, -EINVAL, "'%s': %s", k->name, why);
        if (!strcmp(k->name, "time") && (d < 0.1 || d > PARAMS_MAX_DURATION))
            return err_set(err, errlen, -EINVAL, "'time' must be between 0.1 and %.0f seconds",
                           PARAMS_MAX_DURATION);
        if (strcmp(k->name, "time") && d > 3600)
            return err_set(err, errlen, -EINVAL, "'%s' must be at most 3600 seconds", k->name);
        return 0;
    case EXP_RATE:
        if (units_parse_rate(val, &u, why, sizeof(why)))
            return err_set(err, errlen, -EINVAL, "'%s': %s", k->name, why);
        return 0;
    case EXP_PROTOCOL:
        if (strcmp(val, "netab") && strcmp(val, "iperf3"))
            return err_set(err, errlen, -EINVAL, "'%s' must be netab or iperf3, not '%s'", k->name,
                           val);
        return 0;
    case EXP_DUT: /* checked against the duts: section where the axis is parsed (duts.c) */
        return 0;
    case EXP_BOOL:
        if (strcmp(val, "true") && strcmp(val, "false"))
            return err_set(err, errlen, -EINVAL, "'%s' must be true or false, not '%s'", k->name,
                           val);
        return 0;
    }
    return err_set(err, errlen, -EINVAL, "internal error: bad key kind");
}
