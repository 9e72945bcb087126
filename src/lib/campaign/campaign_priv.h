/* Internals shared by the campaign's source files; not part of the API. */
#ifndef NETAB_CAMPAIGN_PRIV_H
#define NETAB_CAMPAIGN_PRIV_H

#include <limits.h>
#include <signal.h>

#include "campaign/campaign.h"
#include "campaign/dut.h"
#include "envcap/cpuctl.h"

/* Everything one execution needs; built by campaign_execute(). */
struct campaign_ctx {
    const struct campaign_opts *opts;
    struct experiment *e;
    struct exp_cell *cells;
    size_t ncells;
    char exe[PATH_MAX];                /* this netab binary */
    const volatile sig_atomic_t *stop; /* the signal number once one arrived */
    struct cpuctl_saved *saved;        /* static storage, seen by the signal handler */
    bool warned;                       /* environment warnings already passed on */
    struct dut *duts;                  /* one per e->duts (a DUT's cfg NULL until opened) */
    size_t nduts;
    int64_t runner_id; /* this runner's row (store_runner.h); 0 before */
};

/* A pending seq of the plan and the DUT it runs on (an index into duts; -1 for none). */
struct campaign_pending {
    int seq;
    int dut;
};

/*
 * The seqs of experiment opts->id that have no ok or failed run yet, in
 * plan order, each with its DUT (worker.c). Caller has ownership of *out
 * (free()). Returns 0 or a negative errno (the store, or a plan naming a
 * variant or cell the experiment does not have).
 */
NB_MUST_CHECK int campaign_pending_list(struct campaign_ctx *c, struct campaign_pending **out,
                                        size_t *n, char *err, size_t errlen);

/*
 * parallel: duts (worker.c): one process per DUT that has pending runs, each
 * with its own store connection, running that DUT's seqs in plan order
 * through run_seqs(c, pending, n, dut, ...); this process waits for them all.
 * campaign_cancel() forwards its signal to them. A worker whose DUT stopped
 * answering ends alone; the others complete. Returns 0, or the first
 * worker's error (EHOSTDOWN naming every DUT that stopped).
 */
typedef int (*campaign_run_seqs_fn)(struct campaign_ctx *c, const struct campaign_pending *p,
                                    size_t n, int dut, char *err, size_t errlen);
NB_MUST_CHECK int campaign_run_parallel(struct campaign_ctx *c, const struct campaign_pending *p,
                                        size_t n, campaign_run_seqs_fn run, char *err,
                                        size_t errlen);
/* Forwards sig to the running workers; async-signal-safe (worker.c). */
void campaign_workers_signal(int sig);

/*
 * The runner's record (liveness.c). begin: runs left 'running' by a runner
 * that vanished become interrupted with "runner vanished (pid, host, last
 * heartbeat)", that runner's row is closed, and this runner's row is
 * written. beat: its heartbeat, before and after every run. end: how it
 * ended (rc, outcome, the signal, why for an error); never fails.
 */
NB_MUST_CHECK int campaign_runner_begin(struct campaign_ctx *c, char *err, size_t errlen);
NB_MUST_CHECK int campaign_runner_beat(struct campaign_ctx *c, char *err, size_t errlen);
void campaign_runner_end(struct campaign_ctx *c, int rc, enum campaign_outcome outcome, int sig,
                         const char *why);

/* The NETAB_* variables of one run's hooks, as "NAME=value" strings. */
#define HOOK_ENV_N 9
struct hook_env {
    char *v[HOOK_ENV_N + 1]; /* NULL-terminated; owned */
};
struct hook_env_info {
    const char *experiment, *variant, *cell, *next_variant, *db, *dut; /* NULL = empty */
    int64_t experiment_id;
    int seq, round;
};
/* Fills h from x (hookenv.c). Returns 0 or -1 on ENOMEM (h is then empty). */
int hook_env_build(struct hook_env *h, const struct hook_env_info *x);
void hook_env_free(struct hook_env *h);

/*
 * Runs one planned seq from start to end (environment capture, 'running'
 * row, setup, prepare, CPU settings, netab run, teardown, final status) and
 * reports it through opts->progress. A run that fails is recorded as failed
 * and returns 0; so is an interrupted one (status interrupted). Only a store
 * that cannot be written (or ENOMEM) gives a negative errno.
 */
NB_MUST_CHECK int campaign_step(struct campaign_ctx *c, int seq, char *err, size_t errlen);

#endif
