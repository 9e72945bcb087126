/*
 * netab experiment run | resume | list | status: argument parsing and
 * printing; the campaign module (src/lib/campaign) does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "campaign/status_show.h"
#include "cli/cli_experiment.h"
#include "cli/cli_opts.h"
#include "campaign/order.h"
#include "campaign/resume_all.h"
#include "experiment/summary.h"
#include "store/store.h"
#include "util/textfile.h"

int cli_exp_parse(int argc, char **argv, struct exp_args *a, unsigned allowed)
{
    memset(a, 0, sizeof(*a));
    a->verb = argv[0];
    int rc = cli_opts_parse(&cli_experiment_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    static const struct {
        unsigned bit;
        const char *name;
    } opts[] = {{EXP_OPT_DB, "--db"},
                {EXP_OPT_JSON, "--json"},
                {EXP_OPT_ALL, "--all"},
                {EXP_OPT_CHECK_DUT, "--check-dut"}};
    bool given[] = {a->db != NULL, a->json, a->all, a->check_dut};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (given[i] && !(allowed & opts[i].bit))
            return cli_usage_error("experiment", "%s has no %s", a->verb, opts[i].name);
    if (optind < argc)
        a->operand = argv[optind++];
    if (cli_no_operands("experiment", argc, argv))
        return EXIT_USAGE;
    char err[NB_ERRLEN * 2];
    if ((allowed & EXP_OPT_DB) &&
        store_default_path(a->db, a->path, sizeof(a->path), err, sizeof(err)))
        return cli_fail(EXIT_USAGE, "experiment", "%s", err);
    return -1;
}

int cli_exp_open_db(const struct exp_args *a, unsigned flags, struct store **s)
{
    char err[NB_ERRLEN * 2];
    int e = store_open(a->path, flags, s, err, sizeof(err));
    return e ? cli_fail(e, "experiment", "%s", err) : 0;
}

/* On a terminal: a bar redrawn in place; elsewhere one line per run. */
static void on_progress(const struct campaign_event *ev, const char *msg, void *arg)
{
    struct cli_progress *p = arg;
    cli_progress_clear(p);
    if (msg) {
        fprintf(stderr, "%s\n", msg);
        return;
    }
    for (size_t i = 0; ev->warnings && i < json_array_size(ev->warnings); i++)
        fprintf(stderr, "warning: %s\n", json_string_value(json_array_get(ev->warnings, i)) ?: "?");
    char line[NB_ERRLEN * 6], eta[32], last[NB_ERRLEN * 5];
    if (!p->tty || ev->status != STORE_RUN_OK) {
        campaign_event_line(ev, line, sizeof(line));
        fprintf(stderr, "%s\n", line);
    }
    if (p->tty) {
        campaign_duration_text(ev->eta_s, eta, sizeof(eta));
        campaign_event_last_text(ev, last, sizeof(last));
        cli_progress_bar(p, (size_t)ev->done, (size_t)ev->planned, ' ', eta, last);
    }
    fflush(stderr);
}

/* Runs or resumes experiment id; returns the exit status and explains it on stderr. */
static int execute(struct store *db, const char *path, int64_t id)
{
    struct cli_progress p = {.tty = isatty(STDERR_FILENO)};
    struct campaign_opts o = {
        .db = db, .db_path = path, .id = id, .progress = on_progress, .arg = &p};
    enum campaign_outcome outcome = CAMPAIGN_INTERRUPTED;
    int signo = 0;
    char err[NB_ERRLEN * 4];
    /*
     * The process policy: SIGINT, SIGTERM, SIGHUP and SIGPIPE (its output piped
     * into `head` that exited) stop the campaign cleanly: the run in progress is
     * recorded as interrupted by that signal, CPU settings are put back, and
     * the runner's row says how it ended. Killed by default, SIGPIPE left a
     * 'running' row and a store that claimed the campaign still ran.
     */
    struct cli_signals sigs;
    cli_signals_catch(&sigs, campaign_cancel, (const int[]){SIGINT, SIGTERM, SIGHUP, SIGPIPE, 0});
    int rc = campaign_execute(&o, &outcome, &signo, err, sizeof(err));
    cli_signals_restore(&sigs);
    if (p.shown)
        fputs("\n", stderr); /* keep the last bar on screen */
    struct store_counts c = {0};
    char cerr[NB_ERRLEN * 2];
    bool have = !store_experiment_counts(db, id, &c, cerr, sizeof(cerr));
    campaign_outcome_print(stderr, db, id, rc, err, outcome, signo, &c);
    /* Another runner holds the store, or there is no such experiment: nothing to resume. */
    if (rc == -EBUSY || rc == -ENOENT)
        return EXIT_ERROR;
    if (rc)
        return rc == -ENOTSUP ? EXIT_USAGE : EXIT_FAIL;
    if (outcome == CAMPAIGN_INTERRUPTED)
        return 128 + (signo ? signo : SIGINT);
    if (outcome == CAMPAIGN_REBOOTING)
        return EXIT_NO_REBOOT;
    return have && c.failed == 0 ? EXIT_OK : EXIT_FAIL;
}

int cli_experiment_run(int argc, char **argv)
{
    struct exp_args a;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_DB);
    if (ex >= 0)
        return ex;
    if (!a.operand)
        return cli_usage_error("experiment", "run: which experiment FILE?");
    struct experiment *e = NULL;
    char err[NB_ERRLEN * 4];
    int rc = 0;
    if (experiment_load_print(a.operand, &e, stderr))
        return EXIT_USAGE;
    int bad = campaign_preflight_print(stderr, a.operand, e, false);
    if (bad) {
        experiment_free(e);
        return EXIT_ERROR;
    }
    char *text = NULL;
    size_t len;
    rc =
        textfile_load(a.operand, TEXTFILE_MAX, "an experiment file", &text, &len, err, sizeof(err));
    uint64_t seed = e->has_seed ? e->seed : order_fresh_seed();
    struct store *db = NULL;
    int64_t id = 0;
    ex = EXIT_ERROR;
    if (rc)
        fprintf(stderr, "netab experiment: %s\n", err);
    else if (!cli_exp_open_db(&a, STORE_OPEN_CREATE, &db) &&
             !(rc = campaign_create(db, e, text, seed, &id, err, sizeof(err)))) {
        campaign_created_print(stderr, e, id, seed, store_path(db));
        printf("%lld\n", (long long)id);
        fflush(stdout);
        ex = execute(db, a.path, id);
    } else if (db) {
        fprintf(stderr, "netab experiment: %s\n", err);
    }
    store_close(db);
    free(text);
    experiment_free(e);
    return ex;
}

/* The worse of two exit statuses for resume --all: a signal beats a failure beats success. */
static int worse(int a, int b)
{
    return a > b ? a : b;
}

struct resume_all {
    struct store *db;
    const char *path;
    int ex; /* the worst exit status so far */
};

/* resume --all's step: one experiment resumed; a signal or a failed reboot stops the rest. */
static bool resume_one(void *arg, int64_t id, const char *name)
{
    struct resume_all *r = arg;
    fprintf(stderr, "resuming experiment %lld (%s)\n", (long long)id, name);
    r->ex = worse(r->ex, execute(r->db, r->path, id));
    return r->ex < 128 && r->ex != EXIT_NO_REBOOT;
}

int cli_experiment_resume(int argc, char **argv)
{
    struct exp_args a;
    int64_t id = 0;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_DB | EXP_OPT_ALL);
    if (ex >= 0)
        return ex;
    if (a.all && a.operand)
        return cli_usage_error("experiment", "resume: give an ID or --all, not both");
    if (!a.all && !cli_parse_id("experiment", a.verb, "experiment", a.operand, &id))
        return EXIT_USAGE;
    if (a.all && !store_is_url(a.path) && access(a.path, F_OK))
        return cli_fail(EXIT_OK, "experiment", "no store at %s: nothing to resume", a.path);
    struct store *db;
    if (cli_exp_open_db(&a, 0, &db))
        return EXIT_ERROR;
    if (!a.all) {
        ex = campaign_nothing_to_run(stderr, db, id) ? EXIT_OK : execute(db, a.path, id);
        store_close(db);
        return ex;
    }
    struct resume_all r = {db, a.path, EXIT_OK};
    size_t resumed;
    char err[NB_ERRLEN * 2];
    if (campaign_resume_all(db, resume_one, &r, &resumed, err, sizeof(err))) {
        store_close(db);
        return cli_fail(EXIT_ERROR, "experiment", "%s", err);
    }
    if (!resumed)
        fprintf(stderr, "netab experiment: every experiment in %s is done\n", store_path(db));
    store_close(db);
    return r.ex;
}
