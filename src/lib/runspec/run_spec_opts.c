/*
 * The options of `netab run`, described once as util/opttable.h rows:
 * run_spec_parse() parses by them and the CLI prints --help from them, so
 * the parser and its help cannot disagree (run_spec.h). A setter's messages
 * name an option by its letter where it has one ("-t: ..."), as `netab run`
 * always has; options that also set a run_spec flag take the whole spec
 * (offset 0).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/path_rx.h"
#include "runspec/run_spec.h"
#include "runspec/run_spec_path.h"
#include "util/optval.h"
#include "util/units.h"

/* The option's name in messages: "-t" where it has a letter, else "--cport". */
static const char *shown(const struct opt *o, char *buf, size_t len)
{
    if (o->letter)
        snprintf(buf, len, "-%c", o->letter);
    else
        snprintf(buf, len, "--%s", o->name);
    return buf;
}

/* value as a whole number in [o->lo, o->hi] (util/optval.h's words); false with err. */
static bool whole(const char *value, const struct opt *o, long *v, char *err, size_t errlen)
{
    char name[64];
    return optval_int(shown(o, name, sizeof(name)), value, (long)o->lo, (long)o->hi, v, err,
                      errlen);
}

static int set_int(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long v;
    if (!whole(value, o, &v, err, errlen))
        return -EINVAL;
    *(int *)field = (int)v;
    return 0;
}

static int set_long(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    return whole(value, o, field, err, errlen) ? 0 : -EINVAL;
}

static int set_u16(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long v;
    if (!whole(value, o, &v, err, errlen))
        return -EINVAL;
    *(uint16_t *)field = (uint16_t)v;
    return 0;
}

static int set_u32(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long v;
    if (!whole(value, o, &v, err, errlen))
        return -EINVAL;
    *(uint32_t *)field = (uint32_t)v;
    return 0;
}

/* -p: also remembered as given, so --iperf3 keeps it. */
static int set_port(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct run_spec *s = field;
    if (set_u16(&s->client.port, value, o, err, errlen))
        return -EINVAL;
    s->port_set = true;
    return 0;
}

/* Seconds in [o->lo, o->hi] (util/optval.h: "2.5", "500ms", "1m"). */
static int set_seconds(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen)
{
    char name[64];
    return optval_seconds(shown(o, name, sizeof(name)), value, o->lo, o->hi, field, err, errlen)
               ? 0
               : -EINVAL;
}

/* -i: seconds, 0 (none) or at least 0.1. */
static int set_interval(void *field, const char *value, const struct opt *o, char *err,
                        size_t errlen)
{
    double d;
    if (set_seconds(&d, value, o, err, errlen))
        return -EINVAL;
    if (d > 0 && d < 0.1)
        return err_set(err, errlen, EINVAL, "-i: the interval must be 0 (none) or at least 0.1 s");
    *(double *)field = d;
    return 0;
}

/* -n: a positive byte count with K/M/G (util/optval.h). */
static int set_count(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    if (!optval_size("-n", value, UINT64_MAX >> 2, field, err, errlen))
        return -EINVAL;
    if (*(uint64_t *)field == 0)
        return err_set(err, errlen, EINVAL, "-n: the byte count must be positive");
    return 0;
}

/* -w: a buffer size with K/M/G up to o->hi, 0 allowed. */
static int set_sockbuf(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen)
{
    uint64_t u;
    if (!optval_size("-w", value, (uint64_t)o->hi, &u, err, errlen))
        return -EINVAL;
    *(uint32_t *)field = (uint32_t)u;
    return 0;
}

/* -l: a positive block size, remembered as given (else the test kind's default). */
static int set_block(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct run_spec *s = field;
    uint64_t u;
    (void)o;
    if (!optval_size("-l", value, PARAMS_MAX_BLOCK, &u, err, errlen))
        return -EINVAL;
    if (u == 0)
        return err_set(err, errlen, EINVAL, "-l: the block size must be positive");
    s->params.block = (uint32_t)u;
    s->block_set = true;
    return 0;
}

/* --req-size, --resp-size: positive, remembered as given so udp_rr keeps them. */
static int set_rr_size(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen)
{
    struct run_spec *s = field;
    bool req = !strcmp(o->name, "req-size");
    const char *name = req ? "--req-size" : "--resp-size";
    uint64_t u;
    if (!optval_size(name, value, PARAMS_MAX_RR_SIZE, &u, err, errlen))
        return -EINVAL;
    if (u == 0)
        return err_set(err, errlen, EINVAL, "%s: the size must be positive", name);
    *(req ? &s->params.req_size : &s->params.resp_size) = (uint32_t)u;
    *(req ? &s->req_set : &s->resp_set) = true;
    return 0;
}

/* -b RATE: bits/s with K/M/G, remembered as given (udp_stream's rate, tcp_stream's pacing). */
static int set_rate(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct run_spec *s = field;
    char why[NB_ERRLEN];
    (void)o;
    if (units_parse_rate(value, &s->params.rate_bps, why, sizeof(why)))
        return err_set(err, errlen, EINVAL, "-b: %s", why);
    s->rate_set = true;
    return 0;
}

/* --test NAME; rrul's load is a tcp_stream (run_spec.h). */
static int set_test(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct run_spec *s = field;
    (void)o;
    s->rrul = !strcmp(value, "rrul");
    if (s->rrul) {
        /* An -u before it stays, for finish() to refuse: --test rrul sends no udp_stream. */
        if (s->params.kind != TEST_UDP_STREAM)
            s->params.kind = TEST_TCP_STREAM;
    } else if (params_kind_from_name(value, &s->params.kind)) {
        return err_set(err, errlen, EINVAL,
                       "--test: unknown test '%s' (known: tcp_stream, udp_stream, tcp_rr, "
                       "udp_rr, tcp_crr, rrul)",
                       value);
    }
    return 0;
}

/* --load-flows N (issue 31): flows each way of rrul's load. */
static int set_load_flows(void *field, const char *value, const struct opt *o, char *err,
                          size_t errlen)
{
    struct run_spec *s = field;
    if (set_int(&s->rrul_opts.load_flows, value, o, err, errlen))
        return -EINVAL;
    s->load_flows_set = true;
    return 0;
}

/* --load up|down|both (issue 31). */
static int set_load(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct run_spec *s = field;
    (void)o;
    if (rrul_load_from_name(value, &s->rrul_opts.load))
        return err_set(err, errlen, EINVAL, "--load: '%s' is not up, down or both", value);
    s->load_set = true;
    return 0;
}

/* --probe-rate R (issue 31): probes per second, above 0 and at most RRUL_MAX_RATE. */
static int set_probe_rate(void *field, const char *value, const struct opt *o, char *err,
                          size_t errlen)
{
    struct run_spec *s = field;
    char *end;
    (void)o;
    errno = 0;
    double r = strtod(value, &end);
    if (errno || end == value || *end || !(r > 0) || r > RRUL_MAX_RATE)
        return err_set(err, errlen, EINVAL,
                       "--probe-rate: '%s' is not a rate above 0 and at most %.0f probes per "
                       "second",
                       value, RRUL_MAX_RATE);
    s->rrul_opts.probe_rate = r;
    s->probe_rate_set = true;
    return 0;
}

/* --rrul-phases IDLE,RECOVERY (issue 31): the probes-only phases' seconds, each 0.5 to 60. */
static int set_rrul_phases(void *field, const char *value, const struct opt *o, char *err,
                           size_t errlen)
{
    struct run_spec *s = field;
    char *end, *end2 = NULL;
    (void)o;
    errno = 0;
    double idle = strtod(value, &end);
    double recovery = *end == ',' ? strtod(end + 1, &end2) : -1;
    if (errno || end == value || *end != ',' || end2 == end + 1 || *end2 || !(idle >= 0.5) ||
        idle > 60 || !(recovery >= 0.5) || recovery > 60)
        return err_set(err, errlen, EINVAL,
                       "--rrul-phases: '%s' is not IDLE,RECOVERY in seconds, each 0.5 to 60",
                       value);
    s->rrul_opts.idle_s = idle;
    s->rrul_opts.recovery_s = recovery;
    s->phases_set = true;
    return 0;
}

/* -u: --test udp_stream. */
static int set_udp(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)o;
    (void)err;
    (void)errlen;
    *(enum test_kind *)field = TEST_UDP_STREAM;
    return 0;
}

/* -4, -6: the address family of the letter. */
static int set_family(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)err;
    (void)errlen;
    *(int *)field = o->letter == '4' ? AF_INET : AF_INET6;
    return 0;
}

/* -C ALGO, into test_params' cc[]. */
static int set_cc(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    if (strlen(value) >= PARAMS_CC_LEN)
        return err_set(err, errlen, EINVAL, "-C: congestion control name '%s' is too long", value);
    strcpy(field, value);
    return 0;
}

/* --profile[=EVENT[,EVENT...]], cpu-clock without one, into test_params' profile[]. */
static int set_profile(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen)
{
    const char *ev = value ? value : "cpu-clock";
    (void)o;
    if (!params_profile_event_known(ev))
        return err_set(err, errlen, EINVAL,
                       "--profile: unknown event '%s' (cpu-clock, cycles, instructions, "
                       "L1-icache-load-misses, iTLB-load-misses, task-clock, page-faults, "
                       "context-switches; up to 4, each once, comma-separated)",
                       ev);
    snprintf(field, PARAMS_PROFILE_LEN, "%s", ev);
    return 0;
}

/* --profile-scope test|system, into test_params' profile_system. */
static int set_profile_scope(void *field, const char *value, const struct opt *o, char *err,
                             size_t errlen)
{
    (void)o;
    if (params_profile_scope(value, field))
        return err_set(err, errlen, EINVAL, "--profile-scope: '%s' is not test or system", value);
    return 0;
}

/* -A CPU[,SERVERCPU] */
static int set_affinity(void *field, const char *value, const struct opt *o, char *err,
                        size_t errlen)
{
    struct run_spec *s = field;
    char local[32], *comma;
    long v;
    snprintf(local, sizeof(local), "%s", value);
    comma = strchr(local, ',');
    if (comma)
        *comma++ = '\0';
    if (!whole(local, o, &v, err, errlen))
        return -EINVAL;
    s->client.cpu = (int)v;
    if (comma) {
        if (!whole(comma, o, &v, err, errlen))
            return -EINVAL;
        s->params.server_cpu = (int)v;
    }
    return 0;
}

/* --cport-range LO-HI */
static int set_cport_range(void *field, const char *value, const struct opt *o, char *err,
                           size_t errlen)
{
    struct client_config *c = field;
    char lo[16], *hi;
    long a, b;
    snprintf(lo, sizeof(lo), "%s", value);
    hi = strchr(lo, '-');
    if (!hi)
        return err_set(err, errlen, EINVAL, "--cport-range: '%s' is not a range LO-HI", value);
    *hi++ = '\0';
    if (!whole(lo, o, &a, err, errlen) || !whole(hi, o, &b, err, errlen))
        return -EINVAL;
    if (b < a)
        return err_set(err, errlen, EINVAL, "--cport-range: '%s' ends before it starts", value);
    c->cport_lo = (uint16_t)a;
    c->cport_hi = (uint16_t)b;
    return 0;
}

static int set_plot(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    if (!*value)
        return err_set(err, errlen, EINVAL, "--plot: empty file name");
    *(const char **)field = value;
    return 0;
}

/* --io-uring[=MODE]: plain without one, or zc (receive and socket paths, issue 32). */
static int set_io_uring(void *field, const char *value, const struct opt *o, char *err,
                        size_t errlen)
{
    (void)o;
    int mode = PATH_URING_PLAIN;
    if (value && (path_rx_uring_from_name(value, &mode) || mode == PATH_URING_OFF))
        return err_set(err, errlen, EINVAL, "--io-uring: '%s' is not plain or zc", value);
    *(int *)field = mode;
    return 0;
}

#define AT(member) offsetof(struct run_spec, member)
#define HEADING(text)                                                                              \
    {                                                                                              \
        "", 0, NULL, text, NULL, 0, 0, 0, NULL                                                     \
    }

const struct opt run_spec_opts[] = {
    HEADING("Where:"),
    {"client", 'c', "HOST", "run against 'netab server' on HOST", opt_set_string, AT(host), 0, 0,
     NULL},
    {"port", 'p', "PORT", "server port (default 5301; 5201 with --iperf3)", set_port, 0, 1, 65535,
     NULL},
    {"iperf3", 0, NULL,
     "the server is an iperf3 server (iperf3 -s): speak its\nprotocol; tcp_stream and udp_stream "
     "(docs/iperf3.md)",
     opt_set_true, AT(client.iperf3), 0, 0, NULL},
    {"", '4', NULL, "IPv4 only", set_family, AT(client.family), 0, 0, NULL},
    {"", '6', NULL, "IPv6 only", set_family, AT(client.family), 0, 0, NULL},
    {"bind", 'B', "ADDR", "local address for every connection", opt_set_string,
     AT(client.bind_addr), 0, 0, NULL},
    {"cport", 0, "PORT", "fixed client ports: data connection i uses PORT+i", set_u16,
     AT(client.cport), 1, 65535, NULL},
    HEADING("What:"),
    {"test", 0, "NAME",
     "tcp_stream (default), udp_stream, tcp_rr, udp_rr, tcp_crr;\nrrul: latency under load "
     "(docs/rrul.md)",
     set_test, 0, 0, 0, NULL},
    {"udp", 'u', NULL, "same as --test udp_stream", set_udp, AT(params.kind), 0, 0, NULL},
    {"time", 't', "SECONDS", "measured duration (default 10)", set_seconds, AT(params.duration_s),
     0.1, PARAMS_MAX_DURATION, NULL},
    {"bytes", 'n', "BYTES", "send BYTES per direction instead of running for a time", set_count,
     AT(params.bytes), 0, 0, NULL},
    {"parallel", 'P', "N", "N streams, each in its own thread (default 1)", set_int,
     AT(params.streams), 1, PARAMS_MAX_STREAMS, NULL},
    {"flows", 0, "F", "F connections over a few event-loop threads per end", set_int,
     AT(params.flows), 1, PARAMS_MAX_FLOWS, NULL},
    {"threads", 0, "T", "--flows: event-loop threads per end (default: one per CPU)", set_int,
     AT(params.threads), 1, PARAMS_MAX_THREADS, NULL},
    {"per-flow", 0, NULL, "--flows: each flow's figures in the JSON document", opt_set_true,
     AT(per_flow), 0, 0, NULL},
    {"reverse", 'R', NULL, "the server sends, the client receives", opt_set_true,
     AT(params.reverse), 0, 0, NULL},
    {"bidir", 0, NULL, "both ends send at once (N streams each way)", opt_set_true,
     AT(params.bidir), 0, 0, NULL},
    {"length", 'l', "BYTES", "bytes per send() (default 128K)", set_block, 0, 0, 0, NULL},
    {"window", 'w', "BYTES", "socket buffer size (SO_SNDBUF/SO_RCVBUF)", set_sockbuf,
     AT(params.sockbuf), 0, 1024.0 * 1024 * 1024, NULL},
    {"set-mss", 'M', "BYTES", "TCP maximum segment size", set_u32, AT(params.mss), 88, 65535, NULL},
    {"no-delay", 'N', NULL, "TCP_NODELAY", opt_set_true, AT(params.nodelay), 0, 0, NULL},
    {"congestion", 'C', "ALGO", "TCP congestion control (e.g. cubic, bbr, reno)", set_cc,
     AT(params.cc), 0, 0, NULL},
    {"omit", 'O', "SECONDS", "warm-up before counting starts (default 0)", set_seconds,
     AT(params.omit_s), 0, 3600, NULL},
    {"affinity", 'A', "CPU[,SERVERCPU]", "pin the client's (and server's) stream threads",
     set_affinity, 0, 0, 4095, NULL},
    {"profile", 0, "[EVENT]",
     "sample both ends' CPUs over the window (cpu-clock,\nor cycles, instructions, ... where a "
     "PMU exists;\ncpu-clock where none);\nthe top functions in the text and JSON\n"
     "(docs/profile.md)",
     set_profile, AT(params.profile), 0, 0, NULL},
    {"profile-scope", 0, "SCOPE",
     "--profile: test (default: netab's threads and the\nsoftirq work on its CPUs) or system "
     "(every task\non the CPUs, for routers)",
     set_profile_scope, AT(params.profile_system), 0, 0, NULL},
    {"perf", 0, NULL,
     "attach perf events on both ends: hardware counters\n(IPC, cycles per byte) where a PMU "
     "exists; costs\nseveral percent of request/response rates unless\npinned (docs/json.md)",
     opt_set_true, AT(params.perf), 0, 0, NULL},
    /* send path (issue 32): -Z, --splice, --msg-zerocopy, --fq-rate, --notsent-lowat. */
    RUN_SPEC_PATH_TX_OPTS,
    /* receive and socket paths (issue 32; engine/path_rx.h) */
    HEADING("Receive and socket paths (tcp_stream; both ends apply them):"),
    {"skip-rx-copy", 0, NULL, "receive with MSG_TRUNC: bytes counted, not copied", opt_set_true,
     AT(params.skip_rx_copy), 0, 0, NULL},
    {"busy-poll", 0, "USEC",
     "SO_BUSY_POLL on the data connections (with\nSO_PREFER_BUSY_POLL and a budget of 64 where "
     "the\nkernel takes them)",
     set_u32, AT(params.busy_poll_us), 1, PATH_RX_BUSY_POLL_MAX, NULL},
    {"mptcp", 0, NULL, "MPTCP data connections (IPPROTO_MPTCP); the\nsubflows in the result",
     opt_set_true, AT(params.mptcp), 0, 0, NULL},
    {"io-uring", 0, "[MODE]",
     "send and receive through io_uring; zc: zero-copy\nsends (IORING_OP_SEND_ZC)", set_io_uring,
     AT(params.io_uring), 0, 0, NULL},
    {"ktls", 0, NULL, "kernel TLS (refused: see docs/json.md)", opt_set_true, AT(params.ktls), 0, 0,
     NULL},
    HEADING("UDP:"),
    {"bitrate", 'b', "RATE",
     "target per stream, bits/s with K/M/G (default 1M;\n0 = as fast as possible); -l is the "
     "datagram size\n(default 1460); with tcp_stream: application pacing\n(none by default, "
     "as iperf3 -b)",
     set_rate, 0, 0, 0, NULL},
    {"gso", 0, NULL, "UDP segmentation offload (UDP_SEGMENT)", opt_set_true, AT(params.gso), 0, 0,
     NULL},
    {"gro", 0, NULL, "UDP receive offload (UDP_GRO)", opt_set_true, AT(params.gro), 0, 0, NULL},
    {"udp-default-buffers", 0, NULL,
     "keep the kernel's default socket buffers, as iperf\ndoes (default without -w: netab "
     "requests 4 MiB;\ndocs/udp.md)",
     opt_set_true, AT(params.udp_default_buffers), 0, 0, NULL},
    HEADING("Request/response (tcp_rr, udp_rr) and connection rate (tcp_crr):"),
    {"req-size", 0, "BYTES", "request size (default 1)", set_rr_size, 0, 0, 0, NULL},
    {"resp-size", 0, "BYTES", "response size (default 1)", set_rr_size, 0, 0, 0, NULL},
    {"outstanding", 0, "K", "transactions in flight per stream (default 1; rr only)", set_int,
     AT(params.outstanding), 1, PARAMS_MAX_OUTSTANDING, NULL},
    {"rr-timeout", 0, "MS", "udp_rr: a response later than MS is lost (default 200)", set_u32,
     AT(params.rr_timeout_ms), 1, 60000, NULL},
    {"cport-range", 0, "LO-HI", "tcp_crr: cycle through these client ports", set_cport_range,
     AT(client), 1, 65535, NULL},
    {"linger0", 0, NULL, "tcp_crr: close with RST, leaving no TIME_WAIT", opt_set_true,
     AT(params.linger0), 0, 0, NULL},
    HEADING("Latency under load (--test rrul; docs/rrul.md):"),
    {"load-flows", 0, "N", "bulk TCP flows each way of the load (default 4)", set_load_flows, 0, 1,
     PARAMS_MAX_STREAMS, NULL},
    {"load", 0, "DIR", "up, down or both (default): the load's directions", set_load, 0, 0, 0,
     NULL},
    {"probe-rate", 0, "R", "open-loop UDP probes per second (default 100,\nat most 10000)",
     set_probe_rate, 0, 0, 0, NULL},
    {"rrul-phases", 0, "I,R", "seconds of the idle and the recovery phase\n(default 2,2)",
     set_rrul_phases, 0, 0, 0, NULL},
    HEADING("Output:"),
    {"interval", 'i', "SECONDS", "interval reports (default 1, 0 for none)", set_interval,
     AT(params.interval_s), 0, 3600, NULL},
    {"json", 'J', NULL, "one JSON document on stdout (docs/json.md), also on\nfailure",
     opt_set_true, AT(json), 0, 0, NULL},
    {"json-stream", 0, NULL,
     "one JSON object per line as the test goes: start, each\ninterval, end (the --json document; "
     "docs/json.md)",
     opt_set_true, AT(json_stream), 0, 0, NULL},
    {"db", 0, "PATH", "also keep the run in the results store (docs/store.md)", opt_set_string,
     AT(db), 0, 0, NULL},
    {"db-label", 0, "NAME", "with --db: a label for the run (its variant column)", opt_set_string,
     AT(db_label), 0, 0, NULL},
    {"plot", 0, "FILE", "draw the interval timeline; .png, .svg or .pdf by\nextension", set_plot,
     AT(plot), 0, 0, NULL},
    /* The bounds are plot/plot.h's PLOT_MIN_SIZE and PLOT_MAX_SIZE. */
    {"plot-width", 0, "N", "its width, pixels or points (default 800)", set_long, AT(plot_width),
     200, 8000, NULL},
    {"plot-height", 0, "N", "its height, pixels or points (default 500)", set_long, AT(plot_height),
     200, 8000, NULL},
    {"connect-timeout", 0, "MS", "longest wait for a connection (default 5000)", set_int,
     AT(client.connect_timeout_ms), 1, 3600000, NULL},
    {"idle-timeout", 0, "MS",
     "longest wait for the server's next message, or a\nreceiving stream's data (default 10000)",
     set_int, AT(client.idle_timeout_ms), 100, 3600000, NULL},
    {"auth-key", 0, "FILE",
     "prove the shared secret in FILE to the server, and\nrequire its proof (the server's "
     "--auth-key;\ndocs/server.md)",
     opt_set_string, AT(auth_key_file), 0, 0, NULL},
    {NULL, 0, NULL, NULL, NULL, 0, 0, 0, NULL},
};
