/*
 * The pending seqs of a campaign with the DUT of each, and parallel: duts:
 * one worker process per DUT (docs/campaign.md, "Several DUTs").
 *
 * Processes, not threads: a step's state is process-wide by design (the stop
 * flag and CPU settings a signal handler touches, the children it waits for
 * with their deadlines, the store connection), and a worker that fails or
 * hangs on its DUT must not take the others with it. Each worker opens its
 * own store connection (SQLite's busy timeout, or the server, orders the
 * writes) and dies with its parent (PR_SET_PDEATHSIG), so after a kill -9 of
 * the runner nothing goes on writing and resume finds 'running' rows as it
 * does after any crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign/campaign_priv.h"

/* The workers' pids for campaign_workers_signal(); 0 = none. Static: a signal handler reads it. */
#define MAX_WORKERS 64
static volatile pid_t g_workers[MAX_WORKERS];

void campaign_workers_signal(int sig)
{
    for (size_t i = 0; i < MAX_WORKERS; i++)
        if (g_workers[i] > 0)
            (void)kill(g_workers[i], sig);
}

/* The index of the DUT of plan row r, or -1 (rc -EINVAL when its variant or cell is unknown). */
static int row_dut(struct campaign_ctx *c, const struct store_plan_row *r, int *dut)
{
    const struct exp_variant *v = NULL;
    const struct exp_cell *cell = NULL;
    for (size_t i = 0; i < c->e->nvariants && !v; i++)
        if (!strcmp(c->e->variants[i].name, r->variant))
            v = &c->e->variants[i];
    for (size_t i = 0; i < c->ncells && !cell; i++)
        if (r->cell && !strcmp(c->cells[i].name, r->cell))
            cell = &c->cells[i];
    if (!v || !cell)
        return -EINVAL;
    *dut = experiment_run_dut(c->e, v, cell);
    return 0;
}

int campaign_pending_list(struct campaign_ctx *c, struct campaign_pending **out, size_t *n,
                          char *err, size_t errlen)
{
    struct store_plan_row *rows = NULL;
    struct store_run *runs = NULL;
    size_t nrows = 0, nruns = 0, k = 0;
    *out = NULL;
    *n = 0;
    int rc = store_plan_list(c->opts->db, c->opts->id, &rows, &nrows, err, errlen);
    if (!rc)
        rc = store_run_list(c->opts->db, c->opts->id, false, &runs, &nruns, err, errlen);
    /* Which seqs have a final run, by seq (contiguous from 1): one pass over each list. */
    int max = 0;
    for (size_t i = 0; i < nrows; i++)
        max = rows[i].seq > max ? rows[i].seq : max;
    bool *done = rc ? NULL : calloc((size_t)max + 1, sizeof(*done));
    struct campaign_pending *p = rc ? NULL : calloc(nrows ? nrows : 1, sizeof(*p));
    if (!rc && (!p || !done))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t j = 0; !rc && j < nruns; j++)
        if (runs[j].seq >= 1 && runs[j].seq <= max &&
            (runs[j].status == STORE_RUN_OK || runs[j].status == STORE_RUN_FAILED))
            done[runs[j].seq] = true;
    for (size_t i = 0; !rc && i < nrows; i++) {
        int dut = -1;
        if (row_dut(c, &rows[i], &dut))
            rc = err_set(err, errlen, EINVAL,
                         "seq %d: the plan names variant '%s' cell '%s', which the recorded "
                         "experiment file does not have",
                         rows[i].seq, rows[i].variant, rows[i].cell ? rows[i].cell : "(none)");
        else if (rows[i].seq < 1 || !done[rows[i].seq])
            p[k++] = (struct campaign_pending){.seq = rows[i].seq, .dut = dut};
    }
    free(done);
    store_plan_list_free(rows, nrows);
    store_run_list_free(runs, nruns);
    if (rc) {
        free(p);
        return rc;
    }
    *out = p;
    *n = k;
    return 0;
}

/*
 * In the child: its own store connection, then the DUT's seqs; the error
 * sentence goes up the pipe fd. Never returns.
 */
static void worker_main(struct campaign_ctx *c, const struct campaign_pending *p, size_t n, int dut,
                        campaign_run_seqs_fn run, int fd, pid_t parent)
{
    char err[NB_ERRLEN * 2] = "";
    for (size_t i = 0; i < MAX_WORKERS; i++)
        g_workers[i] = 0; /* the siblings are the parent's to signal */
    /* A runner killed with SIGKILL takes its workers along: nothing writes on without it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
        _exit(3);
    struct campaign_opts o = *c->opts;
    struct campaign_ctx wc = *c;
    int rc = store_open(c->opts->db_path, 0, &o.db, err, sizeof(err));
    if (!rc) {
        wc.opts = &o;
        rc = run(&wc, p, n, dut, err, sizeof(err));
        store_close(o.db);
    }
    dut_close(&wc.duts[dut]); /* stops the server this worker started on its DUT */
    size_t len = strlen(err);
    if (rc && write(fd, err, len) != (ssize_t)len)
        rc = -EIO;
    close(fd);
    fflush(NULL); /* _exit() flushes nothing */
    _exit(!rc ? 0 : rc == -EHOSTDOWN ? 2 : 1);
}

/* One worker per DUT with pending seqs; pids[i] and fds[i] of DUT i (0 / -1 when none). */
static int spawn(struct campaign_ctx *c, const struct campaign_pending *p, size_t n,
                 campaign_run_seqs_fn run, pid_t *pids, int *fds, char *err, size_t errlen)
{
    pid_t self = getpid();
    for (size_t d = 0; d < c->nduts && d < MAX_WORKERS; d++) {
        bool any = false;
        for (size_t i = 0; i < n && !any; i++)
            any = p[i].dut == (int)d;
        if (!any)
            continue;
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC))
            return err_set(err, errlen, errno, "cannot create a pipe: %s", strerror(errno));
        fflush(NULL); /* nothing buffered is written twice */
        pid_t pid = fork();
        if (pid < 0) {
            close(pipefd[0]);
            close(pipefd[1]);
            return err_set(err, errlen, errno, "cannot start a worker for DUT %s: %s",
                           c->e->duts[d].name, strerror(errno));
        }
        if (pid == 0) {
            close(pipefd[0]);
            worker_main(c, p, n, (int)d, run, pipefd[1], self);
        }
        close(pipefd[1]);
        pids[d] = pid;
        fds[d] = pipefd[0];
        g_workers[d] = pid;
    }
    return 0;
}

/* Reads what worker d said into buf (a bounded pipe read: the worker has exited). */
static void worker_said(int fd, char *buf, size_t len)
{
    size_t off = 0;
    ssize_t r;
    while (off + 1 < len && (r = read(fd, buf + off, len - 1 - off)) > 0)
        off += (size_t)r;
    buf[off] = '\0';
}

int campaign_run_parallel(struct campaign_ctx *c, const struct campaign_pending *p, size_t n,
                          campaign_run_seqs_fn run, char *err, size_t errlen)
{
    pid_t pids[MAX_WORKERS] = {0};
    int fds[MAX_WORKERS];
    for (size_t i = 0; i < MAX_WORKERS; i++)
        fds[i] = -1;
    if (c->nduts > MAX_WORKERS)
        return err_set(err, errlen, E2BIG, "parallel: duts runs at most %d DUTs, not %zu",
                       MAX_WORKERS, c->nduts);
    int rc = spawn(c, p, n, run, pids, fds, err, errlen);
    char downs[NB_ERRLEN] = "";
    size_t off = 0;
    for (size_t d = 0; d < c->nduts; d++) {
        if (!pids[d])
            continue;
        if (rc)
            (void)kill(pids[d], SIGTERM); /* a later worker could not start: stop this one */
        int status = 0;
        while (waitpid(pids[d], &status, 0) < 0 && errno == EINTR)
            ; /* a signal: campaign_cancel() forwarded it; the worker stops by itself */
        g_workers[d] = 0;
        char said[NB_ERRLEN * 2];
        worker_said(fds[d], said, sizeof(said));
        close(fds[d]);
        const char *name = c->e->duts[d].name;
        if (!WIFEXITED(status)) {
            if (!rc && !*c->stop)
                rc = err_set(err, errlen, EIO, "the worker of DUT %s ended by signal %d", name,
                             WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        } else if (WEXITSTATUS(status) == 2 && off < sizeof(downs)) {
            off +=
                (size_t)snprintf(downs + off, sizeof(downs) - off, "%s%s", off ? ", " : "", name);
        } else if (WEXITSTATUS(status) && !rc) {
            rc = err_set(err, errlen, EIO, "DUT %s: %s", name, *said ? said : "its worker failed");
        }
    }
    if (!rc && off)
        rc = err_set(err, errlen, EHOSTDOWN,
                     "the DUT%s %s stopped answering; the other DUTs' runs completed (fix it, "
                     "then 'netab experiment resume %lld')",
                     strchr(downs, ',') ? "s" : "", downs, (long long)c->opts->id);
    return rc;
}
