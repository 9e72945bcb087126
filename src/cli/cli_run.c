/* netab run: option parsing and printing; the work happens in libnetab. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "util/units.h"
#include "cli/cli_run.h"
#include "proto/client.h"
#include "proto/server.h"
#include "report/run_json.h"
#include "report/run_text.h"
#include "store/store.h"

static const char run_usage[] =
    "usage: netab run [options]\n"
    "\n"
    "Runs one network test. Without -c, netab starts its own server on 127.0.0.1\n"
    "(an ephemeral port) so a loopback test needs no set-up.\n"
    "\n"
    "Where:\n"
    "  -c, --client HOST      run against 'netab server' on HOST\n"
    "  -p, --port PORT        server port (default 5301)\n"
    "  -4, -6                 IPv4 or IPv6 only\n"
    "  -B, --bind ADDR        local address for every connection\n"
    "      --cport PORT       fixed client ports: data connection i uses PORT+i\n"
    "What:\n"
    "      --test NAME        tcp_stream (default), udp_stream, tcp_rr, udp_rr, tcp_crr\n"
    "  -u, --udp              same as --test udp_stream\n"
    "  -t, --time SECONDS     measured duration (default 10)\n"
    "  -n, --bytes BYTES      send BYTES per direction instead of running for a time\n"
    "  -P, --parallel N       N streams, each in its own thread (default 1)\n"
    "  -R, --reverse          the server sends, the client receives\n"
    "      --bidir            both ends send at once (N streams each way)\n"
    "  -l, --length BYTES     bytes per send() (default 128K)\n"
    "  -w, --window BYTES     socket buffer size (SO_SNDBUF/SO_RCVBUF)\n"
    "  -M, --set-mss BYTES    TCP maximum segment size\n"
    "  -N, --no-delay         TCP_NODELAY\n"
    "  -C, --congestion ALGO  TCP congestion control (e.g. cubic, bbr, reno)\n"
    "  -O, --omit SECONDS     warm-up before counting starts (default 0)\n"
    "  -A, --affinity CPU[,SERVERCPU]  pin the client's (and server's) stream threads\n"
    "UDP:\n"
    "  -b, --bitrate RATE     target per stream, bits/s with K/M/G (default 1M; 0 = as fast\n"
    "                         as possible); -l is the datagram size (default 1460)\n"
    "      --gso, --gro       UDP segmentation / receive offload (UDP_SEGMENT, UDP_GRO)\n"
    "Request/response (tcp_rr, udp_rr) and connection rate (tcp_crr):\n"
    "      --req-size BYTES   request size (default 1)\n"
    "      --resp-size BYTES  response size (default 1)\n"
    "      --outstanding K    transactions in flight per stream (default 1; rr only)\n"
    "      --rr-timeout MS    udp_rr: a response later than this is lost (default 200)\n"
    "      --cport-range LO-HI  tcp_crr: cycle through these client ports\n"
    "      --linger0          tcp_crr: close with RST, leaving no TIME_WAIT\n"
    "Output:\n"
    "  -i, --interval SECONDS interval reports (default 1, 0 for none)\n"
    "  -J, --json             one JSON document on stdout (docs/json.md), also on failure\n"
    "      --db PATH          also keep the run in the results store (docs/store.md)\n"
    "      --db-label NAME    with --db: a label for the run (its variant column)\n"
    "      --connect-timeout MS  (default 5000)   --idle-timeout MS  (default 10000)\n"
    "  -h, --help\n"
    "\n"
    "Sizes take K/M/G (1024-based) and Ki/Mi/Gi. Exit status: 0 success, 1 the test\n"
    "failed, 2 bad usage.\n";

/* Prints the usage error; with --json also the one JSON document. */
static int usage_failure(struct run_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage_failure(struct run_opts *o, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    o->usage_reported = true;
    if (o->json) {
        json_t *doc =
            json_pack("{s:s, s:n, s:s}", "netab_version", NETAB_VERSION, "end", "error", msg);
        json_dumpf(doc, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(doc);
    }
    return cli_usage_error("run", "%s", msg);
}

static bool parse_affinity(const char *arg, struct run_opts *o, char *err, size_t errlen)
{
    char local[32], *comma;
    snprintf(local, sizeof(local), "%s", arg);
    comma = strchr(local, ',');
    if (comma)
        *comma++ = '\0';
    long v;
    if (!cli_parse_int("-A", local, 0, 4095, &v, err, errlen))
        return false;
    o->client.cpu = (int)v;
    if (comma) {
        if (!cli_parse_int("-A", comma, 0, 4095, &v, err, errlen))
            return false;
        o->params.server_cpu = (int)v;
    }
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
    OPT_DB,
    OPT_DB_LABEL,
};

static const struct option run_options[] = {
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
    {"db", required_argument, NULL, OPT_DB},
    {"db-label", required_argument, NULL, OPT_DB_LABEL},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static bool parse_cport_range(const char *arg, struct run_opts *o, char *err, size_t errlen)
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
    if (!cli_parse_int("--cport-range", lo, 1, 65535, &a, err, errlen) ||
        !cli_parse_int("--cport-range", hi, 1, 65535, &b, err, errlen))
        return false;
    if (b < a) {
        snprintf(err, errlen, "--cport-range: '%s' ends before it starts", arg);
        return false;
    }
    o->client.cport_lo = (uint16_t)a;
    o->client.cport_hi = (uint16_t)b;
    return true;
}

/* Returns -1 to go on, or an exit code (a usage error was reported once, by usage_failure). */
static int parse_option(int c, const char *arg, struct run_opts *o)
{
    struct test_params *p = &o->params;
    uint64_t u;
    long v;
    double d;
    char err[NB_ERRLEN];
    switch (c) {
    case 'c':
        o->host = arg;
        return -1;
    case 'p':
        if (!cli_parse_int("-p", arg, 1, 65535, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        o->client.port = (uint16_t)v;
        return -1;
    case 'B':
        o->client.bind_addr = arg;
        return -1;
    case OPT_CPORT:
        if (!cli_parse_int("--cport", arg, 1, 65535, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        o->client.cport = (uint16_t)v;
        return -1;
    case '4':
        o->client.family = AF_INET;
        return -1;
    case '6':
        o->client.family = AF_INET6;
        return -1;
    case OPT_TEST:
        if (params_kind_from_name(arg, &p->kind))
            return usage_failure(o,
                                 "--test: unknown test '%s' (known: tcp_stream, udp_stream, "
                                 "tcp_rr, udp_rr, tcp_crr)",
                                 arg);
        return -1;
    case 't':
        if (!cli_parse_seconds("-t", arg, 0.1, PARAMS_MAX_DURATION, &p->duration_s, err,
                               sizeof(err)))
            return usage_failure(o, "%s", err);
        return -1;
    case 'n':
        if (!cli_parse_size("-n", arg, UINT64_MAX >> 2, &p->bytes, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        if (p->bytes == 0)
            return usage_failure(o, "-n: the byte count must be positive");
        return -1;
    case 'P':
        if (!cli_parse_int("-P", arg, 1, PARAMS_MAX_STREAMS, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        p->streams = (int)v;
        return -1;
    case 'R':
        p->reverse = true;
        return -1;
    case OPT_BIDIR:
        p->bidir = true;
        return -1;
    case 'l':
        if (!cli_parse_size("-l", arg, PARAMS_MAX_BLOCK, &u, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        if (u == 0)
            return usage_failure(o, "-l: the block size must be positive");
        p->block = (uint32_t)u;
        o->block_set = true;
        return -1;
    case 'w':
        if (!cli_parse_size("-w", arg, 1024u * 1024 * 1024, &u, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        p->sockbuf = (uint32_t)u;
        return -1;
    case 'M':
        if (!cli_parse_int("-M", arg, 88, 65535, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        p->mss = (uint32_t)v;
        return -1;
    case 'N':
        p->nodelay = true;
        return -1;
    case 'C':
        if (strlen(arg) >= sizeof(p->cc))
            return usage_failure(o, "-C: congestion control name '%s' is too long", arg);
        strcpy(p->cc, arg);
        return -1;
    case 'O':
        if (!cli_parse_seconds("-O", arg, 0, 3600, &p->omit_s, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        return -1;
    case 'A':
        return parse_affinity(arg, o, err, sizeof(err)) ? -1 : usage_failure(o, "%s", err);
    case 'i':
        if (!cli_parse_seconds("-i", arg, 0, 3600, &d, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        if (d > 0 && d < 0.1)
            return usage_failure(o, "-i: the interval must be 0 (none) or at least 0.1 s");
        p->interval_s = d;
        return -1;
    case 'J':
        o->json = true;
        return -1;
    case OPT_CONNECT_TIMEOUT:
        if (!cli_parse_int("--connect-timeout", arg, 1, 3600000, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        o->client.connect_timeout_ms = (int)v;
        return -1;
    case OPT_IDLE_TIMEOUT:
        if (!cli_parse_int("--idle-timeout", arg, 100, 3600000, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        o->client.idle_timeout_ms = (int)v;
        return -1;
    case 'u':
        p->kind = TEST_UDP_STREAM;
        return -1;
    case 'b':
        if (units_parse_rate(arg, &p->rate_bps, err, sizeof(err)))
            return usage_failure(o, "-b: %s", err);
        return -1;
    case OPT_GSO:
        p->gso = true;
        return -1;
    case OPT_GRO:
        p->gro = true;
        return -1;
    case OPT_REQ_SIZE:
    case OPT_RESP_SIZE:
        if (!cli_parse_size(c == OPT_REQ_SIZE ? "--req-size" : "--resp-size", arg,
                            PARAMS_MAX_RR_SIZE, &u, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        if (u == 0)
            return usage_failure(o, "%s: the size must be positive",
                                 c == OPT_REQ_SIZE ? "--req-size" : "--resp-size");
        *(c == OPT_REQ_SIZE ? &p->req_size : &p->resp_size) = (uint32_t)u;
        *(c == OPT_REQ_SIZE ? &o->req_set : &o->resp_set) = true;
        return -1;
    case OPT_OUTSTANDING:
        if (!cli_parse_int("--outstanding", arg, 1, PARAMS_MAX_OUTSTANDING, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        p->outstanding = (int)v;
        return -1;
    case OPT_RR_TIMEOUT:
        if (!cli_parse_int("--rr-timeout", arg, 1, 60000, &v, err, sizeof(err)))
            return usage_failure(o, "%s", err);
        p->rr_timeout_ms = (uint32_t)v;
        return -1;
    case OPT_CPORT_RANGE:
        return parse_cport_range(arg, o, err, sizeof(err)) ? -1 : usage_failure(o, "%s", err);
    case OPT_LINGER0:
        p->linger0 = true;
        return -1;
    case OPT_DB:
        o->db = arg;
        return -1;
    case OPT_DB_LABEL:
        o->db_label = arg;
        return -1;
    case 'h':
        fputs(run_usage, stdout);
        return EXIT_OK;
    default:
        return usage_failure(o, "invalid option");
    }
}

int cli_run_parse(int argc, char **argv, struct run_opts *o)
{
    *o = (struct run_opts){0};
    params_defaults(&o->params);
    client_config_defaults(&o->client);
    o->client.port = SERVER_DEFAULT_PORT;
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
    while ((c = getopt_long(argc, argv, ":c:p:B:46t:n:P:Rl:w:M:NC:O:A:i:Jhub:", run_options,
                            NULL)) != -1) {
        /* optopt names a bad short option; argv[optind - 1] may be its cluster's predecessor. */
        if (c == '?' && optopt)
            return usage_failure(o, "unknown option '-%c'", optopt);
        if (c == '?')
            return usage_failure(o, "unknown option '%s'", argv[optind - 1]);
        if (c == ':')
            return usage_failure(o, "option '%s' needs a value", argv[optind - 1]);
        int rc = parse_option(c, optarg, o);
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return usage_failure(o, "unexpected argument '%s'", argv[optind]);
    if (!o->block_set)
        o->params.block = params_default_block(o->params.kind);
    /* udp_rr datagrams carry netab's 24-byte header; that is also their default size. */
    if (o->params.kind == TEST_UDP_RR) {
        if (!o->req_set)
            o->params.req_size = PARAMS_UDP_HEADER;
        if (!o->resp_set)
            o->params.resp_size = PARAMS_UDP_HEADER;
    }
    const struct test_params *tp = &o->params;
    if (params_is_udp(tp->kind) && (tp->mss || tp->nodelay || tp->cc[0]))
        return usage_failure(o, "-M, -N and -C apply to TCP tests, not %s",
                             params_kind_name(tp->kind));
    if (tp->kind == TEST_TCP_CRR &&
        (o->client.bind_addr || o->client.cport || tp->sockbuf || tp->mss || tp->cc[0]))
        return usage_failure(o, "-B, --cport, -w, -M and -C are not applied to tcp_crr's "
                                "connections; use --cport-range for fixed client ports");
    if (o->client.cport_lo && tp->kind == TEST_TCP_CRR &&
        o->client.cport_hi - o->client.cport_lo + 1 < params_connections(tp))
        return usage_failure(o, "--cport-range %u-%u has fewer ports than streams (%d)",
                             o->client.cport_lo, o->client.cport_hi, params_connections(tp));
    if (o->client.cport_lo && o->params.kind != TEST_TCP_CRR)
        return usage_failure(o, "--cport-range applies to tcp_crr; use --cport for other tests");
    if (o->params.linger0 && o->params.kind != TEST_TCP_CRR)
        return usage_failure(o, "--linger0 applies to tcp_crr");
    char err[NB_ERRLEN];
    if (params_validate(&o->params, err, sizeof(err)))
        return usage_failure(o, "%s", err);
    return -1;
}

static void print_interval(const struct interval_report *iv, void *ctx)
{
    (void)ctx;
    run_text_interval(stdout, iv);
}

static void *server_thread(void *arg)
{
    server_run(arg);
    return NULL;
}

/* Runs the test against netab's own server on loopback, in this process. */
static int run_in_process(struct run_opts *o, struct run_result *res)
{
    struct server_config cfg;
    server_config_defaults(&cfg);
    cfg.bind_addr = o->client.family == AF_INET6 ? "::1" : "127.0.0.1";
    cfg.port = 0;
    cfg.one_off = true;
    cfg.log = NULL;
    cfg.max_duration = PARAMS_MAX_DURATION;
    cfg.max_streams = 2 * PARAMS_MAX_STREAMS;
    cfg.idle_timeout_ms = o->client.idle_timeout_ms;
    cfg.max_send_buffers = UINT64_MAX; /* the in-process server spends the user's own memory */
    struct server *srv;
    int rc = server_open(&srv, &cfg, res->error, sizeof(res->error));
    if (rc)
        return rc;
    pthread_t t;
    if (pthread_create(&t, NULL, server_thread, srv)) {
        server_free(srv);
        return err_set(res->error, sizeof(res->error), EAGAIN, "cannot start the server thread");
    }
    o->client.host = cfg.bind_addr;
    o->client.port = server_port(srv);
    res->in_process = true;
    rc = client_run(&o->client, &o->params, res);
    server_stop(srv);
    pthread_join(t, NULL);
    server_free(srv);
    return rc;
}

/* --db: keeps the run, its document and its exit status in the results store. */
static int record_run(const struct run_opts *o, int argc, char **argv, const json_t *doc,
                      int exit_code)
{
    char argv_text[2048] = "netab";
    size_t used = strlen(argv_text);
    for (int i = 0; i < argc && used + 2 < sizeof(argv_text); i++)
        used += (size_t)snprintf(argv_text + used, sizeof(argv_text) - used, " %s", argv[i]);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    char err[NB_ERRLEN];
    int rc = text ? store_record_single_labeled(o->db, o->db_label, argv_text, text, exit_code, err,
                                                sizeof(err))
                  : err_set(err, sizeof(err), ENOMEM, "out of memory");
    free(text);
    if (rc)
        fprintf(stderr, "netab run: the result was not stored: %s\n", err);
    return rc;
}

int cli_run(int argc, char **argv)
{
    struct run_opts o;
    int rc = cli_run_parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (!o.json) {
        o.client.on_interval = print_interval;
    }
    struct run_result res;
    run_result_init(&res);
    res.params = o.params;
    res.in_process = o.host == NULL;
    snprintf(res.server, sizeof(res.server), "%s",
             o.host ? o.host : (o.client.family == AF_INET6 ? "::1" : "127.0.0.1"));
    res.port = o.host ? o.client.port : 0;
    if (!o.json)
        run_text_header(stdout, &res);
    if (o.host) {
        o.client.host = o.host;
        rc = client_run(&o.client, &o.params, &res);
    } else {
        rc = run_in_process(&o, &res);
    }
    json_t *doc = run_json_build(&res);
    if (o.json) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', stdout);
    } else {
        run_text_summary(stdout, &res);
    }
    if (rc)
        fprintf(stderr, "netab run: error: %s\n", res.error);
    int exit_code = rc ? EXIT_FAIL : EXIT_OK;
    if (o.db && record_run(&o, argc, argv, doc, exit_code))
        exit_code = EXIT_FAIL;
    json_decref(doc);
    run_result_free(&res);
    return exit_code;
}
