/* netab server: option parsing, daemonising and signal handling. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_server.h"
#include "proto/auth.h"
#include "proto/server.h"

static const char server_usage[] =
    "usage: netab server [options]\n"
    "\n"
    "Serves netab tests to remote 'netab run -c HOST' clients, several at once.\n"
    "\n"
    "  -p, --port PORT          listen port (default 5301; 0 picks a free one); netab and\n"
    "                           iperf3 clients, told apart by their first bytes\n"
    "      --iperf3-port[=PORT] also listen on iperf3's port (default 5201), for iperf3\n"
    "                           clients that do not say -p (docs/iperf3.md)\n"
    "  -B, --bind ADDR          listen address (default: all)\n"
    "  -4, -6                   IPv4 or IPv6 only\n"
    "  -D, --daemon             detach and run in the background (logs to --logfile)\n"
    "      --logfile FILE       append log lines to FILE instead of stderr\n"
    "      --pidfile FILE       write the server's process id to FILE\n"
    "  -1, --one-off            exit after one test (exit status 1 if it failed)\n"
    "      --max-clients N      concurrent tests; more get \"busy\" at once (default 4)\n"
    "      --max-duration SEC   longest test accepted, warm-up included (default 3600)\n"
    "      --max-streams N      data connections per test (default 128)\n"
    "      --idle-timeout MS    longest wait for a peer in each phase (default 10000)\n"
    "      --liveness-timeout MS  a running test's silent client is gone (default 5000)\n"
    "      --max-conn-per-addr N  connections in their handshake per host (default 8)\n"
    "      --max-pending N      connections in their handshake in all (default 256)\n"
    "      --log-burst N        log lines one host's refused connections may cause in\n"
    "                           10 s before they are counted in a summary (default 10)\n"
    "      --max-test-memory SIZE  stream memory one test may cost (default 256M)\n"
    "      --max-memory SIZE    stream memory all running tests may cost (default 1G)\n"
    "      --port-file FILE     write the bound port to FILE once listening\n"
    "      --auth-key FILE      serve only clients that prove they hold the secret in\n"
    "                           FILE (netab run --auth-key; the file must be private)\n"
    "  -h, --help\n"
    "\n"
    "One log line per test: peer, parameters, result. SIGINT or SIGTERM stops the\n"
    "server after running tests are cut short with an error sent to their clients.\n";

static struct server *running;

static void on_signal(int sig)
{
    (void)sig;
    if (running)
        server_stop(running);
}

enum {
    OPT_MAX_CLIENTS = 256,
    OPT_MAX_DURATION,
    OPT_MAX_STREAMS,
    OPT_IDLE,
    OPT_LOG_BURST,
    OPT_LOGFILE,
    OPT_PIDFILE,
    OPT_PORTFILE,
    OPT_LIVENESS,
    OPT_PER_ADDR,
    OPT_PENDING,
    OPT_TEST_MEMORY,
    OPT_MEMORY,
    OPT_AUTH_KEY,
    OPT_IPERF3_PORT
};

static const struct option server_options[] = {
    {"port", required_argument, NULL, 'p'},
    {"bind", required_argument, NULL, 'B'},
    {"daemon", no_argument, NULL, 'D'},
    {"one-off", no_argument, NULL, '1'},
    {"max-clients", required_argument, NULL, OPT_MAX_CLIENTS},
    {"max-duration", required_argument, NULL, OPT_MAX_DURATION},
    {"max-streams", required_argument, NULL, OPT_MAX_STREAMS},
    {"idle-timeout", required_argument, NULL, OPT_IDLE},
    {"logfile", required_argument, NULL, OPT_LOGFILE},
    {"pidfile", required_argument, NULL, OPT_PIDFILE},
    {"port-file", required_argument, NULL, OPT_PORTFILE},
    {"liveness-timeout", required_argument, NULL, OPT_LIVENESS},
    {"max-conn-per-addr", required_argument, NULL, OPT_PER_ADDR},
    {"max-pending", required_argument, NULL, OPT_PENDING},
    {"log-burst", required_argument, NULL, OPT_LOG_BURST},
    {"max-test-memory", required_argument, NULL, OPT_TEST_MEMORY},
    {"max-memory", required_argument, NULL, OPT_MEMORY},
    {"auth-key", required_argument, NULL, OPT_AUTH_KEY},
    {"iperf3-port", optional_argument, NULL, OPT_IPERF3_PORT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* " and iperf3 port N" with --iperf3-port, else "" (static buffer: one server per process). */
static const char *iperf3_port_text(const struct server *srv)
{
    static char text[40];
    text[0] = '\0';
    if (server_iperf3_port(srv))
        snprintf(text, sizeof(text), " and iperf3 port %u", server_iperf3_port(srv));
    return text;
}

int cli_server_parse(int argc, char **argv, struct server_opts *o)
{
    *o = (struct server_opts){0};
    server_config_defaults(&o->cfg);
    opterr = 0;
    optind = 0; /* a full getopt reset: see cli_run_parse() */
    int c;
    long v;
    char err[NB_ERRLEN];
    while ((c = optmatch_next(argc, argv, ":p:B:46D1h", server_options)) != -1) {
        switch (c) {
        case 'p':
            if (!optval_int("-p", optarg, 0, 65535, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.port = (uint16_t)v;
            break;
        case 'B':
            o->cfg.bind_addr = optarg;
            break;
        case OPT_IPERF3_PORT:
            o->cfg.iperf3_port_on = true;
            if (optarg && !optval_int("--iperf3-port", optarg, 0, 65535, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            if (optarg)
                o->cfg.iperf3_port = (uint16_t)v;
            break;
        case '4':
            o->cfg.family = AF_INET;
            break;
        case '6':
            o->cfg.family = AF_INET6;
            break;
        case 'D':
            o->daemon = true;
            break;
        case '1':
            o->cfg.one_off = true;
            break;
        case OPT_MAX_CLIENTS:
            if (!optval_int("--max-clients", optarg, 1, 10000, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.max_clients = (int)v;
            break;
        case OPT_MAX_DURATION:
            if (!optval_seconds("--max-duration", optarg, 0.1, 7 * 24 * 3600.0,
                                &o->cfg.max_duration, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            break;
        case OPT_MAX_STREAMS:
            if (!optval_int("--max-streams", optarg, 1, 1024, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.max_streams = (int)v;
            break;
        case OPT_IDLE:
            if (!optval_int("--idle-timeout", optarg, 100, 3600000, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.idle_timeout_ms = (int)v;
            break;
        case OPT_LIVENESS:
            if (!optval_int("--liveness-timeout", optarg, 500, 3600000, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.liveness_timeout_ms = (int)v;
            break;
        case OPT_PER_ADDR:
            if (!optval_int("--max-conn-per-addr", optarg, 1, 10000, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.max_conn_per_addr = (int)v;
            break;
        case OPT_PENDING:
            if (!optval_int("--max-pending", optarg, 1, 100000, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.max_pending = (int)v;
            break;
        case OPT_LOG_BURST:
            if (!optval_int("--log-burst", optarg, 1, 1000000, &v, err, sizeof(err)))
                return cli_usage_error("server", "%s", err);
            o->cfg.log_burst = (int)v;
            break;
        case OPT_TEST_MEMORY:
        case OPT_MEMORY:
            if (!optval_size(c == OPT_MEMORY ? "--max-memory" : "--max-test-memory", optarg,
                             1ull << 50,
                             c == OPT_MEMORY ? &o->cfg.max_memory : &o->cfg.max_test_memory, err,
                             sizeof(err)))
                return cli_usage_error("server", "%s", err);
            break;
        case OPT_LOGFILE:
            o->logfile = optarg;
            break;
        case OPT_PIDFILE:
            o->pidfile = optarg;
            break;
        case OPT_PORTFILE:
            o->portfile = optarg;
            break;
        case OPT_AUTH_KEY:
            o->auth_key_file = optarg;
            break;
        case 'h':
            fputs(server_usage, stdout);
            return EXIT_OK;
        case ':':
            return cli_usage_error("server", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_unknown_option("server", argv, server_options);
        }
    }
    if (optind < argc)
        return cli_usage_error("server", "unexpected argument '%s'", argv[optind]);
    return -1;
}

static int write_file(const char *path, unsigned long value)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "netab server: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "%lu\n", value);
    return fclose(f) ? -1 : 0;
}

/* Opens the log, binds, daemonises if asked and serves until a signal. Returns the exit code. */
static int serve(struct server_opts o)
{
    int rc;
    FILE *log = NULL;
    if (o.logfile) {
        log = fopen(o.logfile, "a");
        if (!log) {
            fprintf(stderr, "netab server: cannot open log file %s: %s\n", o.logfile,
                    strerror(errno));
            return EXIT_ERROR;
        }
        o.cfg.log = log;
    } else if (o.daemon) {
        o.cfg.log = NULL;
    }
    /* As for `netab run`: the collection-cost benchmark switches counters off. */
    const char *nc = getenv("NETAB_NO_COUNTERS");
    o.cfg.no_counters = nc && *nc && strcmp(nc, "0");
    char err[NB_ERRLEN];
    struct server *srv;
    if (server_open(&srv, &o.cfg, err, sizeof(err))) {
        fprintf(stderr, "netab server: %s\n", err);
        if (log)
            fclose(log);
        return EXIT_ERROR;
    }
    /* Daemonise after binding, so a port already in use is reported to the caller. */
    if (o.daemon && daemon(1, 0)) {
        fprintf(stderr, "netab server: cannot daemonise: %s\n", strerror(errno));
        server_free(srv);
        return EXIT_ERROR;
    }
    if ((o.pidfile && write_file(o.pidfile, (unsigned long)getpid())) ||
        (o.portfile && write_file(o.portfile, server_port(srv)))) {
        server_free(srv);
        return EXIT_ERROR;
    }
    running = srv;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (o.cfg.log && !o.daemon)
        fprintf(o.cfg.log, "netab server %s listening on port %u%s%s\n", NETAB_VERSION,
                server_port(srv), iperf3_port_text(srv),
                o.cfg.auth_key ? " (clients must prove the --auth-key)" : "");
    rc = server_run(srv);
    running = NULL;
    server_free(srv);
    if (o.pidfile)
        unlink(o.pidfile);
    if (log)
        fclose(log);
    return rc ? EXIT_FAIL : EXIT_OK;
}

int cli_server(int argc, char **argv)
{
    struct server_opts o;
    int rc = cli_server_parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    /* The key is read first: a bad key file stops the server before it listens. */
    struct auth_key *key = NULL;
    char err[NB_ERRLEN];
    if (o.auth_key_file && auth_key_load(o.auth_key_file, &key, err, sizeof(err))) {
        fprintf(stderr, "netab server: %s\n", err);
        return EXIT_ERROR;
    }
    o.cfg.auth_key = key;
    rc = serve(o);
    auth_key_free(key);
    return rc;
}
