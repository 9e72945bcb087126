/*
 * `netab runs VERB`: look into the results store (docs/store.md). Argument
 * parsing and printing only; the store module does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_experiment.h"
#include "cli/cli_opts.h"
#include "import/import.h"
#include "store/store.h"
#include "store/store_print.h"

struct runs_args {
    const char *verb, *db, *output, *format, *argv_text, *operand;
    long experiment; /* STORE_ALL_RUNS if not given */
    bool json;
};

#define FIELD(f) offsetof(struct runs_args, f)

static const struct opt options[] = {
    CLI_DB_OPT(FIELD(db)),
    {"experiment", 0, "ID", "only this experiment's runs (0: single runs only)", opt_set_long,
     FIELD(experiment), 0, (double)INT64_MAX, NULL},
    {"json", 0, NULL, "JSON output", opt_set_true, FIELD(json), 0, 0, NULL},
    {"format", 0, "F", "export format: csv or json", opt_set_string, FIELD(format), 0, 0, NULL},
    {"output", 'o', "FILE", "export to FILE instead of standard output", opt_set_string,
     FIELD(output), 0, 0, NULL},
    {"argv", 0, "TEXT", "import: the command line to record (default:\n'imported from FILE')",
     opt_set_string, FIELD(argv_text), 0, 0, NULL},
    {0},
};

static const struct opt_table runs_cmd = {
    .name = "runs",
    .usage = "usage: netab runs VERB [options]\n"
             "\n"
             "Shows what the results store holds (docs/store.md).\n"
             "\n"
             "verbs:\n"
             "  list [--experiment ID] [--json]   runs with their headline metrics\n"
             "  show ID [--json]                  one run with everything, raw JSON included\n"
             "  export [--experiment ID] --format csv|json [-o FILE]\n"
             "                                    runs as CSV (headline columns) or JSON (all)\n"
             "  experiments [--json]              the same as 'netab experiment list'\n"
             "  status ID [--json]                the same as 'netab experiment status ID'\n"
             "  import FILE [--argv TEXT]         record a 'netab run --json' document ('-' is\n"
             "                                    standard input) as a single run\n"
             "\n"
             "options:\n",
    .tail = "\n"
            "exit status: 0 done; 2 bad command line, the store could not be read or\n"
            "written, or the run asked for is not there.\n",
    .opts = options,
};

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct runs_args *a)
{
    memset(a, 0, sizeof(*a));
    a->experiment = STORE_ALL_RUNS;
    if (argc < 2)
        return cli_usage_error("runs", "which verb: list, show, export, experiments, status "
                                       "or import?");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        opt_table_help(&runs_cmd, stdout);
        return EXIT_OK;
    }
    a->verb = argv[1];
    int rc = cli_opts_parse(&runs_cmd, argc - 1, argv + 1, a);
    if (rc >= 0)
        return rc;
    argv++;
    argc--;
    if (optind < argc)
        a->operand = argv[optind++];
    return cli_no_operands("runs", argc, argv) ? EXIT_USAGE : -1;
}

static int open_store(const struct runs_args *a, unsigned flags, struct store **s)
{
    char err[NB_ERRLEN * 2];
    int e = store_open_default(a->db, flags, s, err, sizeof(err));
    return e ? cli_fail(e, "runs", "%s", err) : 0;
}

static int print_json(json_t *v)
{
    return cli_json_print("runs", v) ? EXIT_ERROR : EXIT_OK;
}

static int verb_list(const struct runs_args *a, struct store *s)
{
    struct store_run *runs;
    size_t n;
    char err[NB_ERRLEN * 2];
    if (store_run_list(s, a->experiment, false, &runs, &n, err, sizeof(err)))
        return cli_fail(EXIT_ERROR, "runs", "%s", err);
    if (a->json) {
        json_t *arr = store_run_list_json(runs, n);
        store_run_list_free(runs, n);
        return print_json(arr);
    }
    int e = store_print_run_list(stdout, runs, n);
    store_run_list_free(runs, n);
    return e ? EXIT_ERROR : EXIT_OK;
}

static int verb_show(const struct runs_args *a, struct store *s)
{
    int64_t id;
    if (!cli_parse_id("runs", a->verb, "run", a->operand, &id))
        return EXIT_USAGE;
    struct store_run r;
    char err[NB_ERRLEN * 2];
    if (store_run_get(s, id, &r, err, sizeof(err)))
        return cli_fail(EXIT_ERROR, "runs", "%s", err);
    if (a->json) {
        json_t *v = store_run_to_json(&r, true);
        store_run_free(&r);
        return print_json(v);
    }
    int e = store_print_run(stdout, &r);
    store_run_free(&r);
    return e ? EXIT_ERROR : EXIT_OK;
}

static int verb_export(const struct runs_args *a, struct store *s)
{
    enum store_format fmt;
    if (!a->format)
        return cli_usage_error("runs", "export: --format csv or --format json?");
    if (store_format_parse(a->format, &fmt))
        return cli_usage_error("runs", "--format: '%s' is neither csv nor json", a->format);
    char err[NB_ERRLEN * 2];
    if (store_export_path(s, a->experiment, fmt, a->output, err, sizeof(err)))
        return cli_fail(EXIT_ERROR, "runs", "%s", err);
    return EXIT_OK;
}

static int verb_import(const struct runs_args *a, struct store *s)
{
    if (!a->operand)
        return cli_usage_error("runs", "import: which file? ('-' for standard input)");
    char err[4200 + NB_ERRLEN * 2];
    int64_t id;
    if (import_run_doc(s, a->operand, a->argv_text, &id, err, sizeof(err)))
        return cli_fail(EXIT_ERROR, "runs", "%s", err);
    printf("recorded run %lld in %s\n", (long long)id, store_path(s));
    return EXIT_OK;
}

/*
 * `runs experiments` and `runs status` are the older names of `experiment
 * list` and `experiment status`, which they run: one implementation, one
 * output (the experiment verbs know whether a runner is alive).
 */
static int run_alias(int argc, char **argv)
{
    static const char *const alias[][2] = {{"experiments", "list"}, {"status", "status"}};
    for (size_t i = 0; argc >= 2 && i < sizeof(alias) / sizeof(alias[0]); i++)
        if (!strcmp(argv[1], alias[i][0])) {
            argv[1] = (char *)alias[i][1];
            return alias[i][1][0] == 'l' ? cli_experiment_list(argc - 1, argv + 1)
                                         : cli_experiment_status(argc - 1, argv + 1);
        }
    return -1;
}

int cli_runs(int argc, char **argv)
{
    struct runs_args a;
    int rc = run_alias(argc, argv);
    if (rc >= 0)
        return rc;
    rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    static const struct {
        const char *name;
        int (*fn)(const struct runs_args *, struct store *);
        bool writes;
    } verbs[] = {
        {"list", verb_list, false},
        {"show", verb_show, false},
        {"export", verb_export, false},
        {"import", verb_import, true},
    };
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
        if (strcmp(a.verb, verbs[i].name))
            continue;
        if (!verbs[i].writes && a.operand && strcmp(a.verb, "show"))
            return cli_usage_error("runs", "%s: unexpected argument '%s'", a.verb, a.operand);
        struct store *s;
        /* Readers never create a database; only import does. */
        if (open_store(&a, verbs[i].writes ? STORE_OPEN_CREATE : 0, &s))
            return EXIT_ERROR;
        rc = verbs[i].fn(&a, s);
        store_close(s);
        return rc;
    }
    static const char *const names[] = {"list",        "show",   "export",
                                        "experiments", "status", "import"};
    char hint[128];
    return cli_usage_error(
        "runs", "unknown verb '%s'%s (known: list, show, export, experiments, status, import)",
        a.verb,
        optmatch_closest(a.verb, names, sizeof(names) / sizeof(names[0]), hint, sizeof(hint)));
}
