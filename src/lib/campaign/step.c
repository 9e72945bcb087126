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

#include "campaign/campaign_priv.h"
#include "campaign/exec.h"
#include "envcap/envcap.h"
#include "runspec/run_spec.h"
#include "store/store_plan.h"
#include "util/clock.h"
#include "util/jsonout.h"

/*
 * The numeric address of the run's server (ip, "" when it cannot be
 * resolved or the run has no -c) and the interface traffic to it leaves
 * through ("lo" without -c; "" when unknown).
 */
static void run_target(const struct run_spec *spec, char *ip, size_t iplen, char *ifname,
                       size_t len)
{
    const char *host = spec->host;
    *ip = '\0';
    if (!host) {
        snprintf(ifname, len, "lo");
        return;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (!getaddrinfo(host, NULL, &hints, &ai) && ai)
        getnameinfo(ai->ai_addr, ai->ai_addrlen, ip, (socklen_t)iplen, NULL, 0, NI_NUMERICHOST);
    if (ai)
        freeaddrinfo(ai);
    if (!env_iface_for_addr(host, ifname, len))
        return;
    if (!*ip || env_iface_for_addr(ip, ifname, len))
        *ifname = '\0';
}

/*
 * The params recorded with a run: its command line (argv of netab run, or
 * the external command as "cmd"), deadline and place in the plan.
 */
static char *params_text(char *const *argv, const char *cmd, double deadline,
                         const struct store_plan_row *p)
{
    json_t *a = argv ? json_array() : NULL;
    for (size_t i = 0; a && argv[i]; i++)
        json_array_append_new(a, json_string(argv[i]));
    json_t *o = json_pack("{s:o?, s:f, s:i, s:b}", "argv", a, "deadline_s", deadline, "round",
                          p->round, "warmup", p->warmup);
    if (o && cmd)
        json_object_set_new(o, "cmd", json_string(cmd));
    char *s = o ? jsonout_compact(o) : NULL;
    json_decref(o);
    return s;
}

struct step {
    struct store_plan_row plan;
    const struct exp_variant *v;
    const struct exp_cell *cell;
    struct run_spec spec; /* what the run does, parsed once */
    char **words;         /* the experiment's arguments, which spec's strings point into */
    double deadline;      /* run_spec_deadline() of spec */
    char **argv;          /* the child's: argv[0] is the netab binary, then run_spec_to_argv() */
    const char *shell;    /* instead of argv: the variant's external command */
    json_t *env;
    int64_t run_id;
    struct hook_env henv; /* NETAB_* of every hook */
    struct dut *dut;      /* the DUT this run is measured on (opened); NULL without */
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
    int d = experiment_run_dut(c->e, s->v, s->cell);
    if (d >= 0 && (size_t)d < c->nduts && c->duts[d].cfg)
        s->dut = &c->duts[d];
    else if (d >= 0)
        return err_set(err, errlen, EINVAL, "seq %d: its DUT '%s' is not open in this runner",
                       s->plan.seq, c->e->duts[d].name ? c->e->duts[d].name : "dut");
    if (s->v->cmd) {
        s->shell = s->v->cmd;
        s->deadline = c->e->timeout > 0 ? c->e->timeout : EXEC_CMD_DEADLINE_S;
        return 0;
    }
    char **words, **args, why[NB_ERRLEN];
    int argc;
    /* Loading the experiment checked every run already; this cannot fail but for memory. */
    int rc = experiment_run_spec(c->e, s->v, s->cell, &s->spec, &words, why, sizeof(why));
    if (rc)
        return err_set(err, errlen, -rc, "seq %d: %s", s->plan.seq, why);
    s->spec.json = true;
    /* A DUT campaign measures against the DUT's server unless the run names its own -c. */
    if (s->dut && !s->spec.host) {
        s->spec.host = s->dut->host;
        s->spec.client.port = s->dut->port;
    }
    s->deadline = c->e->timeout > 0 ? c->e->timeout : run_spec_deadline(&s->spec);
    rc = run_spec_to_argv(&s->spec, &args, &argc);
    s->words = words; /* the spec's strings point into it */
    if (rc)
        return err_set(err, errlen, ENOMEM, "out of memory");
    s->argv = calloc((size_t)argc + 2, sizeof(char *));
    if (!s->argv || !(s->argv[0] = strdup(c->exe))) {
        run_spec_argv_free(args);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    for (int i = 0; i < argc; i++)
        s->argv[i + 1] = args[i];
    free(args); /* the strings moved into s->argv */
    return 0;
}

/* Runs the measurement itself through the shared step runner; fills status and why. */
static int step_measure(struct campaign_ctx *c, struct step *s, enum store_run_status *status,
                        char *why, size_t len, char **doc, int *exit_code, double *seconds)
{
    struct exec_step x = {.setup = s->v->setup,
                          .prepare = c->e->prepare,
                          .teardown = s->v->teardown,
                          .setup_on_dut = s->v->setup_on_dut,
                          .prepare_on_dut = c->e->prepare_on_dut,
                          .teardown_on_dut = s->v->teardown_on_dut,
                          .dut = s->dut,
                          .env = s->henv.v,
                          .cpus = s->v->cpus,
                          .max_freq_mhz = s->v->max_freq_mhz,
                          .saved = c->saved,
                          .argv = s->argv,
                          .shell = s->shell,
                          .deadline = s->deadline,
                          .stop = c->stop};
    struct exec_outcome o;
    int rc = exec_run(&x, &o);
    *status = o.status == EXEC_OK            ? STORE_RUN_OK
              : o.status == EXEC_INTERRUPTED ? STORE_RUN_INTERRUPTED
                                             : STORE_RUN_FAILED;
    if (*status == STORE_RUN_INTERRUPTED)
        snprintf(why, len, "interrupted by signal %d (%s)", (int)*c->stop,
                 strsignal((int)*c->stop));
    else
        snprintf(why, len, "%s", o.why);
    *exit_code = o.exit_code;
    *seconds = o.seconds;
    *doc = o.out;
    o.out = NULL;
    exec_outcome_free(&o);
    return rc;
}

static void step_free(struct step *s)
{
    store_plan_row_free(&s->plan);
    exp_argv_free(s->argv);
    exp_argv_free(s->words);
    json_decref(s->env);
    hook_env_free(&s->henv);
}

/* The hook environment of s: the next variant is that of seq + 1, empty at the end. */
static int step_hook_env(struct campaign_ctx *c, struct step *s, char *err, size_t errlen)
{
    struct store_plan_row next = {0};
    char e[NB_ERRLEN];
    bool has_next = !store_plan_get(c->opts->db, c->opts->id, s->plan.seq + 1, &next, e, sizeof(e));
    struct hook_env_info x = {.experiment = c->e->name,
                              .variant = s->v->name,
                              .cell = s->cell->name,
                              .next_variant = has_next ? next.variant : NULL,
                              .db = store_path(c->opts->db), /* no password */
                              .experiment_id = c->opts->id,
                              .seq = s->plan.seq,
                              .round = s->plan.round,
                              .dut = s->dut ? s->dut->cfg->name : NULL};
    int rc = hook_env_build(&s->henv, &x);
    if (has_next)
        store_plan_row_free(&next);
    return rc ? err_set(err, errlen, ENOMEM, "out of memory") : 0;
}

/*
 * With a DUT: boots and verifies it for this run (dut.h) and records the
 * identity it will be measured on. *ready is false when the run must not be
 * measured; status and why then say why. Returns 0 or a negative errno
 * (the store, or ENOMEM).
 */
static int step_dut(struct campaign_ctx *c, struct step *s, bool *ready,
                    enum store_run_status *status, char *why, size_t len, char *err, size_t errlen)
{
    char identity[DUT_IDENTITY_MAX];
    enum dut_verdict verdict;
    bool reboot = c->e->reset == EXP_RESET_REBOOT;
    struct dut *d = s->dut;
    d->need_server = s->spec.host == d->host; /* set by step_prepare(): no -c of its own */
    int rc =
        dut_prepare_run(d, s->v, reboot, s->henv.v, identity, sizeof(identity), &verdict, why, len);
    if (rc)
        return err_set(err, errlen, -rc, "out of memory");
    *ready = verdict == DUT_READY;
    *status = verdict == DUT_INTERRUPTED ? STORE_RUN_INTERRUPTED : STORE_RUN_FAILED;
    if (verdict == DUT_INTERRUPTED)
        snprintf(why, len, "interrupted by signal %d (%s) while preparing the DUT", (int)*c->stop,
                 strsignal((int)*c->stop));
    return *identity ? store_run_set_dut_identity(c->opts->db, s->run_id, identity, err, errlen)
                     : 0;
}

/*
 * Everything between the 'running' row and its final status: the hooks'
 * environment, the DUT made ready (with one), the measurement. Returns 0
 * with status and why set, or a negative errno (memory, the store).
 */
static int step_run(struct campaign_ctx *c, struct step *s, enum store_run_status *status,
                    char *why, size_t len, char **doc, int *exit_code, double *seconds, char *err,
                    size_t errlen)
{
    bool ready = true;
    int rc = step_hook_env(c, s, err, errlen);
    if (!rc && s->dut)
        rc = step_dut(c, s, &ready, status, why, len, err, errlen);
    if (rc || !ready)
        return rc;
    rc = step_measure(c, s, status, why, len, doc, exit_code, seconds);
    return rc ? err_set(err, errlen, -rc, "out of memory") : 0;
}

int campaign_step(struct campaign_ctx *c, int seq, char *err, size_t errlen)
{
    const struct campaign_opts *o = c->opts;
    struct step s = {0};
    char ifname[64], ip[64] = "", *params = NULL, *env_text = NULL, *doc = NULL;
    char why[NB_ERRLEN * 4] = "";
    uint64_t t0 = clock_now_ns();
    int rc = store_plan_get(o->db, o->id, seq, &s.plan, err, errlen);
    if (!rc)
        rc = step_prepare(c, &s, err, errlen);
    if (rc)
        goto out;
    if (s.shell)
        *ifname = '\0'; /* an external command's path is its own */
    else
        run_target(&s.spec, ip, sizeof(ip), ifname, sizeof(ifname));
    /* The run's own server, when it is on this host, is no competitor (docs/environment.md). */
    struct env_run_peer peer = {.addr = *ip ? ip : NULL, .port = s.spec.client.port};
    s.env = env_capture_run(*ifname ? ifname : NULL, NULL, NULL, &peer);
    params = params_text(s.argv, s.shell, s.deadline, &s.plan);
    env_text = s.env ? jsonout_compact(s.env) : NULL;
    if (!params || !env_text) {
        rc = err_set(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    rc = store_run_begin(o->db, o->id, seq, s.v->name, s.cell->name, params, env_text, &s.run_id,
                         err, errlen);
    if (!rc && s.dut && s.dut->cfg->name)
        rc = store_run_set_dut(o->db, s.run_id, s.dut->cfg->name, err, errlen);
    if (rc)
        goto out;
    enum store_run_status status;
    int exit_code = -1;
    double measured = NAN;
    rc = step_run(c, &s, &status, why, sizeof(why), &doc, &exit_code, &measured, err, errlen);
    if (rc)
        goto out; /* the run stays 'running': resume re-runs it as interrupted */
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
                                .transactions_s = NAN,
                                .output = doc,
                                .measured_s = measured};
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
