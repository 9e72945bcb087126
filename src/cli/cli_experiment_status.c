/*
 * netab experiment list | status: what the store says about experiments,
 * and (status) whether a runner is alive (campaign_status_get()).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "campaign/campaign.h"
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_experiment.h"
#include "store/store.h"

static json_t *counts_json(const struct store_counts *c)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "planned", (int)c->planned, "completed",
                     (int)(c->ok + c->failed), "ok", (int)c->ok, "failed", (int)c->failed,
                     "interrupted", (int)c->interrupted, "running", (int)c->running, "pending",
                     (int)c->pending);
}

static int print_json(json_t *v)
{
    if (!v) {
        fprintf(stderr, "netab experiment: out of memory\n");
        return EXIT_ERROR;
    }
    int e = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(v);
    fputc('\n', stdout);
    return e ? EXIT_ERROR : EXIT_OK;
}

/* A state's name, as list and status print it. */
static const char *state_name(enum campaign_state s)
{
    static const char *const names[] = {"planned", "running", "stopped", "done"};
    return (unsigned)s < 4 ? names[s] : "?";
}

/*
 * The state of experiment x (campaign_status_get(): "stopped" rather than
 * the column's "running" when its runner is gone), or its status column
 * when that cannot be read.
 */
static const char *list_state(struct store *db, const char *path, const struct store_experiment *x)
{
    struct campaign_status st;
    char err[NB_ERRLEN * 2];
    if (campaign_status_get(db, path, x->id, x->status, &st, err, sizeof(err)))
        return x->status;
    const char *name = state_name(st.state);
    campaign_status_free(&st);
    return name;
}

int cli_experiment_list(int argc, char **argv)
{
    struct exp_args a;
    int ex = cli_exp_parse(argc, argv, &a, true, false);
    if (ex >= 0)
        return ex;
    if (a.operand)
        return cli_usage_error("experiment", "list takes no argument");
    struct store *db;
    if (cli_exp_open_db(&a, STORE_OPEN_READONLY, &db))
        return EXIT_ERROR;
    struct store_experiment *x;
    size_t n;
    char err[NB_ERRLEN * 2];
    json_t *arr = a.json ? json_array() : NULL;
    ex = EXIT_OK;
    if (store_experiment_list(db, &x, &n, err, sizeof(err))) {
        fprintf(stderr, "netab experiment: %s\n", err);
        store_close(db);
        json_decref(arr);
        return EXIT_ERROR;
    }
    if (!a.json)
        printf("%5s %-24s %-8s %8s %9s %6s  %s\n", "ID", "NAME", "STATUS", "PLANNED", "COMPLETED",
               "FAILED", "CREATED");
    for (size_t i = 0; i < n && ex == EXIT_OK; i++) {
        struct store_counts c;
        if (store_experiment_counts(db, x[i].id, &c, err, sizeof(err))) {
            fprintf(stderr, "netab experiment: %s\n", err);
            ex = EXIT_ERROR;
        } else if (a.json) {
            json_t *o = counts_json(&c);
            if (o)
                json_object_update_new(o, json_pack("{s:I, s:s, s:s, s:s, s:s, s:I}", "id",
                                                    (json_int_t)x[i].id, "name", x[i].name,
                                                    "status", x[i].status, "state",
                                                    list_state(db, a.path, &x[i]), "created",
                                                    x[i].created, "seed", (json_int_t)x[i].seed));
            json_array_append_new(arr, o);
        } else {
            printf("%5lld %-24s %-8s %8ld %9ld %6ld  %s\n", (long long)x[i].id, x[i].name,
                   list_state(db, a.path, &x[i]), c.planned, c.ok + c.failed, c.failed,
                   x[i].created);
        }
    }
    if (!a.json && n == 0)
        printf("(no experiments recorded)\n");
    store_experiment_list_free(x, n);
    store_close(db);
    if (a.json && ex == EXIT_OK)
        return print_json(arr);
    json_decref(arr);
    return ex;
}

/* When the runner of a stopped campaign was last known alive: its end, else its last heartbeat. */
static const char *gone_since(const struct campaign_status *s)
{
    if (s->has_runner)
        return s->runner.ended ? s->runner.ended : s->runner.heartbeat;
    return s->has_last_run ? s->last_run.started : NULL;
}

/* Why the runner is gone: how it ended, or that it vanished without saying. */
static void gone_why(const struct campaign_status *s, char *buf, size_t len)
{
    const struct store_runner *r = &s->runner;
    if (!s->has_runner)
        snprintf(buf, len, "runner vanished (no runner record: the store's older netab kept none)");
    else if (r->ended && strcmp(r->end_reason ? r->end_reason : "", "vanished (found at resume)"))
        snprintf(buf, len, "the runner (pid %ld on %s) ended: %s", r->pid, r->host,
                 r->end_reason ? r->end_reason : "?");
    else
        snprintf(buf, len,
                 "runner vanished (pid %ld on %s recorded no end: killed, crashed or the machine "
                 "went down); the time is its last heartbeat",
                 r->pid, r->host);
}

/* "run seq 5 (variant a, cell default, attempt 1)". */
static void run_name(const struct store_last_run *l, char *buf, size_t len)
{
    snprintf(buf, len, "run seq %d (variant %s, cell %s, attempt %d)", l->seq,
             l->variant ? l->variant : "?", l->cell ? l->cell : "-", l->attempt);
}

static bool interrupted_run(const struct campaign_status *s)
{
    return s->has_last_run &&
           (s->last_run.status == STORE_RUN_RUNNING || s->last_run.status == STORE_RUN_INTERRUPTED);
}

/* The headline of status: running, or not running and where it stopped, and how to resume. */
static void print_state(const struct campaign_status *s, const struct exp_args *a, int64_t id)
{
    char run[NB_ERRLEN], why[NB_ERRLEN * 2];
    if (s->has_last_run)
        run_name(&s->last_run, run, sizeof(run));
    if (s->state == CAMPAIGN_STATE_RUNNING) {
        printf("runner:      pid %ld on %s since %s, last heartbeat %s\n", s->runner.pid,
               s->runner.host, s->runner.started, s->runner.heartbeat);
        if (s->has_last_run && s->last_run.status == STORE_RUN_RUNNING)
            printf("in progress: %s, started %s\n", run, s->last_run.started);
        return;
    }
    if (s->state != CAMPAIGN_STATE_STOPPED)
        return;
    const char *t = gone_since(s);
    if (interrupted_run(s))
        printf("not running: interrupted at %s (runner gone since %s)\n", run, t ? t : "?");
    else if (s->has_last_run)
        printf("not running: stopped after %s (runner gone since %s)\n", run, t ? t : "?");
    else
        printf("not running: stopped before its first run (runner gone since %s)\n", t ? t : "?");
    gone_why(s, why, sizeof(why));
    printf("why:         %s\n", why);
    if (interrupted_run(s) && s->last_run.error)
        printf("that run:    %s\n", s->last_run.error);
    char shown[4096];
    printf("resume:      netab experiment resume --db %s %lld\n",
           store_display_path(a->path, shown, sizeof(shown)), (long long)id);
}

/* The state members of status --json. */
static json_t *state_json(const struct campaign_status *s, const struct exp_args *a, int64_t id)
{
    const struct store_runner *r = &s->runner;
    const struct store_last_run *l = &s->last_run;
    json_t *runner =
        s->has_runner
            ? json_pack("{s:I, s:s, s:s, s:s, s:s?, s:s?, s:b}", "pid", (json_int_t)r->pid, "host",
                        r->host, "started", r->started, "heartbeat", r->heartbeat, "ended",
                        r->ended, "end_reason", r->end_reason, "alive", s->alive)
            : json_null();
    json_t *run =
        s->has_last_run
            ? json_pack("{s:I, s:i, s:s?, s:s?, s:i, s:s, s:s?}", "run_id", (json_int_t)l->run_id,
                        "seq", l->seq, "variant", l->variant, "cell", l->cell, "attempt",
                        l->attempt, "status", store_run_status_name(l->status), "error", l->error)
            : json_null();
    bool stopped = s->state == CAMPAIGN_STATE_STOPPED;
    char resume[4200], why[NB_ERRLEN * 2], shown[4096];
    snprintf(resume, sizeof(resume), "netab experiment resume --db %s %lld",
             store_display_path(a->path, shown, sizeof(shown)), (long long)id);
    gone_why(s, why, sizeof(why));
    return json_pack("{s:s, s:o, s:o, s:b, s:s?, s:s?, s:s?}", "state", state_name(s->state),
                     "runner", runner ? runner : json_null(), "last_run", run ? run : json_null(),
                     "stopped_mid_run", stopped && interrupted_run(s), "gone_since",
                     stopped ? gone_since(s) : NULL, "gone_why", stopped ? why : NULL, "resume",
                     stopped ? resume : NULL);
}

/* Text status: the headline, the runner's state, the counts. */
static void print_status(const struct store_experiment *me, const struct campaign_status *s,
                         const struct store_counts *c, double avg, const struct exp_args *a)
{
    char eta[32];
    cli_exp_fmt_duration(store_eta_seconds(c, avg), eta, sizeof(eta));
    printf("experiment %lld (%s): %s\n", (long long)me->id, me->name, state_name(s->state));
    print_state(s, a, me->id);
    printf("planned:     %ld\ncompleted:   %ld (%ld ok, %ld failed)\n", c->planned,
           c->ok + c->failed, c->ok, c->failed);
    printf("pending:     %ld\ninterrupted: %ld attempts (run again)\n", c->pending, c->interrupted);
    if (c->running && s->state == CAMPAIGN_STATE_RUNNING)
        printf("running:     %ld\n", c->running);
    else if (c->running)
        printf("left running: %ld (its runner is gone; resume records it as interrupted)\n",
               c->running);
    if (c->pending)
        printf("time left:   about %s (%s)\n", eta,
               isfinite(avg) ? "from the average run so far" : "no run finished yet");
}

int cli_experiment_status(int argc, char **argv)
{
    struct exp_args a;
    int64_t id;
    int ex = cli_exp_parse(argc, argv, &a, true, false);
    if (ex >= 0)
        return ex;
    if (!cli_exp_parse_id(&a, &id))
        return EXIT_USAGE;
    struct store *db;
    if (cli_exp_open_db(&a, STORE_OPEN_READONLY, &db))
        return EXIT_ERROR;
    struct store_experiment *x = NULL;
    size_t n = 0;
    struct store_counts c;
    double avg = NAN;
    char err[NB_ERRLEN * 2];
    if (store_experiment_list(db, &x, &n, err, sizeof(err)) ||
        store_experiment_counts(db, id, &c, err, sizeof(err)) ||
        store_avg_run_seconds(db, id, &avg, err, sizeof(err))) {
        fprintf(stderr, "netab experiment: %s\n", err);
        store_experiment_list_free(x, n);
        store_close(db);
        return EXIT_ERROR;
    }
    const struct store_experiment *me = NULL;
    for (size_t i = 0; i < n; i++)
        if (x[i].id == id)
            me = &x[i];
    struct campaign_status s = {0};
    if (!me) {
        fprintf(stderr, "netab experiment: there is no experiment %lld in %s\n", (long long)id,
                a.path);
        ex = EXIT_ERROR;
    } else if (campaign_status_get(db, a.path, id, me->status, &s, err, sizeof(err))) {
        fprintf(stderr, "netab experiment: %s\n", err);
        ex = EXIT_ERROR;
    } else if (a.json) {
        double eta = store_eta_seconds(&c, avg);
        json_t *o = counts_json(&c);
        if (o) {
            json_object_update_new(
                o, json_pack("{s:I, s:s, s:s, s:I, s:o, s:o}", "id", (json_int_t)id, "name",
                             me->name, "status", me->status, "seed", (json_int_t)me->seed,
                             "avg_run_s", isfinite(avg) ? json_real(avg) : json_null(), "eta_s",
                             isfinite(eta) ? json_real(eta) : json_null()));
            json_object_update_new(o, state_json(&s, &a, id));
        }
        ex = print_json(o);
    } else {
        print_status(me, &s, &c, avg, &a);
        ex = EXIT_OK;
    }
    campaign_status_free(&s);
    store_experiment_list_free(x, n);
    store_close(db);
    return ex;
}
