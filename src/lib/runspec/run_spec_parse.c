/*
 * run_spec_parse(): `netab run` options parsed by their table
 * (run_spec_opts.c), then the defaults and checks across options (run_spec.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/iperf3_client.h"
#include "proto/iperf3_wire.h"
#include "proto/server.h"
#include "runspec/run_spec.h"
#include "runspec/run_spec_path.h"
#include "runspec/run_spec_rrul.h"

/* Defaults that depend on the test kind, then the checks across options. */
static int finish(struct run_spec *o, char *err, size_t errlen)
{
    struct test_params *p = &o->params;
    const struct client_config *cl = &o->client;
    if (!o->block_set)
        p->block = params_default_block(p->kind);
    /* --test rrul (issue 31): what it does not take is refused by name, first. */
    int rrc = run_spec_rrul_finish(o, err, errlen);
    if (rrc)
        return rrc;
    /* A reader of stdout expects one of the two; which one would be a guess. */
    if (o->json && o->json_stream)
        return err_set(err, errlen, EINVAL,
                       "--json and --json-stream cannot be combined: --json prints one document "
                       "at the end, --json-stream one line per event ending with that document");
    /*
     * -P keeps its meaning (N streams, a thread each, for small N and the
     * single-stream ceiling); --flows F is F streams on the event-loop
     * engine. The two do not combine.
     */
    if (p->flows && p->streams != 1)
        return err_set(err, errlen, EINVAL,
                       "-P and --flows cannot be combined: -P N runs N streams with a thread "
                       "each, --flows F runs F flows over --threads event-loop threads");
    if (p->flows)
        p->streams = p->flows;
    /* udp_rr datagrams carry netab's 24-byte header; that is also their default size. */
    if (p->kind == TEST_UDP_RR) {
        if (!o->req_set)
            p->req_size = PARAMS_UDP_HEADER;
        if (!o->resp_set)
            p->resp_size = PARAMS_UDP_HEADER;
    }
    if (params_is_udp(p->kind) && (p->mss || p->nodelay || p->cc[0]))
        return err_set(err, errlen, EINVAL, "-M, -N and -C apply to TCP tests, not %s",
                       params_kind_name(p->kind));
    if (p->kind == TEST_TCP_CRR && (cl->bind_addr || cl->cport || p->mss || p->cc[0]))
        return err_set(err, errlen, EINVAL,
                       "-B, --cport, -M and -C are not applied to tcp_crr's "
                       "connections; use --cport-range for fixed client ports");
    /* udp_stream and tcp_stream are paced: a -b elsewhere would be silently ignored. */
    if (o->rate_set && p->kind != TEST_UDP_STREAM && p->kind != TEST_TCP_STREAM)
        return err_set(err, errlen, EINVAL,
                       "-b paces udp_stream and tcp_stream only; %s does not take a rate",
                       params_kind_name(p->kind));
    /* send path (issue 32): -b with tcp_stream, and the path options' checks. */
    int prc = run_spec_path_finish(o, err, errlen);
    if (prc)
        return prc;
    if (p->udp_default_buffers && (!params_is_udp(p->kind) || p->sockbuf))
        return err_set(err, errlen, EINVAL,
                       "--udp-default-buffers applies to UDP tests without -w");
    /* Stream i binds --cport + i: the last one must still be a port, not wrap to 0, 1, ... */
    if (cl->cport && (long)cl->cport + params_connections(p) - 1 > 65535)
        return err_set(
            err, errlen, EINVAL, "--cport %u with %d connections needs ports up to %ld, past 65535",
            cl->cport, params_connections(p), (long)cl->cport + params_connections(p) - 1);
    if (cl->cport_lo && p->kind == TEST_TCP_CRR &&
        cl->cport_hi - cl->cport_lo + 1 < params_connections(p))
        return err_set(err, errlen, EINVAL, "--cport-range %u-%u has fewer ports than streams (%d)",
                       cl->cport_lo, cl->cport_hi, params_connections(p));
    if (cl->cport_lo && p->kind != TEST_TCP_CRR)
        return err_set(err, errlen, EINVAL,
                       "--cport-range applies to tcp_crr; use --cport for other tests");
    if (p->linger0 && p->kind != TEST_TCP_CRR)
        return err_set(err, errlen, EINVAL, "--linger0 applies to tcp_crr");
    /* receive and socket paths (issue 32): --mptcp connects its own way (proto/path_mptcp.h). */
    if (p->mptcp && (cl->bind_addr || cl->cport))
        return err_set(err, errlen, EINVAL, "--mptcp does not take -B or --cport yet");
    int rc = params_validate(p, err, errlen);
    if (!rc && cl->iperf3) {
        if (!o->port_set)
            o->client.port = IPERF3_DEFAULT_PORT;
        rc = iperf3_client_check(cl, p, err, errlen);
    }
    return rc;
}

static void spec_defaults(struct run_spec *o)
{
    *o = (struct run_spec){0};
    params_defaults(&o->params);
    client_config_defaults(&o->client);
    rrul_opts_defaults(&o->rrul_opts);
    o->client.port = SERVER_DEFAULT_PORT;
}

int run_spec_parse(int argc, char *const *argv, struct run_spec *o, char *err, size_t errlen)
{
    spec_defaults(o);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-J"))
            o->json = true;
        else if (!strcmp(argv[i], "--json-stream"))
            o->json_stream = true;
    const struct opt_table t = {.name = "run", .opts = run_spec_opts};
    switch (opt_table_parse(&t, argc, argv, o, err, errlen)) {
    case OPT_ERROR:
        return -EINVAL;
    case OPT_HELP:
        o->help = true;
        return 0;
    case OPT_GO_ON:
        break;
    }
    if (optind < argc)
        return err_set(err, errlen, EINVAL, "unexpected argument '%s'", argv[optind]);
    return finish(o, err, errlen);
}

int run_spec_parse_words(char *const *words, size_t n, struct run_spec *spec, char *err,
                         size_t errlen)
{
    if (n > 4096)
        return err_set(err, errlen, E2BIG, "%zu option words are too many", n);
    char **argv = calloc(n + 2, sizeof(*argv));
    if (!argv)
        return err_set(err, errlen, ENOMEM, "out of memory");
    argv[0] = "run";
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = words[i];
    int rc = run_spec_parse((int)n + 1, argv, spec, err, errlen);
    free(argv);
    return rc;
}
