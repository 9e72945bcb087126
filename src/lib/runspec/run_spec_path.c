/* send path (issue 32): `netab run`'s path and pacing options (run_spec_path.h). */
#include "runspec/run_spec_path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runspec/run_spec.h"
#include "util/optval.h"
#include "util/units.h"

int run_spec_set_send_path(void *field, const char *value, const struct opt *o, char *err,
                           size_t errlen)
{
    struct path_tx_params *t = field;
    (void)value;
    enum path_tx_mode m = o->letter == 'Z'             ? PATH_TX_SENDFILE
                          : !strcmp(o->name, "splice") ? PATH_TX_SPLICE
                                                       : PATH_TX_MSG_ZEROCOPY;
    /* One path per test: a compare's variants are the way to set two side by side. */
    if (t->mode != PATH_TX_COPY && t->mode != m)
        return err_set(err, errlen, EINVAL, "%s and %s cannot be combined: a sender has one path",
                       path_tx_mode_option(t->mode), path_tx_mode_option(m));
    t->mode = m;
    return 0;
}

int run_spec_set_fq_rate(void *field, const char *value, const struct opt *o, char *err,
                         size_t errlen)
{
    struct path_tx_params *t = field;
    char why[NB_ERRLEN];
    (void)o;
    if (units_parse_rate(value, &t->fq_rate_bps, why, sizeof(why)))
        return err_set(err, errlen, EINVAL, "--fq-rate: %s", why);
    if (!t->fq_rate_bps || t->fq_rate_bps > PATH_TX_MAX_RATE)
        return err_set(err, errlen, EINVAL, "--fq-rate: '%s' is not a rate above 0 and up to 400G",
                       value);
    return 0;
}

int run_spec_set_notsent_lowat(void *field, const char *value, const struct opt *o, char *err,
                               size_t errlen)
{
    struct path_tx_params *t = field;
    uint64_t u;
    (void)o;
    if (!optval_size("--notsent-lowat", value, PATH_TX_MAX_LOWAT, &u, err, errlen))
        return -EINVAL;
    if (!u)
        return err_set(err, errlen, EINVAL, "--notsent-lowat: the size must be positive");
    t->notsent_lowat = (uint32_t)u;
    return 0;
}

int run_spec_path_finish(struct run_spec *o, char *err, size_t errlen)
{
    struct test_params *p = &o->params;
    (void)err;
    (void)errlen;
    /* -b with TCP paces the sender as iperf3 does; UDP keeps its own rate field. */
    if (o->rate_set && p->kind == TEST_TCP_STREAM) {
        struct test_params d;
        params_defaults(&d);
        p->tx.pace_bps = p->rate_bps;
        p->rate_bps = d.rate_bps;
    }
    return 0;
}

void run_spec_path_argv(const struct run_spec *s, void (*push)(void *a, const char *word), void *a)
{
    const struct path_tx_params *t = &s->params.tx;
    char buf[32];
    if (t->mode != PATH_TX_COPY)
        push(a, t->mode == PATH_TX_SENDFILE ? "--zerocopy" : path_tx_mode_option(t->mode));
    if (t->pace_bps) {
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->pace_bps);
        push(a, "--bitrate");
        push(a, buf);
    }
    if (t->fq_rate_bps) {
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->fq_rate_bps);
        push(a, "--fq-rate");
        push(a, buf);
    }
    if (t->notsent_lowat) {
        snprintf(buf, sizeof(buf), "%u", t->notsent_lowat);
        push(a, "--notsent-lowat");
        push(a, buf);
    }
}
