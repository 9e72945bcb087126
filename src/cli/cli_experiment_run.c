/*
 * netab experiment run | resume | list | status: argument parsing and
 * printing; the campaign module (src/lib/campaign) does the work.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
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
#include "campaign/order.h"
#include "store/store.h"
#include "store/store_import.h"
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
    if (optind < argc)
        return cli_usage_error("experiment", "unexpected argument '%s'", argv[optind]);
    char err[NB_ERRLEN * 2];
    if ((allowed & EXP_OPT_DB) &&
        store_default_path(a->db, a->path, sizeof(a->path), err, sizeof(err))) {
        fprintf(stderr, "netab experiment: %s\n", err);
        return EXIT_USAGE;
    }
    return -1;
}

int cli_exp_open_db(const struct exp_args *a, unsigned flags, struct store **s)
{
    char err[NB_ERRLEN * 2];
    int e = store_open(a->path, flags, s, err, sizeof(err));
    if (e)
        fprintf(stderr, "netab experiment: %s\n", err);
    return e;
}

bool cli_exp_parse_id(const struct exp_args *a, int64_t *id)
{
    long v;
    char perr[NB_ERRLEN];
    if (!a->operand) {
        cli_usage_error("experiment", "%s: which experiment? (an ID from 'netab experiment list')",
                        a->verb);
        return false;
    }
    if (!optval_int(a->verb, a->operand, 1, INT64_MAX, &v, perr, sizeof(perr))) {
        cli_usage_error("experiment", "%s", perr);
        return false;
    }
    *id = v;
    return true;
}

/* The headline of a run: throughput, or transactions for rr/crr tests. */
static void fmt_headline(const struct campaign_event *ev, char *buf, size_t len)
{
    if (ev->status != STORE_RUN_OK)
        snprintf(buf, len, "%s", ev->error);
    else if (isfinite(ev->transactions_s) && ev->transactions_s > 0)
        snprintf(buf, len, "%.0f trans/s", ev->transactions_s);
    else if (isfinite(ev->receiver_bps) && ev->receiver_bps >= 1e9)
        snprintf(buf, len, "%.1f Gbit/s", ev->receiver_bps / 1e9);
    else if (isfinite(ev->receiver_bps))
        snprintf(buf, len, "%.1f Mbit/s", ev->receiver_bps / 1e6);
    else
        snprintf(buf, len, "no throughput figure");
}

struct progress {
    bool tty, bar_shown;
};

/* On a terminal: a bar redrawn in place; elsewhere one line per run. */
static void on_progress(const struct campaign_event *ev, const char *msg, void *arg)
{
    struct progress *p = arg;
    if (p->bar_shown) {
        fputs("\r\033[K", stderr);
        p->bar_shown = false;
    }
    if (msg) {
        fprintf(stderr, "%s\n", msg);
        return;
    }
    for (size_t i = 0; ev->warnings && i < json_array_size(ev->warnings); i++)
        fprintf(stderr, "warning: %s\n", json_string_value(json_array_get(ev->warnings, i)) ?: "?");
    char head[NB_ERRLEN * 4], eta[32];
    fmt_headline(ev, head, sizeof(head));
    campaign_duration_text(ev->eta_s, eta, sizeof(eta));
    const char *status = store_run_status_name(ev->status);
    if (!p->tty || ev->status != STORE_RUN_OK)
        fprintf(stderr, "run %ld/%ld seq %d round %d%s variant=%s cell=%s: %s %s\n", ev->done,
                ev->planned, ev->seq, ev->round, ev->warmup ? " (warm-up)" : "", ev->variant,
                ev->cell, status, head);
    if (p->tty) {
        int width = 30, fill = ev->planned ? (int)(width * ev->done / ev->planned) : 0;
        fprintf(stderr, "[%.*s%*s] %ld/%ld  ETA %s  last: %s %s %s", fill,
                "##############################", width - fill, "", ev->done, ev->planned, eta,
                ev->variant, ev->cell, ev->status == STORE_RUN_OK ? head : status);
        p->bar_shown = true;
    }
    fflush(stderr);
}

/*
 * The process policy: SIGINT, SIGTERM, SIGHUP and SIGPIPE (its output piped
 * into `head` that exited) stop the campaign cleanly: the run in progress is
 * recorded as interrupted by that signal, CPU settings are put back, and
 * the runner's row says how it ended. Killed by default, SIGPIPE left a
 * 'running' row and a store that claimed the campaign still ran.
 */
static void on_stop_signal(int sig)
{
    campaign_cancel(sig);
}

#define NSTOP 4
static void stop_signals(bool install, struct sigaction old[NSTOP])
{
    static const int sigs[NSTOP] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (int i = 0; i < NSTOP; i++) {
        if (install) {
            struct sigaction sa = {.sa_handler = on_stop_signal};
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, &old[i]);
        } else {
            sigaction(sigs[i], &old[i], NULL);
        }
    }
}

/* Runs or resumes experiment id; returns the exit status and explains it on stderr. */
static int execute(struct store *db, const char *path, int64_t id)
{
    struct progress p = {.tty = isatty(STDERR_FILENO)};
    struct campaign_opts o = {
        .db = db, .db_path = path, .id = id, .progress = on_progress, .arg = &p};
    enum campaign_outcome outcome = CAMPAIGN_INTERRUPTED;
    int signo = 0;
    char err[NB_ERRLEN * 4];
    struct sigaction old[NSTOP];
    stop_signals(true, old);
    int rc = campaign_execute(&o, &outcome, &signo, err, sizeof(err));
    stop_signals(false, old);
    if (p.bar_shown)
        fputs("\n", stderr); /* keep the last bar on screen */
    struct store_counts c = {0};
    char cerr[NB_ERRLEN * 2];
    bool have = !store_experiment_counts(db, id, &c, cerr, sizeof(cerr));
    /* Another runner holds the store, or there is no such experiment: nothing to resume. */
    if (rc == -EBUSY || rc == -ENOENT) {
        fprintf(stderr, "netab experiment: %s\n", err);
        return EXIT_ERROR;
    }
    if (rc) {
        fprintf(stderr, "netab experiment: %s\n", err);
        fprintf(stderr,
                "netab experiment: experiment %lld stopped; what is recorded is kept. "
                "Continue with: netab experiment resume --db %s %lld\n",
                (long long)id, store_path(db), (long long)id);
        return rc == -ENOTSUP ? EXIT_USAGE : EXIT_FAIL;
    }
    if (outcome == CAMPAIGN_INTERRUPTED) {
        fprintf(stderr,
                "netab experiment: interrupted by signal %d (%s) after %ld of %ld runs; the "
                "run in progress is recorded as interrupted and CPU settings are restored. "
                "Continue with: netab experiment resume --db %s %lld\n",
                signo, strsignal(signo), c.ok + c.failed, c.planned, store_path(db), (long long)id);
        return 128 + (signo ? signo : SIGINT);
    }
    if (outcome == CAMPAIGN_REBOOTING) {
        fprintf(stderr,
                "netab experiment: the reboot command returned and the machine did not reboot; "
                "continue with: netab experiment resume --db %s %lld\n",
                store_path(db), (long long)id);
        return EXIT_NO_REBOOT;
    }
    fprintf(stderr, "experiment %lld complete: %ld planned, %ld ok, %ld failed\n", (long long)id,
            c.planned, c.ok, c.failed);
    return have && c.failed == 0 ? EXIT_OK : EXIT_FAIL;
}

/* The experiment file's text for the store (NULL if unreadable, larger than 64 MiB or binary). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len;
    if (textfile_read(f, TEXTFILE_MAX, &buf, &len))
        buf = NULL;
    fclose(f);
    return buf;
}

int cli_experiment_run(int argc, char **argv)
{
    struct exp_args a;
    int ex = cli_exp_parse(argc, argv, &a, EXP_OPT_DB);
    if (ex >= 0)
        return ex;
    if (!a.operand)
        return cli_usage_error("experiment", "run: which experiment FILE?");
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    char err[NB_ERRLEN * 4];
    int rc = experiment_load(a.operand, &e, &errs);
    if (rc) {
        cli_experiment_print_errors(a.operand, &errs);
        if (!errs.n)
            fprintf(stderr, "%s: %s\n", a.operand, strerror(-rc));
        exp_errors_free(&errs);
        return EXIT_USAGE;
    }
    exp_errors_free(&errs);
    int bad = cli_experiment_preflight(a.operand, e, false);
    if (bad) {
        experiment_free(e);
        return EXIT_ERROR;
    }
    char *text = read_file(a.operand);
    uint64_t seed = e->has_seed ? e->seed : order_fresh_seed();
    struct store *db = NULL;
    int64_t id = 0;
    ex = EXIT_ERROR;
    if (!text)
        fprintf(stderr, "netab experiment: cannot read %s: %s\n", a.operand, strerror(errno));
    else if (!cli_exp_open_db(&a, STORE_OPEN_CREATE, &db) &&
             !(rc = campaign_create(db, e, text, seed, &id, err, sizeof(err)))) {
        struct exp_plan plan;
        experiment_plan(e, &plan);
        fprintf(stderr, "experiment %lld (%s): %zu runs planned, seed %llu%s; store %s\n",
                (long long)id, e->name, plan.runs, (unsigned long long)seed,
                e->has_seed ? "" : " (picked; add 'seed: N' to the file to replay this order)",
                store_path(db));
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

/*
 * True (after saying so) when experiment id holds runs `netab import`
 * recorded: it has no experiment file, so resuming it must not look for one.
 */
static bool nothing_to_run(struct store *db, int64_t id)
{
    bool imported = false;
    char err[NB_ERRLEN * 2];
    if (store_experiment_is_import(db, id, &imported, err, sizeof(err)) || !imported)
        return false;
    fprintf(stderr,
            "netab experiment: experiment %lld holds imported runs (netab import); there is "
            "nothing to run or resume\n",
            (long long)id);
    return true;
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
    if (!a.all && !cli_exp_parse_id(&a, &id))
        return EXIT_USAGE;
    if (a.all && !store_is_url(a.path) && access(a.path, F_OK)) {
        fprintf(stderr, "netab experiment: no store at %s: nothing to resume\n", a.path);
        return EXIT_OK;
    }
    struct store *db;
    if (cli_exp_open_db(&a, 0, &db))
        return EXIT_ERROR;
    if (!a.all) {
        ex = nothing_to_run(db, id) ? EXIT_OK : execute(db, a.path, id);
        store_close(db);
        return ex;
    }
    struct store_experiment *x;
    size_t n;
    char err[NB_ERRLEN * 2];
    if (store_experiment_list(db, &x, &n, err, sizeof(err))) {
        fprintf(stderr, "netab experiment: %s\n", err);
        store_close(db);
        return EXIT_ERROR;
    }
    ex = EXIT_OK;
    size_t resumed = 0;
    for (size_t i = 0; i < n && ex < 128 && ex != EXIT_NO_REBOOT; i++) {
        if (!strcmp(x[i].status, "done"))
            continue;
        fprintf(stderr, "resuming experiment %lld (%s)\n", (long long)x[i].id, x[i].name);
        resumed++;
        ex = worse(ex, execute(db, a.path, x[i].id));
    }
    if (!resumed)
        fprintf(stderr, "netab experiment: every experiment in %s is done\n", a.path);
    store_experiment_list_free(x, n);
    store_close(db);
    return ex;
}
