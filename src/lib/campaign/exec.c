#include "campaign/exec.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "campaign/dut.h"
#include "util/proc.h"

/*
 * Runs a shell hook, locally or (on_dut) on the device under test over ssh,
 * with s->env in its environment; on failure writes "<what> failed:
 * <reason> (command '<cmd>')" into why unless it holds an earlier failure,
 * and returns false (also for -ENOMEM, reported through *nomem).
 */
static bool hook(const struct exec_step *s, const char *what, const char *cmd, bool on_dut,
                 bool stoppable, struct exec_outcome *o, bool *nomem)
{
    if (!cmd)
        return true;
    struct proc_result r;
    char e[NB_ERRLEN], reason[NB_ERRLEN * 2] = "";
    const volatile sig_atomic_t *stop = stoppable ? s->stop : NULL;
    int rc;
    if (on_dut && s->dut) {
        /* The DUT's own stop flag would cut a teardown short: give it the hook's. */
        const volatile sig_atomic_t *saved = s->dut->stop;
        s->dut->stop = stop;
        rc = dut_run(s->dut, cmd, s->env, EXEC_HOOK_TIMEOUT_S, &r, e, sizeof(e));
        s->dut->stop = saved;
    } else {
        rc = proc_run_shell_env(cmd, s->env, EXEC_HOOK_TIMEOUT_S, stop, &r, e, sizeof(e));
    }
    if (rc == -ENOMEM)
        *nomem = true;
    if (rc)
        snprintf(reason, sizeof(reason), "%s", e);
    else
        proc_describe_failure(&r, EXEC_HOOK_TIMEOUT_S, reason, sizeof(reason));
    if (!rc && r.interrupted)
        o->status = EXEC_INTERRUPTED;
    proc_result_free(&r);
    if (*reason && !*o->why)
        snprintf(o->why, sizeof(o->why), "%s failed: %s (command '%.200s')", what, reason, cmd);
    return !*reason;
}

/* Why a finished `netab run --json` is not ok, or "" when it is. */
static void judge_netab_run(const struct proc_result *r, double deadline, char *why, size_t len)
{
    proc_describe_failure(r, deadline, why, len);
    if (r->timed_out || r->interrupted)
        return;
    json_error_t je;
    json_t *doc = r->out_len ? json_loads(r->out, 0, &je) : NULL;
    const json_t *e = doc ? json_object_get(doc, "error") : NULL;
    if (doc && e && !json_is_null(e)) {
        const char *msg = json_is_string(e) ? json_string_value(e)
                          : json_is_string(json_object_get(e, "message"))
                              ? json_string_value(json_object_get(e, "message"))
                              : "an error";
        /* The document's error says it best; the exit status adds no more than its number. */
        char st[32] = "";
        if (WIFEXITED(r->status) && WEXITSTATUS(r->status))
            snprintf(st, sizeof(st), " (exit status %d)", WEXITSTATUS(r->status));
        snprintf(why, len, "netab run reported: %.600s%s", msg, st);
    } else if (!*why && !doc) {
        snprintf(why, len, "netab run printed no valid JSON document%s",
                 r->out_truncated ? " (output truncated)" : "");
    } else if (!*why && !e) {
        snprintf(why, len, "netab run's JSON document has no \"error\" member");
    }
    json_decref(doc);
}

/* cpuctl_restore() with the signals blocked whose handler may restore too, so the two never
 * interleave. */
static void restore_cpus(struct cpuctl_saved *saved)
{
    if (!saved)
        return;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    (void)cpuctl_restore(saved);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The measured command itself; fills o. Returns 0 or -ENOMEM. */
static int measure(const struct exec_step *s, struct exec_outcome *o)
{
    char e[NB_ERRLEN];
    if ((s->cpus || s->max_freq_mhz) &&
        (!s->saved || cpuctl_apply(s->saved, s->cpus, s->max_freq_mhz, e, sizeof(e)))) {
        snprintf(o->why, sizeof(o->why), "CPU settings: %s",
                 s->saved ? e : "this front end cannot change CPU settings");
        return 0;
    }
    struct proc_result r;
    int rc = s->argv ? proc_run(s->argv, s->deadline, s->stop, &r, e, sizeof(e))
                     : proc_run_shell(s->shell, s->deadline, s->stop, &r, e, sizeof(e));
    restore_cpus(s->saved); /* before anything else: never leave the machine changed */
    if (rc) {
        proc_result_free(&r);
        snprintf(o->why, sizeof(o->why), "%s", e);
        return rc == -ENOMEM ? rc : 0;
    }
    o->seconds = r.seconds;
    if (s->argv)
        judge_netab_run(&r, s->deadline, o->why, sizeof(o->why));
    else
        proc_describe_failure(&r, s->deadline, o->why, sizeof(o->why));
    if (r.interrupted)
        o->status = EXEC_INTERRUPTED;
    if (WIFEXITED(r.status) && !r.timed_out && !r.interrupted)
        o->exit_code = WEXITSTATUS(r.status);
    if (r.out_len) {
        o->out = r.out;
        o->out_len = r.out_len;
        r.out = NULL;
    }
    proc_result_free(&r);
    return 0;
}

int exec_run(const struct exec_step *s, struct exec_outcome *o)
{
    memset(o, 0, sizeof(*o));
    o->status = EXEC_FAILED;
    o->exit_code = -1;
    bool nomem = false;
    int rc = 0;
    if (hook(s, "setup", s->setup, s->setup_on_dut, true, o, &nomem) &&
        hook(s, "prepare", s->prepare, s->prepare_on_dut, true, o, &nomem) &&
        !(s->stop && *s->stop))
        rc = measure(s, o);
    /* Teardown always runs, and is not cut short by a signal: the machine must be left clean. */
    hook(s, "teardown", s->teardown, s->teardown_on_dut, false, o, &nomem);
    if (!*o->why && o->status != EXEC_INTERRUPTED)
        o->status = EXEC_OK;
    /* A run that a signal cut short measured nothing; one that finished before it did. */
    if (s->stop && *s->stop && o->status != EXEC_OK)
        o->status = EXEC_INTERRUPTED;
    return rc ? rc : nomem ? -ENOMEM : 0;
}

void exec_outcome_free(struct exec_outcome *o)
{
    free(o->out);
    o->out = NULL;
}
