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
#include "experiment/experiment.h"

static const struct cli_opt options[] = {
    {"db", 0, "PATH",
     "the results store (default $NETAB_DB, else\n$XDG_DATA_HOME/netab/results.db)", cli_set_string,
     offsetof(struct exp_args, db), 0, 0},
    {"json", 0, NULL, "list, status: JSON output", cli_set_true, offsetof(struct exp_args, json), 0,
     0},
    {"all", 0, NULL, "resume: every unfinished experiment (used by\ncontrib/netab-resume.service)",
     cli_set_true, offsetof(struct exp_args, all), 0, 0},
    {"check-dut", 0, NULL, "validate: also ssh to the DUT", cli_set_true,
     offsetof(struct exp_args, check_dut), 0, 0},
    {0},
};

const struct cli_cmd cli_experiment_cmd = {
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

void cli_experiment_print_errors(const char *path, const struct exp_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        const struct exp_error *e = &errs->v[i];
        if (e->line > 0)
            fprintf(stderr, "%s:%d:%d: %s\n", path, e->line, e->col, e->msg);
        else
            fprintf(stderr, "%s: %s\n", path, e->msg);
    }
    if (errs->dropped)
        fprintf(stderr, "%s: ... and %zu more errors\n", path, errs->dropped);
}

static void format_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh %02ldm %02lds", t / 3600, t / 60 % 60, t % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

static void print_summary(const char *path, const struct experiment *e)
{
    struct exp_plan plan;
    char dur[64];
    experiment_plan(e, &plan);
    format_duration(plan.seconds, dur, sizeof(dur));
    printf("%s: valid\n", path);
    printf("experiment:   %s\n", e->name);
    printf("variants:     %zu (", e->nvariants);
    for (size_t i = 0; i < e->nvariants; i++)
        printf("%s%s", i ? ", " : "", e->variants[i].name);
    printf(")\n");
    printf("matrix cells: %zu", plan.cells);
    for (size_t a = 0; a < e->naxes; a++)
        printf("%s%s[%zu]", a ? " x " : " (", e->axes[a].key->name, e->axes[a].nvalues);
    printf("%s\n", e->naxes ? ")" : "");
    printf("runs:         %zu = (%ld runs + %ld warm-up) x %zu variants x %zu cells\n", plan.runs,
           e->runs, e->warmup, e->nvariants, plan.cells);
    printf("duration:     %s%s (time + omit + cooldown %.3g s per run)\n",
           plan.lower_bound ? "at least " : "about ", dur, e->cooldown);
    if (e->has_seed)
        printf("seed:         %llu\n", (unsigned long long)e->seed);
    else
        printf("seed:         none (a run picks one and records it)\n");
    if (e->order == EXP_ORDER_BLOCKED)
        printf("order:        blocked (warning: drift over time is confounded with the variant)\n");
    if (e->named_duts) {
        printf("duts:         %zu (", e->nduts);
        for (size_t i = 0; i < e->nduts; i++)
            printf("%s%s = %s", i ? ", " : "", e->duts[i].name, e->duts[i].ssh);
        printf(") over ssh; each run's identity checked on its own DUT; %s\n",
               e->parallel_duts ? "parallel: the DUTs' runs at the same time"
                                : "one run at a time");
    } else if (e->dut)
        printf("dut:          %s over ssh; runs target %s; its identity is checked before each "
               "run and it boots the run's variant when it does not match%s\n",
               e->dut->ssh, e->dut->server ? e->dut->server : "its ssh host",
               e->reset == EXP_RESET_REBOOT ? " (reset: reboot: a boot before every run)" : "");
}

int cli_experiment_preflight(const char *path, const struct experiment *e, bool check_dut)
{
    struct campaign_findings f = {0};
    struct campaign_preflight_opts o = {.check_dut = check_dut};
    if (campaign_preflight(e, &o, &f)) {
        campaign_findings_free(&f);
        fprintf(stderr, "netab experiment: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < f.n; i++)
        fprintf(stderr, "netab experiment: %s: %s: %s\n", path,
                f.v[i].error ? "refusing to start" : "warning", f.v[i].msg);
    int n = (int)f.errors;
    campaign_findings_free(&f);
    return n;
}

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
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    int err = experiment_load(path, &e, &errs);
    if (err) {
        cli_experiment_print_errors(path, &errs);
        if (!errs.n)
            fprintf(stderr, "%s: %s\n", path, strerror(-err));
        exp_errors_free(&errs);
        return EXIT_USAGE;
    }
    int bad = cli_experiment_preflight(path, e, check_dut);
    if (!bad)
        print_summary(path, e);
    experiment_free(e);
    exp_errors_free(&errs);
    return bad ? EXIT_ERROR : EXIT_OK;
}

int cli_experiment_list(int argc, char **argv)
{
    struct exp_args a;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_DB | EXP_OPT_JSON);
    if (ex >= 0)
        return ex;
    if (a.operand)
        return cli_usage_error("experiment", "list takes no argument");
    struct store *db;
    if (cli_exp_open_db(&a, STORE_OPEN_READONLY, &db))
        return EXIT_ERROR;
    char err[NB_ERRLEN * 2] = "out of memory";
    json_t *arr = a.json ? json_array() : NULL;
    int e =
        a.json && !arr ? -ENOMEM : campaign_list_show(db, a.path, stdout, arr, err, sizeof(err));
    store_close(db);
    if (e) {
        fprintf(stderr, "netab experiment: %s\n", err);
        json_decref(arr);
        return EXIT_ERROR;
    }
    return a.json && cli_json_print("experiment", arr) ? EXIT_ERROR : EXIT_OK;
}

int cli_experiment_status(int argc, char **argv)
{
    struct exp_args a;
    int64_t id;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_DB | EXP_OPT_JSON);
    if (ex >= 0)
        return ex;
    if (!cli_exp_parse_id(&a, &id))
        return EXIT_USAGE;
    struct store *db;
    if (cli_exp_open_db(&a, STORE_OPEN_READONLY, &db))
        return EXIT_ERROR;
    char err[NB_ERRLEN * 2];
    json_t *doc = NULL;
    int e = campaign_status_show(db, a.path, id, stdout, a.json ? &doc : NULL, err, sizeof(err));
    store_close(db);
    if (e) {
        fprintf(stderr, "netab experiment: %s\n", err);
        return EXIT_ERROR;
    }
    return a.json && cli_json_print("experiment", doc) ? EXIT_ERROR : EXIT_OK;
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
        cli_opts_help(&cli_experiment_cmd, stderr);
        return EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
        cli_opts_help(&cli_experiment_cmd, stdout);
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
