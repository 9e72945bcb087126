/*
 * The run specification: one parsed `netab run` command line. It is the
 * currency between the CLI, experiment files, variants' options and
 * `netab compare`: each of them parses options with run_spec_parse() once,
 * then computes deadlines and estimates from the parsed values and produces
 * a child's argument vector with run_spec_to_argv(); nobody scans argv for
 * options again.
 *
 * Errors follow libnetab's convention: 0 or a negative errno with a sentence
 * in (err, errlen) that names the offending option.
 */
#ifndef NETAB_RUNSPEC_RUN_SPEC_H
#define NETAB_RUNSPEC_RUN_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/params.h"
#include "engine/run_result.h"
#include "proto/client.h"
#include "rrul/rrul.h"
#include "util/err.h"
#include "util/opttable.h"

struct run_spec {
    struct test_params params;
    struct client_config client;  /* host is set by the runner; see `host` */
    const char *host;             /* -c: NULL = in-process loopback server */
    bool json;                    /* -J, --json */
    bool json_stream;             /* --json-stream: one JSON object per event (docs/json.md) */
    const char *db;               /* --db: results store to record the run in, or NULL */
    const char *db_label;         /* --db-label: stored as the run's variant */
    const char *plot;             /* --plot: draw the interval timeline into this file, or NULL */
    long plot_width, plot_height; /* --plot-width, --plot-height; 0 = the default */
    const char *auth_key_file;    /* --auth-key: the CLI loads it into client.auth_key */
    bool help;                    /* -h, --help was given: print the usage, run nothing */
    bool req_set, resp_set;       /* --req-size / --resp-size given */
    bool block_set;               /* -l given; otherwise the test kind's default block */
    bool rate_set;                /* -b given: udp_stream's rate, tcp_stream's pacing */
    bool port_set;                /* -p given; otherwise 5301, or 5201 with --iperf3 */
    bool per_flow;                /* --per-flow: each flow's figures in the JSON document */
    /*
     * --test rrul (issue 31; docs/rrul.md): params describe the load flows
     * (a tcp_stream), rrul the probes and phases. The options' flags say they
     * were given, so that they are refused without --test rrul.
     */
    bool rrul;
    struct rrul_opts rrul_opts;
    bool load_flows_set, load_set, probe_rate_set, phases_set;
};

/*
 * run's options in the order --help lists them (util/opttable.h rows, ended
 * by a NULL name): run_spec_parse() parses by them, the CLI prints its help
 * from them.
 */
extern const struct opt run_spec_opts[];

/*
 * Parses `netab run` options into *spec, which it initialises first. argv[0]
 * is the command's name ("run") and is not an option. Strings in *spec point
 * into argv, which must outlive it. Returns 0 (also after -h, with
 * spec->help set) or -EINVAL with a sentence naming the option and value.
 * spec->json (json_stream) is set as soon as --json/-J (--json-stream)
 * appears anywhere, also on failure, so the caller can answer in JSON. Safe to call repeatedly in
 * one process (not from several threads at once: it uses getopt).
 */
NB_MUST_CHECK int run_spec_parse(int argc, char *const *argv, struct run_spec *spec, char *err,
                                 size_t errlen);

/*
 * The same for n words of options without a command name, e.g. a variant's
 * opts after splitting. The words must outlive *spec.
 */
NB_MUST_CHECK int run_spec_parse_words(char *const *words, size_t n, struct run_spec *spec,
                                       char *err, size_t errlen);

/*
 * The arguments that make a `netab run` child do exactly what spec says: a
 * NULL-terminated vector whose first element is "run", followed by every
 * option whose value differs from what an empty command line would give, in
 * a fixed order with canonical values (run_spec_parse() of it yields the
 * same spec). --help is never included. Caller has ownership
 * (run_spec_argv_free()). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int run_spec_to_argv(const struct run_spec *spec, char ***argv, int *argc);
void run_spec_argv_free(char **argv);

/*
 * What a run is expected to take on the wall clock: -O plus -t, or NAN for
 * a byte-bounded run (-n), whose duration depends on the path.
 */
double run_spec_expected_seconds(const struct run_spec *spec);

/* A byte-bounded run (-n) may take this long before it is killed. */
#define RUN_SPEC_BYTES_DEADLINE_S 900.0

/*
 * How long the whole `netab run` process may take before a campaign kills
 * it: 2 * (time + omit) + 60 s, where the 60 s cover connection set-up,
 * the server's start and the CPU figures; RUN_SPEC_BYTES_DEADLINE_S for a
 * byte-bounded run. The one formula every campaign uses (docs/campaign.md).
 */
double run_spec_deadline(const struct run_spec *spec);

/*
 * res prepared for spec's run: run_result_init(), then the parameters,
 * whether the server is in this process, and the server's name and port as
 * the report shows them (the loopback address of -4/-6, port 0 in-process).
 */
void run_spec_result_init(const struct run_spec *spec, struct run_result *res);

/*
 * Runs spec's test into res (run_spec_result_init()ed): the --auth-key
 * file loaded first (one that cannot be used: nothing is run, *bad_key is
 * set), then against an iperf3 server (--iperf3), a netab server (-c) or
 * the in-process loopback server. Returns 0, or a negative errno with
 * res->error saying why.
 */
NB_MUST_CHECK int run_spec_execute(struct run_spec *spec, struct run_result *res, bool *bad_key);

#endif
