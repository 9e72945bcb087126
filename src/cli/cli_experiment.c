/*
 * netab experiment: campaigns described by experiment files. Each verb is a
 * function in the table below; `validate`, `list` and `status` are here
 * (what list and status show is campaign/status_show.c's), the verbs that
 * run campaigns (run, resume) are in cli_experiment_run.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "campaign/campaign.h"
#include "campaign/status_show.h"
#include "cli/cli_experiment.h"
#include "cli/cli_opts.h"
#include "experiment/experiment.h"
#include "experiment/summary.h"

static const struct opt options[] = {
    CLI_DB_OPT(offsetof(struct exp_args, db)),
    {"json", 0, NULL, "list, status: JSON output", opt_set_true, offsetof(struct exp_args, json), 0,
     0, NULL},
    {"all", 0, NULL, "resume: every unfinished experiment (used by\ncontrib/netab-resume.service)",
     opt_set_true, offsetof(struct exp_args, all), 0, 0, NULL},
    {"check-dut", 0, NULL, "validate: also ssh to the DUT", opt_set_true,
     offsetof(struct exp_args, check_dut), 0, 0, NULL},
    {0},
};

const struct opt_table cli_experiment_cmd = {
    .name = "experiment",
    .usage = "usage: netab experiment <verb> [options] FILE|ID\n"
             "\n"
             "Verbs:\n"
             "  validate FILE [--check-dut]\n"
             "                           check an experiment file, print every problem as\n"
             "                           FILE:LINE:COL: message, then everything run checks\n"
             "                           on this machine before its first run (CPU settings,\n"
             "                           hooks on PATH, local servers; --check-dut: ssh to\n"
             "                           the DUT), and a summary of the campaign\n"
             "  run [--db PATH] FILE     plan the whole campaign, record it, run it\n"
             "  resume [--db PATH] ID    continue an interrupted campaign (--all: every\n"
             "                           unfinished one; used by contrib/netab-resume.service)\n"
             "  list [--db PATH] [--json]        experiments with planned and completed runs\n"
             "  status [--db PATH] ID [--json]   running or not (the runner's lock), the\n"
             "                           interrupted run, counts, failures, time left\n"
             "\n"
             "options:\n",
    .tail = "\n"
            "File format: docs/experiment.md; campaigns: docs/campaign.md.\n"
            "\n"
            "Exit status: 0 done (run/resume: every planned run completed and all ok);\n"
            "1 run/resume: the campaign completed but some runs failed; 2 bad usage, an\n"
            "invalid file, CPU settings this machine cannot make, or a store that cannot\n"
            "be used; 3 reset: reboot handed over to a reboot that did not happen;\n"
            "128+N stopped by signal N (resume continues).\n",
    .opts = options,
};

static int verb_validate(int argc, char **argv)
{
    struct exp_args a;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_CHECK_DUT);
    if (ex >= 0)
        return ex;
    const char *path = a.operand;
    bool check_dut = a.check_dut;
    if (!path)
        return cli_usage_error("experiment", "validate takes exactly one FILE");
    struct experiment *e = NULL;
    if (experiment_load_print(path, &e, stderr))
        return EXIT_USAGE;
    int bad = campaign_preflight_print(stderr, path, e, check_dut);
    if (!bad)
        experiment_summary_print(stdout, path, e);
    experiment_free(e);
    return bad ? EXIT_ERROR : EXIT_OK;
}

/* list and status: what campaign/status_show.c shows of the store, as text or JSON. */
static int show(int argc, char **argv, bool list)
{
    struct exp_args a;
    int64_t id = 0;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_DB | EXP_OPT_JSON);
    if (ex >= 0)
        return ex;
    if (list && a.operand)
        return cli_usage_error("experiment", "list takes no argument");
    if (!list && !cli_parse_id("experiment", a.verb, "experiment", a.operand, &id))
        return EXIT_USAGE;
    struct store *db;
    if (cli_exp_open_db(&a, STORE_OPEN_READONLY, &db))
        return EXIT_ERROR;
    char err[NB_ERRLEN * 2] = "out of memory";
    json_t *doc = list && a.json ? json_array() : NULL;
    int e = -ENOMEM;
    if (!list)
        e = campaign_status_show(db, a.path, id, stdout, a.json ? &doc : NULL, err, sizeof(err));
    else if (!a.json || doc)
        e = campaign_list_show(db, a.path, stdout, doc, err, sizeof(err));
    store_close(db);
    if (e) {
        fprintf(stderr, "netab experiment: %s\n", err);
        json_decref(doc);
        return EXIT_ERROR;
    }
    return a.json && cli_json_print("experiment", doc) ? EXIT_ERROR : EXIT_OK;
}

int cli_experiment_list(int argc, char **argv)
{
    return show(argc, argv, true);
}

int cli_experiment_status(int argc, char **argv)
{
    return show(argc, argv, false);
}

struct verb {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the verb */
};

static const struct verb verbs[] = {
    {"validate", verb_validate},       {"run", cli_experiment_run},
    {"resume", cli_experiment_resume}, {"list", cli_experiment_list},
    {"status", cli_experiment_status},
};

int cli_experiment(int argc, char **argv)
{
    if (argc < 2) {
        opt_table_help(&cli_experiment_cmd, stderr);
        return EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
        opt_table_help(&cli_experiment_cmd, stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        if (!strcmp(verb, verbs[i].name))
            return verbs[i].fn(argc - 1, argv + 1);
    const char *names[sizeof(verbs) / sizeof(verbs[0])];
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        names[i] = verbs[i].name;
    char hint[128];
    return cli_usage_error(
        "experiment", "unknown verb '%s'%s (known: validate, run, resume, list, status)", verb,
        optmatch_closest(verb, names, sizeof(verbs) / sizeof(verbs[0]), hint, sizeof(hint)));
}
