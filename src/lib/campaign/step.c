/*
 * One planned run of a campaign, from its 'running' row to its final status.
 * The order matters for durability: the row is committed before anything
 * runs, and it is finished only after teardown, so a crash at any point
 * leaves a 'running' row that resume turns into 'interrupted'.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "campaign/campaign_priv.h"
#include "util/proc.h"
#include "envcap/envcap.h"
#include "store/store_plan.h"
#include "util/clock.h"

/* The value of the last occurrence of option opt in argv (netab run keeps the last). */
static const char *last_opt(char *const *argv, const char *opt)
{
    const char *v = NULL;
    for (size_t i = 1; argv[i]; i++)
        if (!strcmp(argv[i], opt) && argv[i + 1])
            v = argv[++i];
    return v;
}

double campaign_run_timeout(char *const *argv)
{
    const char *t = last_opt(argv, "-t"), *o = last_opt(argv, "-O");
    if (!t)
        t = last_opt(argv, "--time");
    if (!t && (last_opt(argv, "-n") || last_opt(argv, "--bytes")))
        return 900; /* byte-bounded: no duration to derive from */
    double secs = t ? strtod(t, NULL) : 10.0, omit = o ? strtod(o, NULL) : 0;
    if (!isfinite(secs) || secs < 0)
        secs = 10;
    if (!isfinite(omit) || omit < 0)
        omit = 0;
    /* Connection set-up, the server's start and CPU figures take time too: be generous. */
    return 2 * (secs + omit) + 60;
}

/* The interface traffic to the run's server leaves through; "lo" without -c. */
static void run_iface(char *const *argv, char *ifname, size_t len)
{
    const char *host = last_opt(argv, "-c");
    if (!host)
        host = last_opt(argv, "--client");
    if (!host) {
        snprintf(ifname, len, "lo");
        return;
    }
    if (!env_iface_for_addr(host, ifname, len))
        return;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char ip[64] = "";
    if (!getaddrinfo(host, NULL, &hints, &ai) && ai)
        getnameinfo(ai->ai_addr, ai->ai_addrlen, ip, sizeof(ip), NULL, 0, NI_NUMERICHOST);
    if (ai)
        freeaddrinfo(ai);
    if (!*ip || env_iface_for_addr(ip, ifname, len))
        *ifname = '\0';
}

/* Runs a shell hook; on failure writes "<what> failed: <reason>" into why and returns false. */
static bool hook(struct campaign_ctx *c, const char *what, const char *cmd, bool stoppable,
                 char *why, size_t len)
{
    if (!cmd)
        return true;
    struct proc_result r;
    char e[NB_ERRLEN], reason[NB_ERRLEN * 2];
    int rc =
        proc_run_shell(cmd, CAMPAIGN_HOOK_TIMEOUT_S, stoppable ? c->stop : NULL, &r, e, sizeof(e));
    if (!rc)
        proc_describe_failure(&r, CAMPAIGN_HOOK_TIMEOUT_S, reason, sizeof(reason));
    proc_result_free(&r);
    if (rc)
        snprintf(why, len, "%s failed: %s", what, e);
    else if (*reason)
        snprintf(why, len, "%s '%s' failed: %s", what, cmd, reason);
    return !rc && !*reason;
}

/* The params recorded with a run: its command line and place in the plan. */
static char *params_text(char *const *argv, const struct store_plan_row *p)
{
    json_t *a = json_array();
    for (size_t i = 0; a && argv[i]; i++)
        json_array_append_new(a, json_string(argv[i]));
    json_t *o = json_pack("{s:o?, s:i, s:b}", "argv", a, "round", p->round, "warmup", p->warmup);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

/* Why a finished `netab run --json` is not ok, or "" when it is. */
static void judge_run(const struct proc_result *r, double timeout, char *why, size_t len)
{
    proc_describe_failure(r, timeout, why, len);
    json_error_t je;
    json_t *doc = r->out_len ? json_loads(r->out, 0, &je) : NULL;
    const json_t *e = doc ? json_object_get(doc, "error") : NULL;
    if (doc && e && !json_is_null(e)) {
        const char *msg = json_is_string(e) ? json_string_value(e)
                          : json_is_string(json_object_get(e, "message"))
                              ? json_string_value(json_object_get(e, "message"))
                              : "an error";
        /* The document's error says it best; the exit status adds no more than its number. */
        bool code = WIFEXITED(r->status) && WEXITSTATUS(r->status) && !r->timed_out;
        char st[32] = "";
        if (code)
            snprintf(st, sizeof(st), " (exit status %d)", WEXITSTATUS(r->status));
        snprintf(why, len, "netab run reported: %s%s", msg, st);
    } else if (!*why && !doc) {
        snprintf(why, len, "netab run printed no valid JSON document%s",
                 r->out_truncated ? " (output truncated)" : "");
    } else if (!*why && !e) {
        snprintf(why, len, "netab run's JSON document has no \"error\" member");
    }
    json_decref(doc);
}

struct step {
    struct store_plan_row plan;
    const struct exp_variant *v;
    const struct exp_cell *cell;
    char **argv; /* argv[0] is the netab binary */
    json_t *env;
    int64_t run_id;
};

/* Finds the plan's variant and cell in the experiment and builds the command line. */
static int step_prepare(struct campaign_ctx *c, struct step *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < c->e->nvariants && !s->v; i++)
        if (!strcmp(c->e->variants[i].name, s->plan.variant))
            s->v = &c->e->variants[i];
    for (size_t i = 0; i < c->ncells && !s->cell; i++)
        if (s->plan.cell && !strcmp(c->cells[i].name, s->plan.cell))
            s->cell = &c->cells[i];
    if (!s->v || !s->cell)
        return err_set(err, errlen, EINVAL,
                       "seq %d: the plan names variant '%s' cell '%s', which the recorded "
                       "experiment file does not have",
                       s->plan.seq, s->plan.variant, s->plan.cell ? s->plan.cell : "(none)");
    char **args;
    int argc;
    int rc = experiment_run_args(c->e, s->v, s->cell, &args, &argc);
    if (rc)
        return err_set(err, errlen, -rc, "seq %d: cannot build the netab run arguments",
                       s->plan.seq);
    s->argv = calloc((size_t)argc + 2, sizeof(char *));
    if (!s->argv || !(s->argv[0] = strdup(c->exe))) {
        exp_argv_free(args);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    for (int i = 0; i < argc; i++)
        s->argv[i + 1] = args[i];
    free(args); /* the strings moved into s->argv */
    return 0;
}

/* cpuctl_restore() with the signals blocked whose handler restores too, so the two never
 * interleave. */
static void restore_cpus(struct cpuctl_saved *saved)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    (void)cpuctl_restore(saved);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Runs the measurement itself; fills status and why. */
static void step_measure(struct campaign_ctx *c, struct step *s, enum store_run_status *status,
                         char *why, size_t len, char **doc, int *exit_code)
{
    char e[NB_ERRLEN];
    *status = STORE_RUN_FAILED;
    if (!hook(c, "setup", s->v->setup, true, why, len) ||
        !hook(c, "prepare", c->e->prepare, true, why, len))
        return;
    if ((s->v->cpus || s->v->max_freq_mhz) &&
        cpuctl_apply(c->saved, s->v->cpus, s->v->max_freq_mhz, e, sizeof(e))) {
        snprintf(why, len, "CPU settings: %s", e);
        return;
    }
    double timeout = campaign_run_timeout(s->argv);
    struct proc_result r;
    int rc = proc_run(s->argv, timeout, c->stop, &r, e, sizeof(e));
    restore_cpus(c->saved); /* before anything else: never leave the machine changed */
    if (rc) {
        snprintf(why, len, "%s", e);
    } else {
        judge_run(&r, timeout, why, len);
        if (!*why)
            *status = STORE_RUN_OK;
        if (r.interrupted)
            *status = STORE_RUN_INTERRUPTED;
        if (WIFEXITED(r.status) && !r.timed_out && !r.interrupted)
            *exit_code = WEXITSTATUS(r.status);
        *doc = r.out_len ? r.out : NULL;
        if (!*doc)
            free(r.out);
        r.out = NULL;
    }
    proc_result_free(&r);
}

static void step_free(struct step *s)
{
    store_plan_row_free(&s->plan);
    exp_argv_free(s->argv);
    json_decref(s->env);
}

int campaign_step(struct campaign_ctx *c, int seq, char *err, size_t errlen)
{
    const struct campaign_opts *o = c->opts;
    struct step s = {0};
    char ifname[64], *params = NULL, *env_text = NULL, *doc = NULL;
    char why[NB_ERRLEN * 4] = "";
    uint64_t t0 = clock_now_ns();
    int rc = store_plan_get(o->db, o->id, seq, &s.plan, err, errlen);
    if (!rc)
        rc = step_prepare(c, &s, err, errlen);
    if (rc)
        goto out;
    run_iface(s.argv, ifname, sizeof(ifname));
    s.env = env_capture(*ifname ? ifname : NULL, NULL, NULL);
    params = params_text(s.argv, &s.plan);
    env_text = s.env ? json_dumps(s.env, JSON_COMPACT) : NULL;
    if (!params || !env_text) {
        rc = err_set(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    rc = store_run_begin(o->db, o->id, seq, s.v->name, s.cell->name, params, env_text, &s.run_id,
                         err, errlen);
    if (rc)
        goto out;
    enum store_run_status status;
    int exit_code = -1;
    step_measure(c, &s, &status, why, sizeof(why), &doc, &exit_code);
    /* Teardown always runs, and is not cut short by a signal: the machine must be left clean. */
    char twhy[NB_ERRLEN * 2] = "";
    if (!hook(c, "teardown", s.v->teardown, false, twhy, sizeof(twhy)) && status == STORE_RUN_OK) {
        status = STORE_RUN_FAILED;
        snprintf(why, sizeof(why), "%s", twhy);
    }
    if (*c->stop && status != STORE_RUN_OK) {
        status = STORE_RUN_INTERRUPTED;
        snprintf(why, sizeof(why), "interrupted by signal %d (%s)", (int)*c->stop,
                 strsignal((int)*c->stop));
    }
    rc = store_run_finish(o->db, s.run_id, status, exit_code, *why ? why : NULL, doc, err, errlen);
    if (rc)
        goto out;
    struct campaign_event ev = {.run_id = s.run_id,
                                .seq = seq,
                                .round = s.plan.round,
                                .warmup = s.plan.warmup,
                                .variant = s.v->name,
                                .cell = s.cell->name,
                                .status = status,
                                .error = why,
                                .receiver_bps = NAN,
                                .transactions_s = NAN};
    struct store_run run;
    if (!store_run_get(o->db, s.run_id, &run, err, errlen)) {
        ev.receiver_bps = run.receiver_bps;
        ev.transactions_s = run.transactions_per_second;
        store_run_free(&run);
    }
    struct store_counts cnt;
    double avg = NAN;
    if (!store_experiment_counts(o->db, o->id, &cnt, err, errlen) &&
        !store_avg_run_seconds(o->db, o->id, &avg, err, errlen)) {
        ev.done = cnt.ok + cnt.failed;
        ev.planned = cnt.planned;
        ev.eta_s = store_eta_seconds(&cnt, avg);
    }
    json_t *warn = c->warned ? NULL : env_warnings(s.env);
    ev.warnings = warn;
    c->warned = true;
    ev.seconds = (double)(clock_now_ns() - t0) / 1e9;
    if (o->progress)
        o->progress(&ev, NULL, o->arg);
    json_decref(warn);
out:
    free(doc);
    free(params);
    free(env_text);
    step_free(&s);
    return rc;
}
