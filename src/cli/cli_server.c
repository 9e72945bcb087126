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
#include "util/outfile.h"

static struct server *running;

static void on_signal(int sig)
{
    (void)sig;
    if (running)
        server_stop(running);
}

static int set_port(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long v;
    (void)o;
    if (!optval_int("-p", value, 0, 65535, &v, err, errlen))
        return -EINVAL;
    *(uint16_t *)field = (uint16_t)v;
    return 0;
}

/* --iperf3-port[=PORT]: on, at PORT when given. */
static int set_iperf3_port(void *field, const char *value, const struct opt *o, char *err,
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

static int set_memory(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    char name[32];
    snprintf(name, sizeof(name), "--%s", o->name);
    return optval_size(name, value, 1ull << 50, field, err, errlen) ? 0 : -EINVAL;
}

#define FIELD(f) offsetof(struct server_opts, f)
#define CFG(f) offsetof(struct server_opts, cfg.f)

static const struct opt options[] = {
    {"port", 'p', "PORT",
     "listen port (default 5301; 0 picks a free one); netab and\niperf3 clients, told apart by "
     "their first bytes",
     set_port, CFG(port), 0, 0, NULL},
    {"iperf3-port", 0, "[PORT]",
     "also listen on iperf3's port (default 5201), for iperf3\nclients that do not say -p "
     "(docs/iperf3.md)",
     set_iperf3_port, FIELD(cfg), 0, 0, NULL},
    {"bind", 'B', "ADDR", "listen address (default: all)", opt_set_string, CFG(bind_addr), 0, 0,
     NULL},
    {"", '4', NULL, "IPv4 only", opt_set_const, CFG(family), AF_INET, 0, NULL},
    {"", '6', NULL, "IPv6 only", opt_set_const, CFG(family), AF_INET6, 0, NULL},
    {"daemon", 'D', NULL, "detach and run in the background (logs to --logfile)", opt_set_true,
     FIELD(daemon), 0, 0, NULL},
    {"logfile", 0, "FILE", "append log lines to FILE instead of stderr", opt_set_string,
     FIELD(logfile), 0, 0, NULL},
    {"pidfile", 0, "FILE", "write the server's process id to FILE", opt_set_string, FIELD(pidfile),
     0, 0, NULL},
    {"one-off", '1', NULL, "exit after one test (exit status 1 if it failed)", opt_set_true,
     CFG(one_off), 0, 0, NULL},
    {"max-clients", 0, "N", "concurrent tests; more get \"busy\" at once (default 4)", opt_set_int,
     CFG(max_clients), 1, 10000, NULL},
    {"max-duration", 0, "SEC", "longest test accepted, warm-up included (default 3600)",
     opt_set_seconds, CFG(max_duration), 0.1, 7 * 24 * 3600.0, NULL},
    {"max-streams", 0, "N", "data connections per test (default 128)", opt_set_int,
     CFG(max_streams), 1, 1024, NULL},
    {"max-flows", 0, "N", "--flows connections per test (default 10000)", opt_set_int,
     CFG(max_flows), 1, 100000, NULL},
    {"idle-timeout", 0, "MS", "longest wait for a peer in each phase (default 10000)", opt_set_int,
     CFG(idle_timeout_ms), 100, 3600000, NULL},
    {"liveness-timeout", 0, "MS", "a running test's silent client is gone (default 5000)",
     opt_set_int, CFG(liveness_timeout_ms), 500, 3600000, NULL},
    {"max-conn-per-addr", 0, "N", "connections in their handshake per host (default 8)",
     opt_set_int, CFG(max_conn_per_addr), 1, 10000, NULL},
    {"max-pending", 0, "N", "connections in their handshake in all (default 256)", opt_set_int,
     CFG(max_pending), 1, 100000, NULL},
    {"log-burst", 0, "N",
     "log lines one host's refused connections may cause in\n10 s before they are counted in a "
     "summary (default 10)",
     opt_set_int, CFG(log_burst), 1, 1000000, NULL},
    {"max-test-memory", 0, "SIZE", "stream memory one test may cost (default 256M)", set_memory,
     CFG(max_test_memory), 0, 0, NULL},
    {"max-memory", 0, "SIZE", "stream memory all running tests may cost (default 1G)", set_memory,
     CFG(max_memory), 0, 0, NULL},
    {"port-file", 0, "FILE", "write the bound port to FILE once listening", opt_set_string,
     FIELD(portfile), 0, 0, NULL},
    {"auth-key", 0, "FILE",
     "serve only clients that prove they hold the secret in\nFILE (netab run --auth-key; the "
     "file must be private)",
     opt_set_string, FIELD(auth_key_file), 0, 0, NULL},
    {0},
};

static const struct opt_table server_cmd = {
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

int cli_server_parse(int argc, char **argv, struct server_opts *o)
{
    *o = (struct server_opts){0};
    server_config_defaults(&o->cfg);
    int rc = cli_opts_parse(&server_cmd, argc, argv, o);
    if (rc >= 0)
        return rc;
    return cli_no_operands("server", argc, argv) ? EXIT_USAGE : -1;
}

static int write_file(const char *path, unsigned long value)
{
    char text[32], err[NB_ERRLEN];
    int len = snprintf(text, sizeof(text), "%lu\n", value);
    bool bad = outfile_write(path, text, (size_t)len, err, sizeof(err)); /* whole, or none */
    return bad ? cli_fail(-1, "server", "%s", err) : 0;
}

/* Opens the log, binds, daemonises if asked and serves until a signal. Returns the exit code. */
static int serve(struct server_opts o)
{
    int rc;
    FILE *log = NULL;
    if (o.logfile) {
        char lerr[NB_ERRLEN];
        if (!(log = outfile_append(o.logfile, lerr, sizeof(lerr))))
            return cli_fail(EXIT_ERROR, "server", "--logfile: %s", lerr);
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
        if (log)
            fclose(log);
        return cli_fail(EXIT_ERROR, "server", "%s", err);
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
    /*
     * Never restored: a second SIGINT or SIGTERM while the server closes finds
     * running NULL and is ignored, so that the pid file is still removed.
     */
    struct cli_signals sigs, ignored;
    cli_signals_catch(&sigs, on_signal, (const int[]){SIGINT, SIGTERM, 0});
    cli_signals_catch(&ignored, SIG_IGN, (const int[]){SIGPIPE, 0});
    if (o.cfg.log && !o.daemon) {
        server_listening_text(srv, &o.cfg, err, sizeof(err));
        fprintf(o.cfg.log, "%s\n", err);
    }
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
    if (o.auth_key_file && auth_key_load(o.auth_key_file, &key, err, sizeof(err)))
        return cli_fail(EXIT_ERROR, "server", "%s", err);
    o.cfg.auth_key = key;
    rc = serve(o);
    auth_key_free(key);
    return rc;
}
