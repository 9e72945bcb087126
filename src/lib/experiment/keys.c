/* The keys of an experiment's test: mapping and matrix, and the netab run options they become. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/params.h"
#include "experiment/experiment.h"
#include "experiment/exp_priv.h"
#include "util/units.h"

/* Keep docs/experiment.md's table in step with this one. */
static const struct exp_key keys[] = {
    {"test", "--test", EXP_TESTNAME, 0, 0},
    {"time", "-t", EXP_SECONDS, 0, 0},
    {"bytes", "-n", EXP_SIZE, 0, 0},
    {"streams", "-P", EXP_INT, 1, PARAMS_MAX_STREAMS},
    {"reverse", "-R", EXP_BOOL, 0, 0},
    {"bidir", "--bidir", EXP_BOOL, 0, 0},
    {"length", "-l", EXP_SIZE, 0, 0},
    {"window", "-w", EXP_SIZE, 0, 0},
    {"mss", "-M", EXP_INT, 88, 65535},
    {"nodelay", "-N", EXP_BOOL, 0, 0},
    {"congestion", "-C", EXP_STR, 0, 0},
    {"omit", "-O", EXP_SECONDS, 0, 0},
    {"bitrate", "-b", EXP_RATE, 0, 0},
    {"udp_gso", "--gso", EXP_BOOL, 0, 0},
    {"udp_gro", "--gro", EXP_BOOL, 0, 0},
    {"req_size", "--req-size", EXP_SIZE, 0, 0},
    {"resp_size", "--resp-size", EXP_SIZE, 0, 0},
    {"outstanding", "--outstanding", EXP_INT, 1, PARAMS_MAX_OUTSTANDING},
    {"rr_timeout", "--rr-timeout", EXP_INT, 1, 60000},
    {"cport_range", "--cport-range", EXP_STR, 0, 0},
    {"linger0", "--linger0", EXP_BOOL, 0, 0},
    {"affinity", "-A", EXP_STR, 0, 0},
    {"server", "-c", EXP_STR, 0, 0},
    {"port", "-p", EXP_INT, 1, 65535},
    {"bind", "-B", EXP_STR, 0, 0},
    {"cport", "--cport", EXP_INT, 1, 65535},
    {"interval", "-i", EXP_SECONDS, 0, 0},
    {"connect_timeout", "--connect-timeout", EXP_INT, 1, 3600000},
    {"idle_timeout", "--idle-timeout", EXP_INT, 100, 3600000},
};

const struct exp_key *experiment_keys(size_t *n)
{
    *n = sizeof(keys) / sizeof(keys[0]);
    return keys;
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
                           "tcp_crr)",
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
    case EXP_BOOL:
        if (strcmp(val, "true") && strcmp(val, "false"))
            return err_set(err, errlen, -EINVAL, "'%s' must be true or false, not '%s'", k->name,
                           val);
        return 0;
    }
    return err_set(err, errlen, -EINVAL, "internal error: bad key kind");
}
