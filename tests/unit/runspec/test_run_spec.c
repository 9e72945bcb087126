/*
 * Unit tests of the run specification: every spelling of an option gives the
 * same spec, the deadline follows from the parsed spec alone, and the
 * argument vector produced from a spec parses back into the same spec.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "netab_assert.h"
#include "runspec/run_spec.h"

#define MAXWORDS 32

/* Splits a blank-separated line into words (no quoting needed in these tests). */
static size_t split(const char *line, char *buf, size_t buflen, char **w)
{
    size_t n = 0;
    snprintf(buf, buflen, "%s", line);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < MAXWORDS;
         t = strtok_r(NULL, " ", &save))
        w[n++] = t;
    return n;
}

/*
 * Parses line as a variant's opts would be; fails the test with the message
 * on error. Strings in *s point into a buffer of their own that lives until
 * the 8th parse after this one.
 */
static void parse_ok(const char *line, struct run_spec *s)
{
    static char bufs[8][1024];
    static unsigned next;
    char *buf = bufs[next++ % 8];
    char *w[MAXWORDS];
    size_t n = split(line, buf, sizeof(bufs[0]), w);
    char err[NB_ERRLEN] = "";
    int rc = run_spec_parse_words(w, n, s, err, sizeof(err));
    if (rc)
        fail_msg("'%s' was refused: %s", line, err);
}

/* Expects line to be refused with a message containing want. */
static void parse_refused(const char *line, const char *want)
{
    char buf[1024], *w[MAXWORDS];
    size_t n = split(line, buf, sizeof(buf), w);
    struct run_spec s;
    char err[NB_ERRLEN] = "";
    int rc = run_spec_parse_words(w, n, &s, err, sizeof(err));
    if (rc != -EINVAL)
        fail_msg("'%s' gave %d, expected -EINVAL", line, rc);
    if (!strstr(err, want))
        fail_msg("'%s': error '%s' lacks '%s'", line, err, want);
}

static double deadline_of(const char *line)
{
    struct run_spec s;
    parse_ok(line, &s);
    return run_spec_deadline(&s);
}

/* -t 85, -t85, --time 85, --time=85: one duration, one deadline. */
static void test_time_spellings_agree(void **state)
{
    (void)state;
    const char *spellings[] = {"-t 85", "-t85", "--time 85", "--time=85", "-P 2 -t85 -R", "-Rt85"};
    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        struct run_spec s;
        parse_ok(spellings[i], &s);
        if (s.params.duration_s != 85)
            fail_msg("'%s' gave %g s", spellings[i], s.params.duration_s);
        ASSERT_EQ(run_spec_expected_seconds(&s), 85);
        ASSERT_EQ(run_spec_deadline(&s), 2 * 85 + 60);
    }
    /* The last of several wins, as in getopt. */
    ASSERT_EQ(deadline_of("-t 5 --time=120"), 2 * 120 + 60);
    ASSERT_EQ(deadline_of(""), 2 * 10 + 60);
}

/* Warm-up counts towards the wall clock, in every spelling. */
static void test_omit_spellings_add_up(void **state)
{
    (void)state;
    const char *spellings[] = {"-t 20 -O 5", "-t20 -O5", "--time=20 --omit=5", "--omit 5 -t 20"};
    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
        if (deadline_of(spellings[i]) != 2 * 25 + 60)
            fail_msg("'%s' gave a deadline of %g s", spellings[i], deadline_of(spellings[i]));
}

/* A byte-bounded run has no duration to derive from, in every spelling. */
static void test_bytes_spellings(void **state)
{
    (void)state;
    const char *spellings[] = {"-n 1G", "-n1G", "--bytes 1G", "--bytes=1G", "-t 5 -n 1G"};
    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        struct run_spec s;
        parse_ok(spellings[i], &s);
        assert_int_equal(s.params.bytes, 1ull << 30);
        assert_true(isnan(run_spec_expected_seconds(&s)));
        ASSERT_EQ(run_spec_deadline(&s), RUN_SPEC_BYTES_DEADLINE_S);
    }
}

/* Long and short spellings of every option with a value set the same field. */
static void test_long_and_short_spellings(void **state)
{
    (void)state;
    const char *pairs[][2] = {
        {"-c 198.18.0.2", "--client=198.18.0.2"},
        {"-p 5999", "--port=5999"},
        {"-B 127.0.0.3", "--bind 127.0.0.3"},
        {"-P 4", "--parallel=4"},
        {"-R", "--reverse"},
        {"-l 64K", "--length=65536"},
        {"-w 1M", "--window 1048576"},
        {"-M 1400", "--set-mss=1400"},
        {"-N", "--no-delay"},
        {"-C bbr", "--congestion=bbr"},
        {"-O 2", "--omit=2"},
        {"-A 0,1", "--affinity=0,1"},
        {"-i 0.5", "--interval=0.5"},
        {"-J", "--json"},
        {"-u -b 100M", "--udp --bitrate=100000000"},
        {"-u", "--test=udp_stream"},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        struct run_spec a, b;
        parse_ok(pairs[i][0], &a);
        parse_ok(pairs[i][1], &b);
        assert_memory_equal(&a.params, &b.params, sizeof(a.params));
        assert_int_equal(a.client.port, b.client.port);
        assert_int_equal(a.client.iperf3, b.client.iperf3);
        assert_int_equal(a.client.cpu, b.client.cpu);
        assert_int_equal(a.json, b.json);
        if ((a.host || b.host) && (!a.host || !b.host || strcmp(a.host, b.host)))
            fail_msg("'%s' and '%s' name different hosts", pairs[i][0], pairs[i][1]);
    }
}

/* Variants' opts are checked like a command line: the option is named. */
static void test_bad_options_are_named(void **state)
{
    (void)state;
    parse_refused("-P 100000", "-P");
    parse_refused("--bogus", "unknown option '--bogus'");
    parse_refused("--time=abc", "abc");
    parse_refused("-t", "option '-t' needs a value");
    parse_refused("-x", "unknown option '-x'");
    parse_refused("-R --bidir", "--reverse and --bidir");
    parse_refused("-u -C bbr", "-M, -N and -C apply to TCP tests");
    parse_refused("--linger0", "--linger0 applies to tcp_crr");
    parse_refused("-P 2 stray", "unexpected argument 'stray'");
    /* Stream i binds --cport + i: a range past 65535 would wrap to ports 0 and 1. */
    parse_refused("--cport 65534 -P 4", "needs ports up to 65537, past 65535");
    parse_refused("--cport 65535 --bidir", "past 65535");
    struct run_spec ok;
    parse_ok("--cport 65532 -P 4", &ok);
    parse_refused("-c h --iperf3 -t 1.5", "whole seconds");
    parse_refused("-c h --iperf3 --test tcp_rr", "tcp_stream and udp_stream");
    parse_refused("-c h --iperf3 -u --gso", "--gso");
    parse_refused("--json --json-stream", "--json and --json-stream cannot be combined");
    /* latency under load (issue 31): what makes no sense with it is refused by name. */
    parse_refused("--test rrul -u", "--test rrul does not take -u");
    parse_refused("-u --test rrul", "--test rrul does not take -u");
    parse_refused("--test rrul --flows 8", "--test rrul does not take --flows");
    parse_refused("--test rrul -P 2", "--test rrul does not take -P");
    parse_refused("--test rrul -n 1M", "--test rrul does not take -n");
    parse_refused("--test rrul -R", "--test rrul does not take -R");
    parse_refused("-c h --test rrul --iperf3", "--test rrul does not take --iperf3");
    parse_refused("--test rrul --json-stream", "--test rrul does not take --json-stream");
    parse_refused("--test rrul --probe-rate 0", "--probe-rate: '0'");
    parse_refused("--test rrul --probe-rate 20000", "--probe-rate: '20000'");
    parse_refused("--test rrul --probe-rate -5", "--probe-rate");
    parse_refused("--test rrul --load-flows 0", "--load-flows");
    parse_refused("--test rrul --probe-rate 10000 -t 3600", "more than the 4000000 one run keeps");
    parse_refused("--test rrul --load sideways", "--load: 'sideways'");
    parse_refused("--load-flows 2", "apply to --test rrul");
    parse_refused("--test tcp_rr --probe-rate 50", "apply to --test rrul");
    parse_refused("--rrul-phases 1,1", "apply to --test rrul");
    parse_refused("--test rrul --rrul-phases 1", "--rrul-phases: '1' is not IDLE,RECOVERY");
    parse_refused("--test rrul --rrul-phases 0.4,1", "--rrul-phases: '0.4,1'");
    parse_refused("--test rrul --rrul-phases 1,61", "each 0.5 to 60");
    parse_refused("--test rrul --rrul-phases 1,", "--rrul-phases: '1,'");
    parse_refused("--test rrul --rrul-phases 1,2x", "--rrul-phases: '1,2x'");
    /* send path (issue 32): bad values, kinds and combinations name the option. */
    parse_refused("-Z --splice", "-Z and --splice cannot be combined");
    parse_refused("--msg-zerocopy -Z", "--msg-zerocopy and -Z cannot be combined");
    parse_refused("--fq-rate 0", "--fq-rate");
    parse_refused("--fq-rate fast", "--fq-rate: 'fast'");
    parse_refused("--fq-rate 500G", "--fq-rate");
    parse_refused("--notsent-lowat 0", "--notsent-lowat: the size must be positive");
    parse_refused("--notsent-lowat 2G", "--notsent-lowat");
    parse_refused("-Z -u", "-Z applies to tcp_stream, not udp_stream");
    parse_refused("--fq-rate 1G --test tcp_rr", "--fq-rate applies to tcp_stream");
    parse_refused("--splice --flows 4", "--splice is not supported with --flows");
    parse_refused("-b 1G --flows 4", "-b is not supported with --flows");
    parse_refused("-b 1G --test tcp_crr", "-b paces udp_stream and tcp_stream only");
    parse_refused("-c h --iperf3 --splice", "--splice does not apply with --iperf3");
    parse_refused("-c h --iperf3 --msg-zerocopy", "--msg-zerocopy does not apply with --iperf3");
    parse_refused("-c h --iperf3 --notsent-lowat 1M", "--notsent-lowat does not apply");
    /* receive and socket paths (issue 32) */
    parse_refused("--busy-poll 0", "--busy-poll");
    parse_refused("--busy-poll 1000001", "--busy-poll");
    parse_refused("--io-uring=sqpoll", "--io-uring: 'sqpoll' is not plain or zc");
    parse_refused("--io-uring=off", "--io-uring: 'off' is not plain or zc");
    parse_refused("--test tcp_crr --skip-rx-copy", "--skip-rx-copy applies to tcp_stream only");
    parse_refused("--flows 4 --mptcp", "--mptcp runs on the stream engine");
    parse_refused("--mptcp -B 127.0.0.1", "--mptcp does not take -B or --cport");
    parse_refused("-c h --iperf3 --io-uring=zc", "--io-uring=zc does not apply with --iperf3");
    parse_refused("-c h --iperf3 --ktls", "--ktls does not apply with --iperf3");
}

/* send path (issue 32): -b with tcp_stream is pacing, not the UDP rate; the rest as asked. */
static void test_send_path(void **state)
{
    (void)state;
    struct run_spec s;
    parse_ok("-b 1G", &s);
    assert_int_equal(s.params.tx.pace_bps, 1000000000ull);
    assert_int_equal(s.params.rate_bps, 1000000ull); /* UDP's default, unused by TCP */
    parse_ok("-Z --fq-rate 2.5G --notsent-lowat 16K", &s);
    assert_int_equal(s.params.tx.mode, PATH_TX_SENDFILE);
    assert_int_equal(s.params.tx.fq_rate_bps, 2500000000ull);
    assert_int_equal(s.params.tx.notsent_lowat, 16384);
    parse_ok("--zerocopy -Z", &s);
    assert_int_equal(s.params.tx.mode, PATH_TX_SENDFILE);
    parse_ok("-u -b 10M", &s);
    assert_int_equal(s.params.rate_bps, 10000000ull);
    assert_int_equal(s.params.tx.pace_bps, 0);
    parse_ok("-c h --iperf3 -Z -b 1G --fq-rate 1G", &s);
}

/* --iperf3 makes iperf3's port the default; -p still says which. */
static void test_iperf3_port(void **state)
{
    (void)state;
    struct run_spec s;
    parse_ok("-c h --iperf3", &s);
    assert_true(s.client.iperf3);
    assert_int_equal(s.client.port, 5201);
    parse_ok("-c h --iperf3 -p 6000", &s);
    assert_int_equal(s.client.port, 6000);
    parse_ok("-c h -p 5201 --iperf3", &s);
    assert_int_equal(s.client.port, 5201);
    parse_ok("-c h", &s);
    assert_false(s.client.iperf3);
    assert_int_equal(s.client.port, 5301);
}

static bool same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Parses argv produced from spec and checks that it describes the same run. */
static void assert_round_trip(const char *line)
{
    struct run_spec a, b;
    parse_ok(line, &a);
    char **argv;
    int argc;
    assert_int_equal(run_spec_to_argv(&a, &argv, &argc), 0);
    assert_string_equal(argv[0], "run");
    assert_null(argv[argc]);
    char err[NB_ERRLEN] = "";
    if (run_spec_parse(argc, argv, &b, err, sizeof(err)))
        fail_msg("'%s' produced arguments that do not parse: %s", line, err);
    if (memcmp(&a.params, &b.params, sizeof(a.params)))
        fail_msg("'%s': the produced arguments describe another test", line);
    assert_int_equal(a.client.port, b.client.port);
    assert_int_equal(a.client.iperf3, b.client.iperf3);
    assert_int_equal(a.client.family, b.client.family);
    assert_int_equal(a.client.cport, b.client.cport);
    assert_int_equal(a.client.cport_lo, b.client.cport_lo);
    assert_int_equal(a.client.cport_hi, b.client.cport_hi);
    assert_int_equal(a.client.cpu, b.client.cpu);
    assert_int_equal(a.client.connect_timeout_ms, b.client.connect_timeout_ms);
    assert_int_equal(a.client.idle_timeout_ms, b.client.idle_timeout_ms);
    assert_int_equal(a.json, b.json);
    assert_int_equal(a.json_stream, b.json_stream);
    assert_true(same_string(a.host, b.host));
    assert_true(same_string(a.client.bind_addr, b.client.bind_addr));
    assert_true(same_string(a.db, b.db));
    assert_true(same_string(a.db_label, b.db_label));
    assert_true(same_string(a.auth_key_file, b.auth_key_file));
    /* --test rrul (issue 31) */
    ASSERT_EQ(a.rrul, b.rrul);
    ASSERT_EQ(a.rrul_opts.load_flows, b.rrul_opts.load_flows);
    ASSERT_EQ(a.rrul_opts.load, b.rrul_opts.load);
    ASSERT_EQ(a.rrul_opts.probe_rate, b.rrul_opts.probe_rate);
    run_spec_argv_free(argv);
}

/* Every option, alone and combined, survives the trip through an argument vector. */
static void test_argv_round_trip(void **state)
{
    (void)state;
    const char *lines[] = {
        "",
        "-t 0.1",
        "-t 2.345678901",
        "-n 12345 -P 3 --bidir -l 1K -w 256K -M 1000 -N -C reno -O 1.5 -i 0",
        "-R -c 198.18.0.2 -p 6000 -4 -B 198.18.0.1 --cport 40000 -A 1,0",
        "-6 -A 1 --connect-timeout 250 --idle-timeout 700 -J --db /tmp/x.db --db-label v1",
        "-c 198.18.0.2 --auth-key /etc/netab/key",
        "-u -b 0 -l 1400 --gso --gro",
        "-u -b 1.5G -l 9000",
        "-u --udp-default-buffers",
        "--test udp_rr --req-size 100 --resp-size 200 --outstanding 3 --rr-timeout 50",
        "--test udp_rr",
        "--test tcp_rr --req-size 64 --resp-size 1M --outstanding 8",
        "--test tcp_crr --cport-range 40000-40999 --linger0 -P 2",
        "-c 198.18.0.2 --iperf3 -P 4 -R",
        "-c 198.18.0.2 --iperf3 -p 5301 -u -b 10M",
        "-c 198.18.0.2 --iperf3 -p 6000",
        "--test tcp_rr --flows 1000 --threads 2 --per-flow",
        "--flows 200 -R -n 64M",
        "--json-stream -i 0.5",
        /* send path (issue 32) */
        "-Z -R -n 200M",
        "--splice --bidir -P 2",
        "--msg-zerocopy -l 64K",
        "-b 1G --fq-rate 2G --notsent-lowat 128K",
        "-c 198.18.0.2 --iperf3 -Z --fq-rate 1G -b 500M",
        /* receive and socket paths (issue 32) */
        "--skip-rx-copy --busy-poll 50 --mptcp --io-uring -R",
        "--io-uring=zc -P 2",
        "--io-uring=plain --ktls",
        /* latency under load (issue 31) */
        "--test rrul",
        "--test rrul -t 8 -C cubic --load-flows 2 --load down --probe-rate 333.5 -i 0.5",
        "--test rrul -t 2 --rrul-phases 1,0.5",
        "-c 198.18.0.2 --test rrul --load up -l 64K -w 1M",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        assert_round_trip(lines[i]);
}

/* An empty command line produces only the command name: defaults are never spelled out. */
static void test_defaults_produce_no_options(void **state)
{
    (void)state;
    const char *lines[] = {"", "-t 10 -P 1 -l 128K", "-u -l 1460 -b 1M", "--test udp_rr"};
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        struct run_spec s;
        parse_ok(lines[i], &s);
        char **argv;
        int argc;
        assert_int_equal(run_spec_to_argv(&s, &argv, &argc), 0);
        int want = s.params.kind == TEST_TCP_STREAM ? 1 : 3; /* run [--test KIND] */
        if (argc != want)
            fail_msg("'%s' produced %d words (first extra: %s)", lines[i], argc,
                     argc > 1 ? argv[1] : "");
        run_spec_argv_free(argv);
    }
}

/* --help stops the parse and is never part of a produced command line. */
static void test_help(void **state)
{
    (void)state;
    struct run_spec s;
    parse_ok("-P 2 -h", &s);
    assert_true(s.help);
    parse_ok("-P 2", &s);
    assert_false(s.help);
}

/*
 * run_spec_result_init(): the server as the report names it; and
 * run_spec_execute(): a key file that cannot be read runs nothing and says
 * so, a short loopback test delivers bytes.
 */
static void test_execute(void **state)
{
    (void)state;
    struct run_spec s;
    struct run_result res;
    parse_ok("-6 -t 0.3 -i 0", &s);
    run_spec_result_init(&s, &res);
    assert_string_equal(res.server, "::1");
    assert_true(res.in_process);
    ASSERT_EQ(res.port, 0);
    run_result_free(&res);
    parse_ok("-c 192.0.2.1 -p 7000", &s);
    run_spec_result_init(&s, &res);
    assert_string_equal(res.server, "192.0.2.1");
    assert_false(res.in_process);
    ASSERT_EQ(res.port, 7000);
    run_result_free(&res);

    bool bad_key = false;
    parse_ok("-t 0.3 -i 0 --auth-key /nonexistent/netab.key", &s);
    run_spec_result_init(&s, &res);
    ASSERT_LT(run_spec_execute(&s, &res, &bad_key), 0);
    assert_true(bad_key);
    assert_non_null(strstr(res.error, "/nonexistent/netab.key"));
    ASSERT_EQ(res.local.n, 0);
    run_result_free(&res);

    parse_ok("-t 0.3 -i 0", &s);
    run_spec_result_init(&s, &res);
    assert_int_equal(run_spec_execute(&s, &res, &bad_key), 0);
    assert_false(bad_key);
    assert_string_equal(res.error, "");
    ASSERT_EQ(res.local.n, 1);
    ASSERT_GT(res.local.streams[0].bytes, 0);
    run_result_free(&res);
}

/*
 * The option table (the parser's and --help's one source) has the letters
 * `netab run` took before it, each with or without a value as then, every
 * row a setter, and no long name twice.
 */
/* --flows: F streams on the event-loop engine; -P keeps its meaning and does not combine. */
static void test_flows(void **state)
{
    (void)state;
    struct run_spec s;
    parse_ok("--test tcp_rr --flows 1000 --threads 2 --per-flow", &s);
    ASSERT_EQ(s.params.flows, 1000);
    ASSERT_EQ(s.params.streams, 1000);
    ASSERT_EQ(s.params.threads, 2);
    assert_true(s.per_flow);
    parse_ok("--flows 3 --bidir", &s);
    ASSERT_EQ(params_connections(&s.params), 6);
    parse_refused("--test tcp_rr --flows 10 -P 2", "-P and --flows cannot be combined");
    parse_refused("--test tcp_rr --threads 2", "--threads applies only with --flows");
    parse_refused("--test udp_stream --flows 10", "--flows runs tcp_stream, tcp_rr, udp_rr");
    parse_ok("--test udp_rr --flows 10", &s);
    parse_ok("--test tcp_crr --flows 10", &s);
    parse_refused("--test udp_rr --flows 10 --outstanding 2", "one transaction in flight");
    parse_refused("--test tcp_rr --flows 10 --outstanding 2", "one transaction in flight");
    parse_refused("--flows 100001", "--flows");
}

static void test_option_table(void **state)
{
    (void)state;
    /* send path (issue 32): -Z, as iperf3's. */
    const char *before = "c:p:B:46t:n:P:Rl:w:M:NC:O:A:i:Jub:Z";
    size_t letters = 0, longs = 0;
    for (const struct opt *o = run_spec_opts; o->name; o++) {
        if (!*o->name && !o->letter)
            continue; /* a heading */
        if (!o->set)
            fail_msg("--%s (-%c) has no setter", o->name, o->letter ? o->letter : '?');
        if (*o->name) {
            longs++;
            for (const struct opt *p = run_spec_opts; p < o; p++)
                if (!strcmp(p->name, o->name) && *o->name)
                    fail_msg("--%s is in the table twice", o->name);
        }
        if (!o->letter)
            continue;
        letters++;
        const char *at = strchr(before, o->letter);
        if (!at)
            fail_msg("-%c is not one of run's letters '%s'", o->letter, before);
        if ((at[1] == ':') != (o->arg != NULL))
            fail_msg("-%c: a value in the table, not in '%s' or the reverse", o->letter, before);
    }
    ASSERT_EQ(letters, 21);
    /* The run options with a long name; each new one raises this (and needs a setter). */
    ASSERT_EQ(longs, 60); /* issue 31: --load-flows, --load, --probe-rate, --rrul-phases */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_spellings_agree),
        cmocka_unit_test(test_omit_spellings_add_up),
        cmocka_unit_test(test_bytes_spellings),
        cmocka_unit_test(test_long_and_short_spellings),
        cmocka_unit_test(test_bad_options_are_named),
        cmocka_unit_test(test_argv_round_trip),
        cmocka_unit_test(test_iperf3_port),
        cmocka_unit_test(test_defaults_produce_no_options),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_flows),
        cmocka_unit_test(test_send_path),
        cmocka_unit_test(test_option_table),
        cmocka_unit_test(test_execute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
