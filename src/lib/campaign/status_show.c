#include "campaign/status_show.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "store/store_import.h"

static json_t *counts_json(const struct store_counts *c)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "planned", (int)c->planned, "completed",
                     (int)(c->ok + c->failed), "ok", (int)c->ok, "failed", (int)c->failed,
                     "interrupted", (int)c->interrupted, "running", (int)c->running, "pending",
                     (int)c->pending);
}

void campaign_event_headline(const struct campaign_event *ev, char *buf, size_t len)
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

void campaign_event_line(const struct campaign_event *ev, char *buf, size_t len)
{
    char head[NB_ERRLEN * 4];
    campaign_event_headline(ev, head, sizeof(head));
    snprintf(buf, len, "run %ld/%ld seq %d round %d%s variant=%s cell=%s: %s %s", ev->done,
             ev->planned, ev->seq, ev->round, ev->warmup ? " (warm-up)" : "", ev->variant, ev->cell,
             store_run_status_name(ev->status), head);
}

void campaign_event_last_text(const struct campaign_event *ev, char *buf, size_t len)
{
    char head[NB_ERRLEN * 4];
    campaign_event_headline(ev, head, sizeof(head));
    snprintf(buf, len, "last: %s %s %s", ev->variant, ev->cell,
             ev->status == STORE_RUN_OK ? head : store_run_status_name(ev->status));
}

void campaign_outcome_print(FILE *out, struct store *db, int64_t id, int rc, const char *err,
                            enum campaign_outcome outcome, int signo, const struct store_counts *c)
{
    const char *path = store_path(db);
    if (rc)
        fprintf(out, "netab experiment: %s\n", err);
    /* Another runner holds the store, or there is no such experiment: nothing to resume. */
    if (rc == -EBUSY || rc == -ENOENT)
        return;
    if (rc)
        fprintf(out,
                "netab experiment: experiment %lld stopped; what is recorded is kept. "
                "Continue with: netab experiment resume --db %s %lld\n",
                (long long)id, path, (long long)id);
    else if (outcome == CAMPAIGN_INTERRUPTED)
        fprintf(out,
                "netab experiment: interrupted by signal %d (%s) after %ld of %ld runs; the "
                "run in progress is recorded as interrupted and CPU settings are restored. "
                "Continue with: netab experiment resume --db %s %lld\n",
                signo, strsignal(signo), c->ok + c->failed, c->planned, path, (long long)id);
    else if (outcome == CAMPAIGN_REBOOTING)
        fprintf(out,
                "netab experiment: the reboot command returned and the machine did not reboot; "
                "continue with: netab experiment resume --db %s %lld\n",
                path, (long long)id);
    else
        fprintf(out, "experiment %lld complete: %ld planned, %ld ok, %ld failed\n", (long long)id,
                c->planned, c->ok, c->failed);
}

void campaign_created_print(FILE *out, const struct experiment *e, int64_t id, uint64_t seed,
                            const char *store_path)
{
    struct exp_plan plan;
    experiment_plan(e, &plan);
    fprintf(out, "experiment %lld (%s): %zu runs planned, seed %llu%s; store %s\n", (long long)id,
            e->name, plan.runs, (unsigned long long)seed,
            e->has_seed ? "" : " (picked; add 'seed: N' to the file to replay this order)",
            store_path);
}

bool campaign_nothing_to_run(FILE *out, struct store *db, int64_t id)
{
    bool imported = false;
    char err[NB_ERRLEN * 2];
    if (store_experiment_is_import(db, id, &imported, err, sizeof(err)) || !imported)
        return false;
    fprintf(out,
            "netab experiment: experiment %lld holds imported runs (netab import); there is "
            "nothing to run or resume\n",
            (long long)id);
    return true;
}

void campaign_duration_text(double s, char *buf, size_t len)
{
    if (!isfinite(s)) {
        snprintf(buf, len, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

const char *campaign_state_name(enum campaign_state s)
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
    const char *name = campaign_state_name(st.state);
    campaign_status_free(&st);
    return name;
}

int campaign_list_show(struct store *db, const char *db_path, FILE *out, json_t *json, char *err,
                       size_t errlen)
{
    struct store_experiment *x;
    size_t n;
    int e = store_experiment_list(db, &x, &n, err, errlen);
    if (e)
        return e;
    if (!json)
        fprintf(out, "%5s %-24s %-8s %8s %9s %6s  %s\n", "ID", "NAME", "STATUS", "PLANNED",
                "COMPLETED", "FAILED", "CREATED");
    for (size_t i = 0; i < n && !e; i++) {
        struct store_counts c;
        if ((e = store_experiment_counts(db, x[i].id, &c, err, errlen)))
            break;
        if (!json) {
            fprintf(out, "%5lld %-24s %-8s %8ld %9ld %6ld  %s\n", (long long)x[i].id, x[i].name,
                    list_state(db, db_path, &x[i]), c.planned, c.ok + c.failed, c.failed,
                    x[i].created);
            continue;
        }
        /* status is what the text column shows (the runner's liveness taken into account);
         * stored_status is the experiment row's own word, which says running until a resume. */
        const char *state = list_state(db, db_path, &x[i]);
        json_t *o = counts_json(&c);
        if (o)
            json_object_update_new(
                o, json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:I}", "id", (json_int_t)x[i].id,
                             "name", x[i].name, "status", state, "state", state, "stored_status",
                             x[i].status, "created", x[i].created, "seed", (json_int_t)x[i].seed));
        if (json_array_append_new(json, o))
            e = err_set(err, errlen, ENOMEM, "out of memory");
    }
    if (!json && !e && n == 0)
        fprintf(out, "(no experiments recorded)\n");
    store_experiment_list_free(x, n);
    return e;
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
static void print_state(FILE *out, const struct campaign_status *s, const char *db_path, int64_t id)
{
    char run[NB_ERRLEN], why[NB_ERRLEN * 2];
    if (s->has_last_run)
        run_name(&s->last_run, run, sizeof(run));
    if (s->state == CAMPAIGN_STATE_RUNNING) {
        fprintf(out, "runner:      pid %ld on %s since %s, last heartbeat %s\n", s->runner.pid,
                s->runner.host, s->runner.started, s->runner.heartbeat);
        if (s->has_last_run && s->last_run.status == STORE_RUN_RUNNING)
            fprintf(out, "in progress: %s, started %s\n", run, s->last_run.started);
        return;
    }
    if (s->state != CAMPAIGN_STATE_STOPPED)
        return;
    const char *t = gone_since(s);
    if (interrupted_run(s))
        fprintf(out, "not running: interrupted at %s (runner gone since %s)\n", run, t ? t : "?");
    else if (s->has_last_run)
        fprintf(out, "not running: stopped after %s (runner gone since %s)\n", run, t ? t : "?");
    else
        fprintf(out, "not running: stopped before its first run (runner gone since %s)\n",
                t ? t : "?");
    gone_why(s, why, sizeof(why));
    fprintf(out, "why:         %s\n", why);
    if (interrupted_run(s) && s->last_run.error)
        fprintf(out, "that run:    %s\n", s->last_run.error);
    char shown[4096];
    fprintf(out, "resume:      netab experiment resume --db %s %lld\n",
            store_display_path(db_path, shown, sizeof(shown)), (long long)id);
}

/* The state members of status --json. */
static json_t *state_json(const struct campaign_status *s, const char *db_path, int64_t id)
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
             store_display_path(db_path, shown, sizeof(shown)), (long long)id);
    gone_why(s, why, sizeof(why));
    return json_pack("{s:s, s:o, s:o, s:b, s:s?, s:s?, s:s?}", "state",
                     campaign_state_name(s->state), "runner", runner ? runner : json_null(),
                     "last_run", run ? run : json_null(), "stopped_mid_run",
                     stopped && interrupted_run(s), "gone_since", stopped ? gone_since(s) : NULL,
                     "gone_why", stopped ? why : NULL, "resume", stopped ? resume : NULL);
}

/* Text status: the headline, the runner's state, the counts. */
static void print_status(FILE *out, const struct store_experiment *me,
                         const struct campaign_status *s, const struct store_counts *c, double avg,
                         const char *db_path)
{
    char eta[32];
    campaign_duration_text(store_eta_seconds(c, avg), eta, sizeof(eta));
    fprintf(out, "experiment %lld (%s): %s\n", (long long)me->id, me->name,
            campaign_state_name(s->state));
    print_state(out, s, db_path, me->id);
    fprintf(out, "planned:     %ld\ncompleted:   %ld (%ld ok, %ld failed)\n", c->planned,
            c->ok + c->failed, c->ok, c->failed);
    fprintf(out, "pending:     %ld\ninterrupted: %ld attempts (run again)\n", c->pending,
            c->interrupted);
    if (c->running && s->state == CAMPAIGN_STATE_RUNNING)
        fprintf(out, "running:     %ld\n", c->running);
    else if (c->running)
        fprintf(out, "left running: %ld (its runner is gone; resume records it as interrupted)\n",
                c->running);
    if (c->pending)
        fprintf(out, "time left:   about %s (%s)\n", eta,
                isfinite(avg) ? "from the average run so far" : "no run finished yet");
}

/* The JSON of status: counts, the experiment's columns, time left, the runner's state. */
static json_t *status_json(const struct store_experiment *me, const struct campaign_status *s,
                           const struct store_counts *c, double avg, const char *db_path)
{
    double eta = store_eta_seconds(c, avg);
    json_t *o = counts_json(c);
    if (!o)
        return NULL;
    if (json_object_update_new(o, json_pack("{s:I, s:s, s:s, s:I, s:o, s:o}", "id",
                                            (json_int_t)me->id, "name", me->name, "status",
                                            me->status, "seed", (json_int_t)me->seed, "avg_run_s",
                                            isfinite(avg) ? json_real(avg) : json_null(), "eta_s",
                                            isfinite(eta) ? json_real(eta) : json_null())) ||
        json_object_update_new(o, state_json(s, db_path, me->id))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int campaign_status_show(struct store *db, const char *db_path, int64_t id, FILE *out,
                         json_t **json, char *err, size_t errlen)
{
    struct store_experiment *x = NULL;
    size_t n = 0;
    struct store_counts c;
    double avg = NAN;
    int e = store_experiment_list(db, &x, &n, err, errlen);
    if (!e)
        e = store_experiment_counts(db, id, &c, err, errlen);
    if (!e)
        e = store_avg_run_seconds(db, id, &avg, err, errlen);
    const struct store_experiment *me = NULL;
    for (size_t i = 0; !e && i < n; i++)
        if (x[i].id == id)
            me = &x[i];
    struct campaign_status s = {0};
    if (!e && !me)
        e = err_set(err, errlen, ENOENT, "there is no experiment %lld in %s", (long long)id,
                    store_path(db)); /* a URL without its password */
    if (!e)
        e = campaign_status_get(db, db_path, id, me->status, &s, err, errlen);
    if (!e && json && !(*json = status_json(me, &s, &c, avg, db_path)))
        e = err_set(err, errlen, ENOMEM, "out of memory");
    else if (!e && !json)
        print_status(out, me, &s, &c, avg, db_path);
    campaign_status_free(&s);
    store_experiment_list_free(x, n);
    return e;
}
