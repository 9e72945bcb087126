/*
 * Campaigns: running the whole plan of an experiment file (docs/campaign.md).
 *
 * campaign_plan() decides the order of every run up front: for each round a
 * seeded shuffle of every (variant, cell) pair, warm-up rounds first.
 * campaign_create() records the experiment and that plan in the results store
 * in one transaction, before anything runs. campaign_execute() then runs the
 * pending seqs one by one (also after a crash or a reboot: it is resume), each
 * recorded as a 'running' row before it starts and finished after it ends, so
 * that no run is lost and none is repeated once it has an ok or failed row.
 *
 * Errors follow libnetab's convention: 0 or a negative errno with a sentence
 * in (err, errlen).
 */
#ifndef NETAB_CAMPAIGN_CAMPAIGN_H
#define NETAB_CAMPAIGN_CAMPAIGN_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "experiment/experiment.h"
#include "store/store.h"
#include "store/store_runner.h"
#include "util/err.h"

/* One planned run: indices into the experiment's variants and cells. */
struct campaign_slot {
    unsigned variant, cell;
    unsigned round; /* 1-based, warm-up rounds first */
    unsigned seq;   /* 1-based, contiguous, in execution order */
    bool warmup;
};

/*
 * The whole order of a campaign: rounds 1 .. warmup + runs, each a uniformly
 * random permutation of all nvariants * ncells pairs determined by seed and
 * the round alone; rounds up to `warmup` are warm-ups. *out holds
 * (warmup + runs) * nvariants * ncells slots (caller has ownership; free()).
 * Returns 0, -EINVAL for an empty or oversized plan, or -ENOMEM.
 */
NB_MUST_CHECK int campaign_plan(size_t nvariants, size_t ncells, long runs, long warmup,
                                uint64_t seed, struct campaign_slot **out, size_t *n);

/*
 * Rounds first_round .. last_round of the same plan (so a campaign can grow
 * by rounds, as adaptive stopping does): the slots are exactly those
 * campaign_plan() gives for these rounds, seq included. Returns like
 * campaign_plan().
 */
NB_MUST_CHECK int campaign_plan_rounds(size_t nvariants, size_t ncells, long first_round,
                                       long last_round, long warmup, uint64_t seed,
                                       struct campaign_slot **out, size_t *n);

/*
 * order: blocked: reorders a plan so that each variant's runs come together
 * (variants in file order; within a variant, rounds and the shuffle of its
 * cells as planned, warm-ups first), and renumbers seq. Fewest boots of a
 * device under test, but drift is then confounded with the variant.
 */
void campaign_plan_block(struct campaign_slot *slots, size_t n);

/*
 * Adds rounds first_round .. last_round of e's plan (with seed, as
 * campaign_create() planned the first ones) to experiment id in db, so the
 * next campaign_execute() runs them. Returns 0 or a negative errno.
 */
NB_MUST_CHECK int campaign_extend(struct store *db, const struct experiment *e, int64_t id,
                                  long first_round, long last_round, uint64_t seed, char *err,
                                  size_t errlen);

/*
 * Plans the experiment with seed and records it (file_text may be NULL) and
 * its plan in db in one transaction. *id receives the experiment's id.
 */
NB_MUST_CHECK int campaign_create(struct store *db, const struct experiment *e,
                                  const char *file_text, uint64_t seed, int64_t *id, char *err,
                                  size_t errlen);

/* One thing found by campaign_preflight(). */
struct campaign_finding {
    bool error; /* the plan cannot run here; otherwise a warning */
    char msg[NB_ERRLEN * 2];
};

/* What campaign_preflight() found; zero-initialise, release with campaign_findings_free(). */
struct campaign_findings {
    struct campaign_finding *v;
    size_t n, cap;
    size_t errors; /* how many of v are errors */
};
void campaign_findings_free(struct campaign_findings *f);

struct campaign_preflight_opts {
    bool check_dut; /* also ask the DUT over ssh (it may be booting, so only when asked) */
};

/*
 * Can this plan run here? The one decision `netab experiment validate`
 * prints and run/resume obey before the first run (docs/campaign.md,
 * "Before the first run"). Errors: a variant's CPU settings this machine
 * cannot make (cpuctl_check()'s sentence, "variant NAME: ..."); with
 * o->check_dut, a DUT that does not answer. Warnings: cpus: equal to the
 * CPUs online (changes nothing); a hook's or cmd:'s program not on PATH; a
 * run's server on this host with nothing listening on its port; a --cport
 * port taken here. Each finding once (a matrix repeats them per cell). Appends to
 * f (o may be NULL). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int campaign_preflight(const struct experiment *e,
                                     const struct campaign_preflight_opts *o,
                                     struct campaign_findings *f);

/*
 * campaign_preflight() of the file at path, said on out: each error as
 * "netab experiment: PATH: refusing to start: MESSAGE", each warning as
 * "netab experiment: PATH: warning: MESSAGE", the same lines for validate
 * and run. Returns the number of errors (0: it can run), or -1 when out of
 * memory (said).
 */
int campaign_preflight_print(FILE *out, const char *path, const struct experiment *e,
                             bool check_dut);

/* What campaign_execute() reports after each run. */
struct campaign_event {
    int64_t run_id;
    int seq, round;
    bool warmup;
    const char *variant, *cell;
    enum store_run_status status;
    const char *error;      /* why it failed or was interrupted; "" when ok */
    double seconds;         /* wall time of the whole step */
    double receiver_bps;    /* headline of the run; NAN if none */
    double transactions_s;  /* for rr/crr tests; NAN if none */
    long done, planned;     /* seqs finished (ok or failed) and planned, after this run */
    double eta_s;           /* NAN while unknown */
    const json_t *warnings; /* env_warnings() of this run's environment (borrowed) */
    const char *output;     /* what the measured command printed; NULL if nothing (borrowed) */
    double measured_s;      /* wall time of the measured command alone */
};

enum campaign_outcome {
    CAMPAIGN_COMPLETE,    /* every planned seq has an ok or failed run */
    CAMPAIGN_INTERRUPTED, /* a signal stopped it; resume continues */
    CAMPAIGN_REBOOTING,   /* reset: reboot handed over to a reboot (the command returned) */
};

struct campaign_opts {
    struct store *db;
    const char *db_path; /* the CPU state file is db_path + ".cpuctl" */
    int64_t id;
    /*
     * The experiment itself when it lives in memory only (netab compare,
     * which has no file); NULL: load the file recorded with experiment id.
     * Borrowed.
     */
    const struct experiment *experiment;
    /* Called after each run and before a reboot (ev NULL, msg set); may be NULL. */
    void (*progress)(const struct campaign_event *ev, const char *msg, void *arg);
    void *arg;
    /*
     * Asked after each run's progress call (same arg); true ends the campaign
     * there without a signal: the pending runs stay pending and the outcome is
     * CAMPAIGN_INTERRUPTED (*signo 0). May be NULL. Not asked in the worker
     * processes of parallel: duts.
     */
    bool (*stop)(void *arg);
};

/*
 * Runs every pending seq of experiment opts->id to the end: first restores
 * CPU settings a crashed campaign left behind, marks runs left 'running' as
 * 'interrupted', then runs the seqs without an ok or failed run in plan
 * order, each on its DUT (experiment_run_dut()). With parallel: duts and
 * several DUTs one worker process per DUT runs that DUT's seqs
 * (campaign_priv.h); a DUT that stops answering then stops only its own
 * seqs, and the others complete before the error (EHOSTDOWN, naming it) is
 * returned. It installs no signal handler: the caller decides which signals
 * stop a campaign and calls campaign_cancel() from their handler (which
 * forwards the signal to the workers). After a cancel
 * the current child is killed, its run recorded as interrupted, CPU settings
 * restored, and CAMPAIGN_INTERRUPTED returned with *signo set. A failed run is recorded
 * and the campaign goes on. Returns 0 with *outcome set, or a negative errno
 * (the store could not be written, the experiment is not there or its
 * recorded file no longer loads, a DUT stopped answering).
 */
NB_MUST_CHECK int campaign_execute(const struct campaign_opts *opts, enum campaign_outcome *outcome,
                                   int *signo, char *err, size_t errlen);

/*
 * Stops the running campaign_execute() (of this process) as if by signal
 * sig: the current step's child is killed and every CPU setting the
 * campaign changed is put back at once, before this returns. Async-signal-
 * safe (it preserves errno); a no-op when no campaign runs.
 */
void campaign_cancel(int sig);

/* Where an experiment stands, judged by campaign_status_get(). */
enum campaign_state {
    CAMPAIGN_STATE_PLANNED, /* recorded, never started */
    CAMPAIGN_STATE_RUNNING, /* a live runner holds it */
    CAMPAIGN_STATE_STOPPED, /* started, not complete, no runner alive: resume continues */
    CAMPAIGN_STATE_DONE,    /* every planned run completed */
};

struct campaign_status {
    enum campaign_state state;
    bool has_runner; /* runner: the newest runner row (schema 4 on) */
    struct store_runner runner;
    bool alive;                     /* that runner runs now (its lock held, its pid alive) */
    bool same_boot;                 /* it ran on this host and boot, so its pid could be checked */
    bool has_last_run;              /* last_run: the newest run row: the one in flight, the */
    struct store_last_run last_run; /* interrupted one ('running' when its runner vanished) */
};

/*
 * The state of experiment id in db (opened from db_path, whose lock file
 * is db_path.lock), column being its status column ("planned", "running",
 * "done", ...). Running only when the newest runner row has not ended, the
 * store's lock is held and, on the same host and boot, its pid is alive.
 * Returns 0 or a negative errno; release s with campaign_status_free().
 */
NB_MUST_CHECK int campaign_status_get(struct store *db, const char *db_path, int64_t id,
                                      const char *column, struct campaign_status *s, char *err,
                                      size_t errlen);
void campaign_status_free(struct campaign_status *s);

#endif
