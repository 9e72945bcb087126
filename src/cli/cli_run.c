/* netab run: option parsing and printing; the work happens in libnetab. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_plot.h"
#include "cli/cli_run.h"
#include "runout/run_json.h"
#include "runout/run_out.h"
#include "runout/run_plot.h"
#include "store/store.h"
#include "util/opttable.h"

/* Prints run's help from runspec's option table, the one run_spec_parse() parses by. */
static void print_help(void)
{
    const struct opt_table cmd = {
        .name = "run",
        .usage = "usage: netab run [options]\n"
                 "\n"
                 "Runs one network test. Without -c, netab starts its own server on 127.0.0.1\n"
                 "(an ephemeral port) so a loopback test needs no set-up.\n"
                 "\n",
        .tail = "\n"
                "Sizes take K/M/G (1024-based) and Ki/Mi/Gi. Exit status: 0 success, 1 the test\n"
                "failed, 2 bad usage.\n",
        .opts = run_spec_opts,
    };
    opt_table_help(&cmd, stdout);
}

/* Text, --json or --json-stream; both of the last two (refused): the text's nothing on stdout. */
static enum run_out_form out_form(const struct run_spec *o)
{
    return o->json == o->json_stream ? RUN_OUT_TEXT : o->json ? RUN_OUT_JSON : RUN_OUT_STREAM;
}

/* Prints the usage error; with --json(-stream) also the document (events). Returns EXIT_USAGE. */
static int usage_failure(const struct run_spec *o, const char *msg)
{
    run_out_refused(stdout, out_form(o), msg);
    return cli_usage_error("run", "%s", msg);
}

int cli_run_parse(int argc, char **argv, struct run_spec *o)
{
    char err[NB_ERRLEN * 2];
    if (run_spec_parse(argc, argv, o, err, sizeof(err)))
        return usage_failure(o, err);
    if (o->help) {
        print_help();
        return EXIT_OK;
    }
    return cli_plot_format(o->plot, err, sizeof(err)) ? usage_failure(o, err) : -1;
}

/* --plot: the interval timeline, and one line on stderr saying what was drawn. */
static int draw_timeline(const struct run_spec *o, const struct run_result *res)
{
    char err[NB_ERRLEN];
    size_t n = 0;
    if (run_plot_timeline(res, o->plot, (double)o->plot_width, (double)o->plot_height, &n, err,
                          sizeof(err)))
        return cli_fail(-1, "run", "%s", err);
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
    /* The collection-cost benchmark (bench/counters_cost.sh) runs with and without. */
    const char *nc = getenv("NETAB_NO_COUNTERS");
    o.client.no_counters = nc && *nc && strcmp(nc, "0");
    struct run_result res;
    struct run_out out;
    run_spec_result_init(&o, &res);
    run_out_init(&out, out_form(&o), stdout, &res);
    o.client.on_interval = run_out_interval;
    o.client.ctx = &out;
    run_out_begin(&out);
    bool bad_key;
    /* A bad key file: not done (exit 2), with --json still the one document. */
    rc = run_spec_execute(&o, &res, &bad_key);
    json_t *doc = run_json_build(&res);
    int out_err = run_out_end(&out, doc);
    if (rc)
        fprintf(stderr, "netab run: error: %s\n", res.error);
    int exit_code = bad_key ? EXIT_ERROR : rc ? EXIT_FAIL : EXIT_OK;
    if (out_err) {
        fprintf(stderr, "netab run: cannot write the JSON document: %s\n", strerror(-out_err));
        exit_code = EXIT_ERROR;
    }
    /* A plot or a store that cannot be written: not done, whatever the test's outcome. */
    if (o.plot && !rc && draw_timeline(&o, &res))
        exit_code = EXIT_ERROR;
    /* --db: the run, its document and its exit status kept in the results store. */
    if (o.db &&
        store_record_run_doc(o.db, o.db_label, argc, argv, doc, exit_code, dberr, sizeof(dberr)))
        exit_code = cli_fail(EXIT_ERROR, "run", "the result was not stored: %s", dberr);
    json_decref(doc);
    run_result_free(&res);
    return exit_code;
}
