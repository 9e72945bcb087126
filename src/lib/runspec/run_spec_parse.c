/* run_spec_parse(): the option table and checks of `netab run` (run_spec.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proto/iperf3_client.h"
#include "proto/iperf3_wire.h"
#include "proto/server.h"
#include "runspec/run_spec.h"
#include "util/optmatch.h"
#include "util/optval.h"
#include "util/units.h"

/* -A CPU[,SERVERCPU] */
static bool parse_affinity(const char *arg, struct run_spec *o, char *err, size_t errlen)
{
    char local[32], *comma;
    snprintf(local, sizeof(local), "%s", arg);
    comma = strchr(local, ',');
    if (comma)
        *comma++ = '\0';
    long v;
    if (!optval_int("-A", local, 0, 4095, &v, err, errlen))
        return false;
    o->client.cpu = (int)v;
    if (comma) {
        if (!optval_int("-A", comma, 0, 4095, &v, err, errlen))
            return false;
        o->params.server_cpu = (int)v;
    }
    return true;
}

/* --cport-range LO-HI */
static bool parse_cport_range(const char *arg, struct run_spec *o, char *err, size_t errlen)
{
    char lo[16], *hi;
    snprintf(lo, sizeof(lo), "%s", arg);
    hi = strchr(lo, '-');
    long a, b;
    if (!hi) {
        snprintf(err, errlen, "--cport-range: '%s' is not a range LO-HI", arg);
        return false;
    }
    *hi++ = '\0';
    if (!optval_int("--cport-range", lo, 1, 65535, &a, err, errlen) ||
        !optval_int("--cport-range", hi, 1, 65535, &b, err, errlen))
        return false;
    if (b < a) {
        snprintf(err, errlen, "--cport-range: '%s' ends before it starts", arg);
        return false;
    }
    o->client.cport_lo = (uint16_t)a;
    o->client.cport_hi = (uint16_t)b;
    return true;
}

enum {
    OPT_BIDIR = 256,
    OPT_CPORT,
    OPT_TEST,
    OPT_CONNECT_TIMEOUT,
    OPT_IDLE_TIMEOUT,
    OPT_GSO,
    OPT_GRO,
    OPT_REQ_SIZE,
    OPT_RESP_SIZE,
    OPT_OUTSTANDING,
    OPT_RR_TIMEOUT,
    OPT_CPORT_RANGE,
    OPT_LINGER0,
    OPT_UDP_DEFAULT_BUFFERS,
    OPT_PERF,
    OPT_PROFILE,
    OPT_DB,
    OPT_DB_LABEL,
    OPT_PLOT,
    OPT_PLOT_WIDTH,
    OPT_PLOT_HEIGHT,
    OPT_AUTH_KEY,
    OPT_IPERF3,
};

static const char short_options[] = ":c:p:B:46t:n:P:Rl:w:M:NC:O:A:i:Jhub:";

static const struct option long_options[] = {
    {"client", required_argument, NULL, 'c'},
    {"port", required_argument, NULL, 'p'},
    {"bind", required_argument, NULL, 'B'},
    {"cport", required_argument, NULL, OPT_CPORT},
    {"test", required_argument, NULL, OPT_TEST},
    {"time", required_argument, NULL, 't'},
    {"bytes", required_argument, NULL, 'n'},
    {"parallel", required_argument, NULL, 'P'},
    {"reverse", no_argument, NULL, 'R'},
    {"bidir", no_argument, NULL, OPT_BIDIR},
    {"length", required_argument, NULL, 'l'},
    {"window", required_argument, NULL, 'w'},
    {"set-mss", required_argument, NULL, 'M'},
    {"no-delay", no_argument, NULL, 'N'},
    {"congestion", required_argument, NULL, 'C'},
    {"omit", required_argument, NULL, 'O'},
    {"affinity", required_argument, NULL, 'A'},
    {"interval", required_argument, NULL, 'i'},
    {"json", no_argument, NULL, 'J'},
    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
    {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
    {"udp", no_argument, NULL, 'u'},
    {"bitrate", required_argument, NULL, 'b'},
    {"gso", no_argument, NULL, OPT_GSO},
    {"gro", no_argument, NULL, OPT_GRO},
    {"req-size", required_argument, NULL, OPT_REQ_SIZE},
    {"resp-size", required_argument, NULL, OPT_RESP_SIZE},
    {"outstanding", required_argument, NULL, OPT_OUTSTANDING},
    {"rr-timeout", required_argument, NULL, OPT_RR_TIMEOUT},
    {"cport-range", required_argument, NULL, OPT_CPORT_RANGE},
    {"linger0", no_argument, NULL, OPT_LINGER0},
    {"udp-default-buffers", no_argument, NULL, OPT_UDP_DEFAULT_BUFFERS},
    {"perf", no_argument, NULL, OPT_PERF},
    {"profile", optional_argument, NULL, OPT_PROFILE},
    {"db", required_argument, NULL, OPT_DB},
    {"db-label", required_argument, NULL, OPT_DB_LABEL},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"plot-width", required_argument, NULL, OPT_PLOT_WIDTH},
    {"plot-height", required_argument, NULL, OPT_PLOT_HEIGHT},
    {"auth-key", required_argument, NULL, OPT_AUTH_KEY},
    {"iperf3", no_argument, NULL, OPT_IPERF3},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Options of the output: JSON, the results store, the figure; false with err set. */
static bool parse_output_option(int c, const char *arg, struct run_spec *o, char *err,
                                size_t errlen)
{
    switch (c) {
    case 'J':
        o->json = true;
        return true;
    case OPT_DB:
        o->db = arg;
        return true;
    case OPT_DB_LABEL:
        o->db_label = arg;
        return true;
    case OPT_PLOT:
        if (!*arg) {
            snprintf(err, errlen, "--plot: empty file name");
            return false;
        }
        o->plot = arg;
        return true;
    case OPT_PLOT_WIDTH:
        /* The bounds are plot/plot.h's PLOT_MIN_SIZE and PLOT_MAX_SIZE. */
        return optval_int("--plot-width", arg, 200, 8000, &o->plot_width, err, errlen);
    case OPT_PLOT_HEIGHT:
        return optval_int("--plot-height", arg, 200, 8000, &o->plot_height, err, errlen);
    default:
        snprintf(err, errlen, "invalid option");
        return false;
    }
}

/* Options of the connection; false with err set on a bad value. */
static bool parse_client_option(int c, const char *arg, struct run_spec *o, char *err,
                                size_t errlen)
{
    long v;
    switch (c) {
    case 'c':
        o->host = arg;
        return true;
    case 'p':
        if (!optval_int("-p", arg, 1, 65535, &v, err, errlen))
            return false;
        o->client.port = (uint16_t)v;
        o->port_set = true;
        return true;
    case OPT_IPERF3:
        o->client.iperf3 = true;
        return true;
    case 'B':
        o->client.bind_addr = arg;
        return true;
    case OPT_CPORT:
        if (!optval_int("--cport", arg, 1, 65535, &v, err, errlen))
            return false;
        o->client.cport = (uint16_t)v;
        return true;
    case '4':
        o->client.family = AF_INET;
        return true;
    case '6':
        o->client.family = AF_INET6;
        return true;
    case 'A':
        return parse_affinity(arg, o, err, errlen);
    case OPT_CONNECT_TIMEOUT:
        if (!optval_int("--connect-timeout", arg, 1, 3600000, &v, err, errlen))
            return false;
        o->client.connect_timeout_ms = (int)v;
        return true;
    case OPT_IDLE_TIMEOUT:
        if (!optval_int("--idle-timeout", arg, 100, 3600000, &v, err, errlen))
            return false;
        o->client.idle_timeout_ms = (int)v;
        return true;
    case OPT_CPORT_RANGE:
        return parse_cport_range(arg, o, err, errlen);
    case OPT_AUTH_KEY:
        o->auth_key_file = arg;
        return true;
    case 'h':
        o->help = true;
        return true;
    default:
        return parse_output_option(c, arg, o, err, errlen);
    }
}

/* Options of the test itself (struct test_params); false with err set on a bad value. */
static bool parse_test_option(int c, const char *arg, struct run_spec *o, char *err, size_t errlen)
{
    struct test_params *p = &o->params;
    uint64_t u;
    long v;
    double d;
    switch (c) {
    case OPT_TEST:
        if (params_kind_from_name(arg, &p->kind)) {
            snprintf(err, errlen,
                     "--test: unknown test '%s' (known: tcp_stream, udp_stream, tcp_rr, "
                     "udp_rr, tcp_crr)",
                     arg);
            return false;
        }
        return true;
    case 'u':
        p->kind = TEST_UDP_STREAM;
        return true;
    case 't':
        return optval_seconds("-t", arg, 0.1, PARAMS_MAX_DURATION, &p->duration_s, err, errlen);
    case 'n':
        if (!optval_size("-n", arg, UINT64_MAX >> 2, &p->bytes, err, errlen))
            return false;
        if (p->bytes == 0) {
            snprintf(err, errlen, "-n: the byte count must be positive");
            return false;
        }
        return true;
    case 'P':
        if (!optval_int("-P", arg, 1, PARAMS_MAX_STREAMS, &v, err, errlen))
            return false;
        p->streams = (int)v;
        return true;
    case 'R':
        p->reverse = true;
        return true;
    case OPT_BIDIR:
        p->bidir = true;
        return true;
    case 'l':
        if (!optval_size("-l", arg, PARAMS_MAX_BLOCK, &u, err, errlen))
            return false;
        if (u == 0) {
            snprintf(err, errlen, "-l: the block size must be positive");
            return false;
        }
        p->block = (uint32_t)u;
        o->block_set = true;
        return true;
    case 'w':
        if (!optval_size("-w", arg, 1024u * 1024 * 1024, &u, err, errlen))
            return false;
        p->sockbuf = (uint32_t)u;
        return true;
    case 'M':
        if (!optval_int("-M", arg, 88, 65535, &v, err, errlen))
            return false;
        p->mss = (uint32_t)v;
        return true;
    case 'N':
        p->nodelay = true;
        return true;
    case 'C':
        if (strlen(arg) >= sizeof(p->cc)) {
            snprintf(err, errlen, "-C: congestion control name '%s' is too long", arg);
            return false;
        }
        strcpy(p->cc, arg);
        return true;
    case 'O':
        return optval_seconds("-O", arg, 0, 3600, &p->omit_s, err, errlen);
    case 'i':
        if (!optval_seconds("-i", arg, 0, 3600, &d, err, errlen))
            return false;
        if (d > 0 && d < 0.1) {
            snprintf(err, errlen, "-i: the interval must be 0 (none) or at least 0.1 s");
            return false;
        }
        p->interval_s = d;
        return true;
    case 'b': {
        char why[NB_ERRLEN];
        if (units_parse_rate(arg, &p->rate_bps, why, sizeof(why))) {
            snprintf(err, errlen, "-b: %s", why);
            return false;
        }
        o->rate_set = true;
        return true;
    }
    case OPT_GSO:
        p->gso = true;
        return true;
    case OPT_GRO:
        p->gro = true;
        return true;
    case OPT_REQ_SIZE:
    case OPT_RESP_SIZE: {
        const char *name = c == OPT_REQ_SIZE ? "--req-size" : "--resp-size";
        if (!optval_size(name, arg, PARAMS_MAX_RR_SIZE, &u, err, errlen))
            return false;
        if (u == 0) {
            snprintf(err, errlen, "%s: the size must be positive", name);
            return false;
        }
        *(c == OPT_REQ_SIZE ? &p->req_size : &p->resp_size) = (uint32_t)u;
        *(c == OPT_REQ_SIZE ? &o->req_set : &o->resp_set) = true;
        return true;
    }
    case OPT_OUTSTANDING:
        if (!optval_int("--outstanding", arg, 1, PARAMS_MAX_OUTSTANDING, &v, err, errlen))
            return false;
        p->outstanding = (int)v;
        return true;
    case OPT_RR_TIMEOUT:
        if (!optval_int("--rr-timeout", arg, 1, 60000, &v, err, errlen))
            return false;
        p->rr_timeout_ms = (uint32_t)v;
        return true;
    case OPT_LINGER0:
        p->linger0 = true;
        return true;
    case OPT_PROFILE: {
        const char *ev = arg ? arg : "cpu-clock";
        if (!params_profile_event_known(ev)) {
            err_set(err, errlen, EINVAL,
                    "--profile: unknown event '%s' (cpu-clock, cycles, instructions, "
                    "L1-icache-load-misses, iTLB-load-misses)",
                    ev);
            return false;
        }
        snprintf(p->profile, sizeof(p->profile), "%s", ev);
        return true;
    }
    case OPT_PERF:
        p->perf = true;
        return true;
    case OPT_UDP_DEFAULT_BUFFERS:
        p->udp_default_buffers = true;
        return true;
    default:
        return parse_client_option(c, arg, o, err, errlen);
    }
}

/* Defaults that depend on the test kind, then the checks across options. */
static int finish(struct run_spec *o, char *err, size_t errlen)
{
    struct test_params *p = &o->params;
    const struct client_config *cl = &o->client;
    if (!o->block_set)
        p->block = params_default_block(p->kind);
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
    /* Only udp_stream is paced: a -b elsewhere would be silently ignored. */
    if (o->rate_set && p->kind != TEST_UDP_STREAM)
        return err_set(err, errlen, EINVAL,
                       "-b paces udp_stream only; %s does not take a rate (TCP sends as fast "
                       "as it can: limit it with tc, or -w)",
                       params_kind_name(p->kind));
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
    o->client.port = SERVER_DEFAULT_PORT;
}

int run_spec_parse(int argc, char *const *argv, struct run_spec *o, char *err, size_t errlen)
{
    spec_defaults(o);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-J"))
            o->json = true;
    opterr = 0;
    /*
     * optind = 0 makes glibc (and musl) reset getopt completely; with 1 a
     * parse that stopped inside a cluster such as "-hR" leaves a pointer into
     * the old argv behind, which the next parse would read.
     */
    optind = 0;
    int c;
    while ((c = optmatch_next(argc, argv, short_options, long_options)) != -1) {
        /* optopt names a bad short option; argv[optind - 1] may be its cluster's predecessor. */
        if (c == '?' && optopt)
            return err_set(err, errlen, EINVAL, "unknown option '-%c'", optopt);
        if (c == '?') {
            char hint[256];
            return err_set(err, errlen, EINVAL, "unknown option '%s'%s", argv[optind - 1],
                           optmatch_hint(argv[optind - 1], long_options, hint, sizeof(hint)));
        }
        if (c == ':')
            return err_set(err, errlen, EINVAL, "option '%s' needs a value", argv[optind - 1]);
        if (!parse_test_option(c, optarg, o, err, errlen))
            return -EINVAL;
        if (o->help)
            return 0;
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
