/* netab run: option parsing and printing; the work happens in libnetab. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_plot.h"
#include "cli/cli_run.h"
#include "proto/auth.h"
#include "proto/iperf3_client.h"
#include "proto/loopback.h"
#include "runout/run_json.h"
#include "runout/run_plot.h"
#include "runout/run_text.h"
#include "store/store.h"

static const char run_usage[] =
    "usage: netab run [options]\n"
    "\n"
    "Runs one network test. Without -c, netab starts its own server on 127.0.0.1\n"
    "(an ephemeral port) so a loopback test needs no set-up.\n"
    "\n"
    "Where:\n"
    "  -c, --client HOST      run against 'netab server' on HOST\n"
    "  -p, --port PORT        server port (default 5301; 5201 with --iperf3)\n"
    "      --iperf3           the server is an iperf3 server (iperf3 -s): speak its\n"
    "                         protocol; tcp_stream and udp_stream (docs/iperf3.md)\n"
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
    "      --profile[=EVENT]  sample both ends' CPUs over the window (cpu-clock, or\n"
    "                         cycles, instructions, ... where a PMU exists); the top\n"
    "                         functions in the text and JSON (docs/profile.md)\n"
    "      --perf             attach perf events on both ends: hardware counters (IPC,\n"
    "                         cycles per byte) where a PMU exists; costs several percent\n"
    "                         of request/response rates unless pinned (docs/json.md)\n"
    "UDP:\n"
    "  -b, --bitrate RATE     target per stream, bits/s with K/M/G (default 1M; 0 = as fast\n"
    "                         as possible); -l is the datagram size (default 1460)\n"
    "      --gso, --gro       UDP segmentation / receive offload (UDP_SEGMENT, UDP_GRO)\n"
    "      --udp-default-buffers  keep the kernel's default socket buffers, as iperf does\n"
    "                         (default without -w: netab requests 4 MiB; docs/udp.md)\n"
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
    "      --plot FILE        draw the interval timeline; .png, .svg or .pdf by extension\n"
    "      --plot-width N, --plot-height N  its size, pixels or points (default 800x500)\n"
    "      --connect-timeout MS  (default 5000)   --idle-timeout MS  (default 10000)\n"
    "      --auth-key FILE    prove the shared secret in FILE to the server, and require\n"
    "                         its proof (the server's --auth-key; docs/server.md)\n"
    "  -h, --help\n"
    "\n"
    "Sizes take K/M/G (1024-based) and Ki/Mi/Gi. Exit status: 0 success, 1 the test\n"
    "failed, 2 bad usage.\n";

/* Prints the usage error; with --json also the one JSON document. Returns EXIT_USAGE. */
static int usage_failure(const struct run_spec *o, const char *msg)
{
    if (o->json) {
        json_t *doc =
            json_pack("{s:s, s:n, s:s}", "netab_version", NETAB_VERSION, "end", "error", msg);
        json_dumpf(doc, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(doc);
    }
    return cli_usage_error("run", "%s", msg);
}

int cli_run_parse(int argc, char **argv, struct run_spec *o)
{
    char err[NB_ERRLEN];
    if (run_spec_parse(argc, argv, o, err, sizeof(err)))
        return usage_failure(o, err);
    if (o->help) {
        fputs(run_usage, stdout);
        return EXIT_OK;
    }
    struct cli_plot fig = {.path = o->plot};
    if (cli_plot_check("run", &fig))
        return usage_failure(o, "--plot: the file name must end in .png, .svg or .pdf");
    return -1;
}

static void print_interval(const struct interval_report *iv, void *ctx)
{
    (void)ctx;
    run_text_interval(stdout, iv);
}

/* --db: keeps the run, its document and its exit status in the results store. */
static int record_run(const struct run_spec *o, int argc, char **argv, const json_t *doc,
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

/* --plot: the interval timeline, and one line on stderr saying what was drawn. */
static int draw_timeline(const struct run_spec *o, const struct run_result *res)
{
    char err[NB_ERRLEN];
    size_t n = 0;
    if (run_plot_timeline(res, o->plot, (double)o->plot_width, (double)o->plot_height, &n, err,
                          sizeof(err))) {
        fprintf(stderr, "netab run: %s\n", err);
        return -1;
    }
    fprintf(stderr, "netab run: figure %s: %zu intervals drawn\n", o->plot, n);
    return 0;
}

int cli_run(int argc, char **argv)
{
    struct run_spec o;
    int rc = cli_run_parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    char dberr[NB_ERRLEN];
    if (o.db && store_check_path(o.db, dberr, sizeof(dberr)))
        return cli_usage_error("run", "%s", dberr);
    /* Checked here, not in the run specification: a campaign's DUT supplies -c later. */
    if (o.client.iperf3 && !o.host)
        return usage_failure(&o, "--iperf3 needs -c HOST: the iperf3 server to test against");
    if (!o.json) {
        o.client.on_interval = print_interval;
    }
    /* The collection-cost benchmark (bench/counters_cost.sh) runs with and without. */
    const char *nc = getenv("NETAB_NO_COUNTERS");
    o.client.no_counters = nc && *nc && strcmp(nc, "0");
    struct run_result res;
    run_result_init(&res);
    res.params = o.params;
    res.in_process = o.host == NULL;
    snprintf(res.server, sizeof(res.server), "%s",
             o.host ? o.host : (o.client.family == AF_INET6 ? "::1" : "127.0.0.1"));
    res.port = o.host ? o.client.port : 0;
    if (!o.json)
        run_text_header(stdout, &res);
    struct auth_key *key = NULL;
    rc = o.auth_key_file ? auth_key_load(o.auth_key_file, &key, res.error, sizeof(res.error)) : 0;
    o.client.auth_key = key;
    bool bad_key = rc != 0;
    if (rc) {
        /* A bad key file: not done (exit 2), with --json still the one document. */
    } else if (o.host && o.client.iperf3) {
        o.client.host = o.host;
        rc = iperf3_client_run(&o.client, &o.params, &res);
    } else if (o.host) {
        o.client.host = o.host;
        rc = client_run(&o.client, &o.params, &res);
    } else {
        rc = loopback_run(&o.client, &o.params, &res);
    }
    auth_key_free(key);
    json_t *doc = run_json_build(&res);
    if (o.json) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fputc('\n', stdout);
    } else {
        run_text_summary(stdout, &res);
    }
    if (rc)
        fprintf(stderr, "netab run: error: %s\n", res.error);
    int exit_code = bad_key ? EXIT_ERROR : rc ? EXIT_FAIL : EXIT_OK;
    /* A plot or a store that cannot be written: not done, whatever the test's outcome. */
    if (o.plot && !rc && draw_timeline(&o, &res))
        exit_code = EXIT_ERROR;
    if (o.db && record_run(&o, argc, argv, doc, exit_code))
        exit_code = EXIT_ERROR;
    json_decref(doc);
    run_result_free(&res);
    return exit_code;
}
