/* Send path (issue 32): its test parameters and their protocol members (path_tx_params.h). */
#include "engine/path_tx_params.h"

#include <errno.h>
#include <string.h>

static const char *const mode_names[] = {
    [PATH_TX_COPY] = "copy",
    [PATH_TX_SENDFILE] = "sendfile",
    [PATH_TX_SPLICE] = "splice",
    [PATH_TX_MSG_ZEROCOPY] = "msg_zerocopy",
};

static const char *const mode_options[] = {
    [PATH_TX_COPY] = "",
    [PATH_TX_SENDFILE] = "-Z",
    [PATH_TX_SPLICE] = "--splice",
    [PATH_TX_MSG_ZEROCOPY] = "--msg-zerocopy",
};

#define NMODES (sizeof(mode_names) / sizeof(mode_names[0]))

bool path_tx_params_used(const struct path_tx_params *t)
{
    return t->mode != PATH_TX_COPY || t->pace_bps || t->fq_rate_bps || t->notsent_lowat;
}

const char *path_tx_mode_name(enum path_tx_mode mode)
{
    return (unsigned)mode < NMODES ? mode_names[mode] : "unknown";
}

const char *path_tx_mode_call(enum path_tx_mode mode)
{
    return mode == PATH_TX_SENDFILE ? "sendfile" : mode == PATH_TX_SPLICE ? "splice" : "send";
}

const char *path_tx_mode_option(enum path_tx_mode mode)
{
    return (unsigned)mode < NMODES ? mode_options[mode] : "";
}

/* The first option set, for messages: the mode's, else -b, --fq-rate, --notsent-lowat. */
static const char *first_option(const struct path_tx_params *t)
{
    if (t->mode != PATH_TX_COPY)
        return path_tx_mode_option(t->mode);
    if (t->pace_bps)
        return "-b";
    return t->fq_rate_bps ? "--fq-rate" : "--notsent-lowat";
}

int path_tx_params_validate(const struct path_tx_params *t, const char *kind, bool tcp_stream,
                            int flows, char *err, size_t errlen)
{
    if ((unsigned)t->mode >= NMODES)
        return err_set(err, errlen, EINVAL, "unknown send path %d", (int)t->mode);
    if (t->pace_bps > PATH_TX_MAX_RATE || t->fq_rate_bps > PATH_TX_MAX_RATE)
        return err_set(err, errlen, EINVAL, "%s: the rate is above 400 Gbit/s",
                       t->pace_bps > PATH_TX_MAX_RATE ? "-b" : "--fq-rate");
    if (t->notsent_lowat > PATH_TX_MAX_LOWAT)
        return err_set(err, errlen, EINVAL, "--notsent-lowat %u is above 1 GiB", t->notsent_lowat);
    if (!path_tx_params_used(t))
        return 0;
    if (!tcp_stream)
        return err_set(err, errlen, EINVAL, "%s applies to tcp_stream, not %s", first_option(t),
                       kind);
    /* The event-loop engine sends with plain send() only so far: refused, not ignored. */
    if (flows)
        return err_set(err, errlen, EINVAL,
                       "%s is not supported with --flows yet (use -P for several streams)",
                       first_option(t));
    return 0;
}

void path_tx_params_to_json(const struct path_tx_params *t, json_t *obj)
{
    if (t->mode != PATH_TX_COPY)
        json_object_set_new(obj, "send_path", json_string(path_tx_mode_name(t->mode)));
    if (t->pace_bps)
        json_object_set_new(obj, "tcp_rate", json_integer((json_int_t)t->pace_bps));
    if (t->fq_rate_bps)
        json_object_set_new(obj, "fq_rate", json_integer((json_int_t)t->fq_rate_bps));
    if (t->notsent_lowat)
        json_object_set_new(obj, "notsent_lowat", json_integer(t->notsent_lowat));
}

bool path_tx_params_key(const char *key)
{
    return !strcmp(key, "send_path") || !strcmp(key, "tcp_rate") || !strcmp(key, "fq_rate") ||
           !strcmp(key, "notsent_lowat");
}

/* An optional unsigned member up to max into *out (left alone when absent). */
static int get_opt_uint(const json_t *obj, const char *key, uint64_t max, uint64_t *out, char *err,
                        size_t errlen)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 1 || (uint64_t)json_integer_value(v) > max)
        return err_set(err, errlen, EINVAL,
                       "test parameter \"%s\" is not an integer in range 1..%llu", key,
                       (unsigned long long)max);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int path_tx_params_from_json(const json_t *obj, struct path_tx_params *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    const json_t *mode = json_object_get(obj, "send_path");
    if (mode) {
        const char *name = json_string_value(mode);
        unsigned i = 1; /* "copy" is never sent: it is the absence of the member */
        while (name && i < NMODES && strcmp(name, mode_names[i]))
            i++;
        if (!name || i == NMODES)
            return err_set(err, errlen, EINVAL,
                           "test parameter \"send_path\" is not sendfile, splice or msg_zerocopy");
        t->mode = (enum path_tx_mode)i;
    }
    uint64_t lowat = 0;
    int rc;
    if ((rc = get_opt_uint(obj, "tcp_rate", PATH_TX_MAX_RATE, &t->pace_bps, err, errlen)) ||
        (rc = get_opt_uint(obj, "fq_rate", PATH_TX_MAX_RATE, &t->fq_rate_bps, err, errlen)) ||
        (rc = get_opt_uint(obj, "notsent_lowat", PATH_TX_MAX_LOWAT, &lowat, err, errlen)))
        return rc;
    t->notsent_lowat = (uint32_t)lowat;
    return 0;
}
