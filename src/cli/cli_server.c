/* netab server: option parsing, daemonising and signal handling. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "cli/cli_server.h"
#include "proto/auth.h"
#include "proto/server.h"

static struct server *running;

static void on_signal(int sig)
{
    (void)sig;
    if (running)
        server_stop(running);
}

static int set_port(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    long v;
    (void)o;
    if (!optval_int("-p", value, 0, 65535, &v, err, errlen))
        return -EINVAL;
    *(uint16_t *)field = (uint16_t)v;
    return 0;
}

/* --iperf3-port[=PORT]: on, at PORT when given. */
static int set_iperf3_port(void *field, const char *value, const struct cli_opt *o, char *err,
                           size_t errlen)
{
    struct server_config *cfg = field;
    long v;
    (void)o;
    cfg->iperf3_port_on = true;
    if (value && !optval_int("--iperf3-port", value, 0, 65535, &v, err, errlen))
        return -EINVAL;
    if (value)
        cfg->iperf3_port = (uint16_t)v;
    return 0;
}

static int set_family(void *field, const char *value, const struct cli_opt *o, char *err,
                      size_t errlen)
{
    (void)value;
    (void)err;
    (void)errlen;
    *(int *)field = o->letter == '4' ? AF_INET : AF_INET6;
    return 0;
}

static int set_memory(void *field, const char *value, const struct cli_opt *o, char *err,
                      size_t errlen)
{
    char name[32];
    snprintf(name, sizeof(name), "--%s", o->name);
    return optval_size(name, value, 1ull << 50, field, err, errlen) ? 0 : -EINVAL;
}

#define FIELD(f) offsetof(struct server_opts, f)
#define CFG(f) offsetof(struct server_opts, cfg.f)

static const struct cli_opt options[] = {
    {"port", 'p', "PORT",
     "listen port (default 5301; 0 picks a free one); netab and\niperf3 clients, told apart by "
     "their first bytes",
     set_port, CFG(port), 0, 0},
    {"iperf3-port", 0, "[PORT]",
     "also listen on iperf3's port (default 5201), for iperf3\nclients that do not say -p "
     "(docs/iperf3.md)",
     set_iperf3_port, FIELD(cfg), 0, 0},
    {"bind", 'B', "ADDR", "listen address (default: all)", cli_set_string, CFG(bind_addr), 0, 0},
    {"", '4', NULL, "IPv4 only", set_family, CFG(family), 0, 0},
    {"", '6', NULL, "IPv6 only", set_family, CFG(family), 0, 0},
    {"daemon", 'D', NULL, "detach and run in the background (logs to --logfile)", cli_set_true,
     FIELD(daemon), 0, 0},
    {"logfile", 0, "FILE", "append log lines to FILE instead of stderr", cli_set_string,
     FIELD(logfile), 0, 0},
    {"pidfile", 0, "FILE", "write the server's process id to FILE", cli_set_string, FIELD(pidfile),
     0, 0},
    {"one-off", '1', NULL, "exit after one test (exit status 1 if it failed)", cli_set_true,
     CFG(one_off), 0, 0},
    {"max-clients", 0, "N", "concurrent tests; more get \"busy\" at once (default 4)", cli_set_int,
     CFG(max_clients), 1, 10000},
    {"max-duration", 0, "SEC", "longest test accepted, warm-up included (default 3600)",
     cli_set_seconds, CFG(max_duration), 0.1, 7 * 24 * 3600.0},
    {"max-streams", 0, "N", "data connections per test (default 128)", cli_set_int,
     CFG(max_streams), 1, 1024},
    {"idle-timeout", 0, "MS", "longest wait for a peer in each phase (default 10000)", cli_set_int,
     CFG(idle_timeout_ms), 100, 3600000},
    {"liveness-timeout", 0, "MS", "a running test's silent client is gone (default 5000)",
     cli_set_int, CFG(liveness_timeout_ms), 500, 3600000},
    {"max-conn-per-addr", 0, "N", "connections in their handshake per host (default 8)",
     cli_set_int, CFG(max_conn_per_addr), 1, 10000},
    {"max-pending", 0, "N", "connections in their handshake in all (default 256)", cli_set_int,
     CFG(max_pending), 1, 100000},
    {"log-burst", 0, "N",
     "log lines one host's refused connections may cause in\n10 s before they are counted in a "
     "summary (default 10)",
     cli_set_int, CFG(log_burst), 1, 1000000},
    {"max-test-memory", 0, "SIZE", "stream memory one test may cost (default 256M)", set_memory,
     CFG(max_test_memory), 0, 0},
    {"max-memory", 0, "SIZE", "stream memory all running tests may cost (default 1G)", set_memory,
     CFG(max_memory), 0, 0},
    {"port-file", 0, "FILE", "write the bound port to FILE once listening", cli_set_string,
     FIELD(portfile), 0, 0},
    {"auth-key", 0, "FILE",
     "serve only clients that prove they hold the secret in\nFILE (netab run --auth-key; the "
     "file must be private)",
     cli_set_string, FIELD(auth_key_file), 0, 0},
    {0},
};

static const struct cli_cmd server_cmd = {
    .name = "server",
    .usage = "usage: netab server [options]\n"
             "\n"
             "Serves netab tests to remote 'netab run -c HOST' clients, several at once.\n"
             "\n",
    .tail = "\n"
            "One log line per test: peer, parameters, result. SIGINT or SIGTERM stops the\n"
            "server after running tests are cut short with an error sent to their clients.\n",
    .opts = options,
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
    int rc = cli_opts_parse(&server_cmd, argc, argv, o);
    if (rc >= 0)
        return rc;
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
