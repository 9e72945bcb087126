/*
 * campaign_execute(): the loop over pending seqs, cancellation, the CPU
 * state file and reset: reboot. See campaign.h and docs/campaign.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "campaign/campaign_priv.h"
#include "campaign/exec.h"
#include "util/proc.h"
#include "store/store_plan.h"
#include "util/clock.h"

/*
 * campaign_cancel() may be called from a signal handler, so it only touches
 * static storage: the stop flag that the child runner polls and the CPU
 * settings to put back. Restoring them there means the machine is back even
 * if something later hangs.
 */
static volatile sig_atomic_t g_stop;
static struct cpuctl_saved g_saved;

void campaign_cancel(int sig)
{
    int saved_errno = errno;
    if (!g_stop)
        g_stop = sig > 0 ? sig : SIGTERM;
    campaign_workers_signal(g_stop);
    (void)cpuctl_restore(&g_saved);
    errno = saved_errno;
}

/* Sleeps up to s seconds, returning early once a signal arrived. */
static void sleep_stoppable(double s)
{
    uint64_t until = clock_now_ns() + (uint64_t)(s * 1e9);
    while (!g_stop && clock_now_ns() < until) {
        int ms = clock_ms_until(until);
        struct timespec ts = {0, (ms < 50 ? ms : 50) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void say(const struct campaign_opts *o, const char *msg)
{
    if (o->progress)
        o->progress(NULL, msg, o->arg);
}

/* The DUT's messages (a boot, the DUT back) go where the campaign's own go. */
static void dut_say(const char *msg, const void *arg)
{
    say(arg, msg);
}

/*
 * reset: reboot: the run just finished is committed and the store knows
 * what is pending, so all that is left is to reboot. The command normally
 * does not come back (or the machine goes down shortly after); if it does
 * and the machine stays up, give up after a while rather than run on in a
 * state the experiment said must be reset.
 */
static int reboot_now(struct campaign_ctx *c, char *err, size_t errlen)
{
    const char *cmd = getenv("NETAB_REBOOT_CMD");
    if (!cmd || !*cmd)
        cmd = "systemctl reboot";
    char msg[NB_ERRLEN * 2];
    snprintf(msg, sizeof(msg),
             "reset: reboot: rebooting with '%s'; netab-resume.service (or "
             "'netab experiment resume %lld') continues",
             cmd, (long long)c->opts->id);
    say(c->opts, msg);
    struct proc_result r;
    char why[NB_ERRLEN * 2] = "";
    int rc = proc_run_shell(cmd, EXEC_HOOK_TIMEOUT_S, &g_stop, &r, why, sizeof(why));
    if (!rc)
        proc_describe_failure(&r, EXEC_HOOK_TIMEOUT_S, why, sizeof(why));
    proc_result_free(&r);
    if (*why && !g_stop)
        return err_set(err, errlen, EIO, "the reboot command '%s' failed: %s", cmd, why);
    const char *w = getenv("NETAB_REBOOT_WAIT");
    sleep_stoppable(w && *w ? atof(w) : 300);
    return 0;
}

static int load_experiment(struct campaign_ctx *c, char *err, size_t errlen)
{
    if (c->opts->experiment) {
        c->e = (struct experiment *)c->opts->experiment; /* borrowed: see campaign_execute() */
        return experiment_cells(c->e, &c->cells, &c->ncells)
                   ? err_set(err, errlen, ENOMEM, "out of memory")
                   : 0;
    }
    struct store_experiment info;
    char *file_text = NULL;
    int rc = store_experiment_get(c->opts->db, c->opts->id, &info, NULL, &file_text, err, errlen);
    if (rc)
        return rc;
    struct exp_errors errs = {0};
    if (!file_text)
        rc = err_set(err, errlen, ENOENT, "experiment %lld has no recorded file to resume from",
                     (long long)c->opts->id);
    else if ((rc = experiment_load_buffer(file_text, strlen(file_text), &c->e, &errs)))
        rc = err_set(err, errlen, -rc, "experiment %lld: its recorded file no longer loads: %s",
                     (long long)c->opts->id, errs.n ? errs.v[0].msg : strerror(-rc));
    else if (experiment_cells(c->e, &c->cells, &c->ncells))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    exp_errors_free(&errs);
    store_experiment_free(&info);
    free(file_text);
    return rc;
}

/*
 * The plan's first error by campaign_preflight() (the machine may have
 * changed since run checked it: resume after a reboot into another kernel),
 * as -ENOTSUP with its sentence. Warnings were run's to print.
 */
static int check_machine(const struct experiment *e, char *err, size_t errlen)
{
    struct campaign_findings f = {0};
    int rc = campaign_preflight(e, NULL, &f);
    for (size_t i = 0; !rc && i < f.n; i++)
        if (f.v[i].error)
            rc = err_set(err, errlen, ENOTSUP, "%s", f.v[i].msg);
    if (rc == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory");
    campaign_findings_free(&f);
    return rc;
}

/*
 * Only one runner per file store: two processes resuming the same experiment
 * would each mark the other's run interrupted and run the same seq twice.
 * flock() dies with its process (also on kill -9), so there is nothing stale
 * to clean up. The descriptor is close-on-exec: children do not hold it.
 */
static int lock_store(const char *db_path, int *fd, char *err, size_t errlen)
{
    char path[PATH_MAX];
    *fd = -1;
    if (snprintf(path, sizeof(path), "%s.lock", db_path) >= (int)sizeof(path))
        return err_set(err, errlen, ENAMETOOLONG,
                       "the results store path is too long for its lock file: %s", db_path);
    /* Never through a link: netab often runs as root, and a planted link would create a file. */
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (*fd < 0)
        return err_set(err, errlen, errno, "cannot open the lock file %s: %s", path,
                       strerror(errno));
    /*
     * `experiment status` takes a shared lock for an instant to see whether a
     * runner holds this one; a few tries 20 ms apart keep such a probe from
     * turning away a runner that starts at that moment.
     */
    int locked, tries = 0;
    while ((locked = flock(*fd, LOCK_EX | LOCK_NB)) && errno == EWOULDBLOCK && ++tries < 5) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (locked) {
        int e = errno == EWOULDBLOCK ? EBUSY : errno;
        close(*fd);
        *fd = -1;
        return err_set(err, errlen, e,
                       "another netab is running a campaign on %s (it holds %s); wait for it "
                       "or stop it first",
                       db_path, path);
    }
    return 0;
}

/* Opens DUT i of the experiment for this runner; its messages go where the campaign's go. */
static int open_dut(struct campaign_ctx *c, size_t i, char *err, size_t errlen)
{
    struct dut *d = &c->duts[i];
    int rc = dut_open(d, &c->e->duts[i], c->opts->id, &g_stop, err, errlen);
    d->say = dut_say;
    d->say_arg = c->opts;
    return rc;
}

/*
 * After a run of DUT d: a DUT that is gone stays gone, and failing every
 * remaining run would only take hours. With one DUT that stops the campaign
 * (an error); with several only that DUT's runs stop (d->down), said once,
 * and the others go on. Returns 0 or -EHOSTDOWN.
 */
static int check_down(struct campaign_ctx *c, struct dut *d, char *err, size_t errlen)
{
    if (!d || d->down || d->unreachable < DUT_MAX_UNREACHABLE)
        return 0;
    if (!d->cfg->name)
        return err_set(err, errlen, EHOSTDOWN,
                       "the DUT %s did not answer within %g s in %d runs in a row; stopping "
                       "(fix it, then 'netab experiment resume %lld')",
                       d->cfg->ssh, d->cfg->boot_timeout, d->unreachable, (long long)c->opts->id);
    d->down = true;
    char msg[NB_ERRLEN * 2];
    snprintf(msg, sizeof(msg),
             "dut %s (%s) did not answer within %g s in %d runs in a row: its remaining runs "
             "stop here (the other DUTs' go on; fix it, then 'netab experiment resume %lld')",
             d->cfg->name, d->cfg->ssh, d->cfg->boot_timeout, d->unreachable,
             (long long)c->opts->id);
    say(c->opts, msg);
    return 0;
}

/* The error of DUTs that stopped answering (several DUTs), or 0 when none did. */
static int downs_error(struct campaign_ctx *c, char *err, size_t errlen)
{
    char names[NB_ERRLEN] = "";
    size_t off = 0, n = 0;
    for (size_t i = 0; i < c->nduts; i++)
        if (c->duts[i].down && off < sizeof(names)) {
            off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", n ? ", " : "",
                                    c->duts[i].cfg->name);
            n++;
        }
    if (!n)
        return 0;
    return err_set(err, errlen, EHOSTDOWN,
                   "the DUT%s %s stopped answering; the other DUTs' runs completed (fix it, "
                   "then 'netab experiment resume %lld')",
                   n > 1 ? "s" : "", names, (long long)c->opts->id);
}

/*
 * Runs the pending seqs p[0..n) in order, those of DUT only_dut alone when
 * it is >= 0, skipping the seqs of DUTs that stopped answering. Returns 0
 * (all run, or a signal stopped it), or a negative errno.
 */
static int run_seqs(struct campaign_ctx *c, const struct campaign_pending *p, size_t n,
                    int only_dut, char *err, size_t errlen)
{
    int rc = 0;
    bool first = true;
    for (size_t i = 0; !rc && !g_stop && i < n; i++) {
        struct dut *d = p[i].dut >= 0 ? &c->duts[p[i].dut] : NULL;
        if ((only_dut >= 0 && p[i].dut != only_dut) || (d && d->down))
            continue;
        /*
         * After a reboot the first run needs no reset; every later one does.
         * With a DUT the step itself boots it before every run, and this
         * machine stays up.
         */
        if (!first && c->e->reset == EXP_RESET_REBOOT && !c->e->nduts) {
            rc = reboot_now(c, err, errlen);
            if (!rc && !g_stop)
                return -EINPROGRESS; /* handed over to the reboot */
            break;
        }
        if (!first && c->e->cooldown > 0)
            sleep_stoppable(c->e->cooldown);
        first = false;
        if (!g_stop)
            rc = campaign_runner_beat(c, err, errlen);
        if (!rc && !g_stop)
            rc = campaign_step(c, p[i].seq, err, errlen);
        if (!rc)
            rc = campaign_runner_beat(c, err, errlen);
        if (!rc)
            rc = check_down(c, d, err, errlen);
        if (!rc && c->opts->stop && c->opts->stop(c->opts->arg))
            break; /* the caller has seen enough (netab compare's early stop) */
    }
    return rc;
}

/* The loop of one process: every DUT opened here, one run at a time. */
static int run_here(struct campaign_ctx *c, const struct campaign_pending *p, size_t n, char *err,
                    size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < c->nduts; i++)
        rc = open_dut(c, i, err, errlen);
    if (!rc)
        rc = run_seqs(c, p, n, -1, err, errlen);
    return rc ? rc : downs_error(c, err, errlen);
}

/* A worker of parallel: duts: opens its own DUT only, then runs that DUT's seqs. */
static int run_worker(struct campaign_ctx *c, const struct campaign_pending *p, size_t n, int dut,
                      char *err, size_t errlen)
{
    int rc = open_dut(c, (size_t)dut, err, errlen);
    if (!rc)
        rc = run_seqs(c, p, n, dut, err, errlen);
    return rc ? rc : downs_error(c, err, errlen);
}

static int execute(struct campaign_ctx *c, enum campaign_outcome *outcome, char *err, size_t errlen)
{
    const struct campaign_opts *o = c->opts;
    char state[PATH_MAX];
    /* A cut state path would record CPU settings where no resume looks: refuse it. A server
     * store's is a local file named after its URL (store_local_file()). */
    int rc = store_local_file(o->db_path, ".cpuctl", state, sizeof(state), err, errlen);
    if (!rc)
        rc = cpuctl_saved_init(&g_saved, NULL, state, err, errlen);
    if (rc)
        return rc;
    /* A campaign killed while CPUs were offline left this record behind. */
    rc = cpuctl_restore_from_file(state);
    if (rc)
        return err_set(err, errlen, -rc,
                       "cannot restore the CPU settings recorded in %s by an earlier "
                       "campaign: %s",
                       state, strerror(-rc));
    rc = load_experiment(c, err, errlen);
    if (!rc)
        rc = check_machine(c->e, err, errlen);
    if (!rc && c->e->nduts && !(c->duts = calloc(c->e->nduts, sizeof(*c->duts))))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    c->nduts = c->duts ? c->e->nduts : 0;
    if (!rc)
        rc = campaign_runner_begin(c, err, errlen);
    if (!rc)
        rc = store_experiment_set_status(o->db, o->id, "running", err, errlen);
    if (!rc && c->e->order == EXP_ORDER_BLOCKED)
        say(o, "warning: order: blocked: each variant's runs come together, so drift over time "
               "is confounded with the variant");
    struct campaign_pending *p = NULL;
    size_t n = 0;
    if (!rc)
        rc = campaign_pending_list(c, &p, &n, err, errlen);
    if (!rc && c->e->parallel_duts && c->nduts > 1)
        rc = campaign_run_parallel(c, p, n, run_worker, err, errlen);
    else if (!rc)
        rc = run_here(c, p, n, err, errlen);
    free(p);
    if (rc == -EINPROGRESS) {
        *outcome = CAMPAIGN_REBOOTING;
        return 0;
    }
    bool found = true;
    int seq;
    if (!rc && !g_stop)
        rc = store_next_pending(o->db, o->id, &seq, &found, err, errlen);
    if (!rc && !found) {
        *outcome = CAMPAIGN_COMPLETE;
        return store_experiment_set_status(o->db, o->id, "done", err, errlen);
    }
    if (!rc)
        *outcome = CAMPAIGN_INTERRUPTED;
    return rc;
}

int campaign_execute(const struct campaign_opts *opts, enum campaign_outcome *outcome, int *signo,
                     char *err, size_t errlen)
{
    struct campaign_ctx c = {.opts = opts, .stop = &g_stop, .saved = &g_saved};
    *signo = 0;
    g_stop = 0;
    ssize_t n = readlink("/proc/self/exe", c.exe, sizeof(c.exe));
    if (n < 0)
        return err_set(err, errlen, errno, "cannot find the netab executable: %s", strerror(errno));
    /* readlink() fills the buffer without a NUL: a full buffer may be a cut path. */
    if ((size_t)n >= sizeof(c.exe))
        return err_set(err, errlen, ENAMETOOLONG,
                       "the netab executable's path is longer than %zu bytes", sizeof(c.exe) - 1);
    c.exe[n] = '\0';
    int lock = -1;
    /* A server store is shared by controllers: the lock is the experiment's, in the database. */
    int rc = store_is_server(opts->db) ? store_campaign_lock(opts->db, opts->id, err, errlen)
                                       : lock_store(opts->db_path, &lock, err, errlen);
    if (rc)
        return rc;
    rc = execute(&c, outcome, err, errlen);
    (void)cpuctl_restore(&g_saved);
    campaign_runner_end(&c, rc, *outcome, rc ? 0 : g_stop, err);
    for (size_t i = 0; i < c.nduts; i++)
        dut_close(&c.duts[i]); /* stops the server netab started on each DUT, if any */
    free(c.duts);
    *signo = g_stop;
    if (!rc && g_stop)
        *outcome = CAMPAIGN_INTERRUPTED;
    if (lock >= 0)
        close(lock);
    else
        store_campaign_unlock(opts->db, opts->id); /* resume --all goes on to the next */
    exp_cells_free(c.cells, c.ncells);
    if (!opts->experiment)
        experiment_free(c.e);
    return rc;
}
