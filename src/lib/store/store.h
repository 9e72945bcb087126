/*
 * The results store: every run netab makes, kept in a SQLite database or on a
 * PostgreSQL server (a postgresql:// or postgres:// URL) so that campaigns
 * survive hours, crashes and reboots (docs/store.md). Both are reached
 * through one database layer (sqldb.h) with one set of statements.
 *
 * Conventions: functions return 0 or a negative errno and, on failure, write a
 * full sentence into (err, errlen). Database failures are mapped to errnos:
 * -EROFS (read-only file or file system, or a role that may not write),
 * -ENOSPC (disk full), -ENOTSUP (the file is not a SQLite database, or the
 * database not a netab store), -EPROTONOSUPPORT (the schema is newer than
 * this netab), -EBUSY (locked too long), -ENOENT (no such row),
 * -ECONNREFUSED (cannot connect to the server), -ECONNRESET (the server went
 * away and did not come back in time), -EIO (other).
 *
 * Durability: SQLite runs in WAL mode with synchronous=FULL, and PostgreSQL
 * commits durably, so a call that returned 0 after a write has reached
 * stable storage; a failing call
 * rolls its transaction back and leaves everything recorded before intact.
 * Nothing is ever overwritten: a run row may only move from 'running' to a
 * final status, and triggers in the schema refuse any other update or delete.
 *
 * Strings passed in are copied; strings handed out belong to the structure
 * they are in and are released by its *_free() function.
 */
#ifndef NETAB_STORE_STORE_H
#define NETAB_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

/* The schema version this netab writes; older databases are migrated to it. */
#define STORE_SCHEMA_VERSION 6

struct store;

/* store_open() flags. */
enum {
    STORE_OPEN_CREATE = 1 << 0,   /* create the file (and its directory) if missing */
    STORE_OPEN_READONLY = 1 << 1, /* never write: no migrations, every write fails -EROFS */
};

/*
 * Picks the database path: cli_path if not NULL, else $NETAB_DB, else
 * $XDG_DATA_HOME/netab/results.db with XDG_DATA_HOME defaulting to
 * $HOME/.local/share. Writes it into out. -ENAMETOOLONG or -ENOENT (no HOME).
 */
NB_MUST_CHECK int store_default_path(const char *cli_path, char *out, size_t outlen, char *err,
                                     size_t errlen);

/*
 * Opens (with STORE_OPEN_CREATE: creates, making missing directories) the
 * database at path, checks that it is a SQLite database whose schema this
 * netab understands, and applies pending migrations in one transaction.
 * A file that is not a database or has a newer schema is not modified.
 * On success *out is the caller's, to be released with store_close().
 */
/*
 * Refuses what cannot be a results store's path before anything is run or
 * created: a URL of a scheme other than postgresql:// or postgres://, named
 * by its scheme only (the rest may hold a password), with a sentence
 * listing the schemes netab knows; an existing path (links followed) that
 * is not a regular file (a directory: -EISDIR; a device, FIFO or socket:
 * -EINVAL), naming what it is. Returns 0 or the negative errno.
 */
NB_MUST_CHECK int store_check_path(const char *path, char *err, size_t errlen);

NB_MUST_CHECK int store_open(const char *path, unsigned flags, struct store **out, char *err,
                             size_t errlen);

/*
 * store_open() of the store store_default_path() picks for given (NULL:
 * $NETAB_DB, else the default file); its path is then store_path(*out).
 * Returns 0 or a negative errno with a sentence in err.
 */
NB_MUST_CHECK int store_open_default(const char *given, unsigned flags, struct store **out,
                                     char *err, size_t errlen);

/* Closes db (NULL is fine). Everything committed is already durable. */
void store_close(struct store *db);

/* The schema version of the open database (after migrations). */
int store_schema_version(const struct store *db);

/* The path db was opened with, any password removed (safe to print); owned by db. */
const char *store_path(const struct store *db);

/* Whether path names a server store (a postgresql:// or postgres:// URL), not a file. */
bool store_is_url(const char *path);

/* path with any password removed, into buf (cut to len), for printing; returns buf. */
const char *store_display_path(const char *path, char *buf, size_t len);

/* Whether db is on a database server (PostgreSQL) rather than a local file. */
bool store_is_server(const struct store *db);

/*
 * A server store's per-experiment campaign lock (a PostgreSQL advisory lock
 * held by db's session, gone when the process dies): 0 taken, -EBUSY with a
 * sentence when another session holds it. File stores lock a file instead
 * (campaign/runner.c).
 */
NB_MUST_CHECK int store_campaign_lock(struct store *db, int64_t experiment_id, char *err,
                                      size_t errlen);
/* Releases the lock store_campaign_lock() took (nothing for a file store). */
void store_campaign_unlock(struct store *db, int64_t experiment_id);
/* Whether any session holds experiment_id's campaign lock: 1, 0, or -1 unknown. */
int store_campaign_lock_held(struct store *db, int64_t experiment_id);

/*
 * A local file that belongs with the store db_path (db_path + suffix for a
 * file store; for a server store a file named after a hash of its URL in
 * netab's data directory, as store_default_path() finds it), into out.
 * -ENAMETOOLONG or -ENOENT.
 */
NB_MUST_CHECK int store_local_file(const char *db_path, const char *suffix, char *out,
                                   size_t outlen, char *err, size_t errlen);

/* --- Experiments and their plans ---------------------------------------- */

/* One planned run of an experiment; strings are borrowed for the call. */
struct store_plan_entry {
    int seq;             /* position in the randomized order, unique per experiment */
    const char *variant; /* e.g. "baseline" or "patched" */
    const char *cell;    /* matrix cell label, or NULL */
    bool warmup;         /* a warm-up run whose numbers are not judged */
    int round;           /* repetition number */
};

/*
 * Records an experiment and its whole plan in one transaction: either all of
 * it is stored or none. file_text and spec_json may be NULL. *id receives the
 * new experiment's id.
 */
NB_MUST_CHECK int store_experiment_create(struct store *db, const char *name, const char *file_text,
                                          const char *spec_json, uint64_t seed,
                                          const struct store_plan_entry *plan, size_t n,
                                          int64_t *id, char *err, size_t errlen);

/*
 * Adds entries to experiment id's plan in one transaction (a campaign that
 * grows by rounds, like netab compare --until-ci). -EINVAL if a seq is
 * already planned.
 */
NB_MUST_CHECK int store_plan_append(struct store *db, int64_t id,
                                    const struct store_plan_entry *plan, size_t n, char *err,
                                    size_t errlen);

/* Sets an experiment's status: "planned", "running", "done" or "failed". */
NB_MUST_CHECK int store_experiment_set_status(struct store *db, int64_t id, const char *status,
                                              char *err, size_t errlen);

/* --- Runs ---------------------------------------------------------------- */

enum store_run_status {
    STORE_RUN_RUNNING,
    STORE_RUN_OK,
    STORE_RUN_FAILED,
    STORE_RUN_INTERRUPTED,
};

/* "running", "ok", "failed", "interrupted". */
const char *store_run_status_name(enum store_run_status s);

/*
 * Commits a new run row with status 'running' before the run starts, so that a
 * crash leaves evidence. experiment_id 0 is a single run outside any
 * experiment (seq is then ignored and stored as NULL). attempt is 1 plus the
 * number of earlier rows for the same experiment and seq. variant, cell,
 * params_json and env_json may be NULL. *run_id receives the row's id.
 */
NB_MUST_CHECK int store_run_begin(struct store *db, int64_t experiment_id, int seq,
                                  const char *variant, const char *cell, const char *params_json,
                                  const char *env_json, int64_t *run_id, char *err, size_t errlen);

/*
 * Finishes a 'running' row: status (OK, FAILED or INTERRUPTED), exit code,
 * error text (may be NULL) and the raw `netab run --json` document (may be
 * NULL). The document's headline metrics and intervals are extracted into
 * their columns and the intervals table, all in one transaction. A document
 * that is not valid JSON is still stored verbatim, with no headline values.
 * -ENOENT if there is no such run, -EALREADY if it is no longer running.
 */
NB_MUST_CHECK int store_run_finish(struct store *db, int64_t run_id, enum store_run_status status,
                                   int exit_code, const char *error, const char *result_json,
                                   char *err, size_t errlen);

/*
 * Records the identity of the device under test on a 'running' row (the
 * text its identity command printed, checked against the variant's
 * expect:). -ENOENT / -EALREADY as store_run_finish().
 */
NB_MUST_CHECK int store_run_set_dut_identity(struct store *db, int64_t run_id, const char *identity,
                                             char *err, size_t errlen);
/* Records the name of the DUT (duts:) a 'running' row is measured on; errors as above. */
NB_MUST_CHECK int store_run_set_dut(struct store *db, int64_t run_id, const char *name, char *err,
                                    size_t errlen);

/*
 * Resume support: every 'running' row of the experiment becomes
 * 'interrupted' (a process that recorded it is gone), with why as its
 * error (may be NULL: none). *n (may be NULL) receives how many
 * rows changed.
 */
NB_MUST_CHECK int store_mark_interrupted(struct store *db, int64_t experiment_id, const char *why,
                                         int *n, char *err, size_t errlen);

/*
 * The lowest planned seq that has no 'ok' or 'failed' run. *found is false
 * (and *seq untouched) when the experiment is complete.
 */
NB_MUST_CHECK int store_next_pending(struct store *db, int64_t experiment_id, int *seq, bool *found,
                                     char *err, size_t errlen);

/*
 * Progress of an experiment. planned: plan entries; ok: planned seqs with an
 * 'ok' run; failed: seqs whose runs failed and none ok; pending: seqs with no
 * 'ok' or 'failed' run (what resume still has to do); interrupted and
 * running: run rows (attempts) in those states.
 */
struct store_counts {
    long planned, ok, failed, pending, interrupted, running;
};
NB_MUST_CHECK int store_experiment_counts(struct store *db, int64_t experiment_id,
                                          struct store_counts *c, char *err, size_t errlen);

/* Mean wall-clock duration of the experiment's finished ok/failed runs; NAN if none. */
NB_MUST_CHECK int store_avg_run_seconds(struct store *db, int64_t experiment_id, double *avg,
                                        char *err, size_t errlen);

/* Seconds left: pending runs times avg_run_seconds; NAN if avg is not finite. */
double store_eta_seconds(const struct store_counts *c, double avg_run_seconds);

/*
 * A single `netab run` result: opens (creating) the database at db_path (NULL
 * = default path), records a run outside any experiment with the document's
 * "test" object as params and "host" object as environment, and finishes it
 * as ok when exit_code is 0 and the document's "error" is null, else failed.
 * The run started at the document's start.time when it has one in netab's
 * form (YYYY-MM-DDTHH:MM:SSZ, not after now), else when it is recorded.
 * argv_text is the command line, kept for reference. *run_id may be NULL.
 */
NB_MUST_CHECK int store_record_result(struct store *db, const char *argv_text,
                                      const char *result_json, int exit_code, int64_t *run_id,
                                      char *err, size_t errlen);
NB_MUST_CHECK int store_record_single(const char *db_path, const char *argv_text,
                                      const char *result_json, int exit_code, char *err,
                                      size_t errlen);

/*
 * The same with a label kept in the run's variant column (NULL for none):
 * netab compare --db labels each run with its variant's name.
 */
NB_MUST_CHECK int store_record_labeled(struct store *db, const char *variant, const char *argv_text,
                                       const char *result_json, int exit_code, int64_t *run_id,
                                       char *err, size_t errlen);
NB_MUST_CHECK int store_record_single_labeled(const char *db_path, const char *variant,
                                              const char *argv_text, const char *result_json,
                                              int exit_code, char *err, size_t errlen);

/*
 * `netab run --db`: store_record_single_labeled() of doc, with the command
 * line "netab ARGV[0] ARGV[1] ..." (argv as the run command got it, cut at
 * 2 KiB) as its argv_text.
 */
NB_MUST_CHECK int store_record_run_doc(const char *db_path, const char *variant, int argc,
                                       char *const *argv, const json_t *doc, int exit_code,
                                       char *err, size_t errlen);

/* --- Reading ------------------------------------------------------------- */

struct store_experiment {
    int64_t id;
    char *name, *created, *status;
    uint64_t seed;
    long planned, runs; /* plan entries and run rows */
};

/* All experiments, oldest first. Free with store_experiment_list_free(). */
NB_MUST_CHECK int store_experiment_list(struct store *db, struct store_experiment **out, size_t *n,
                                        char *err, size_t errlen);
void store_experiment_list_free(struct store_experiment *list, size_t n);

struct store_interval {
    int idx;
    double start, end, bits_per_second;
    int64_t packets;
};

/* One run. Doubles are NAN where the database holds NULL. */
struct store_run {
    int64_t id;
    int64_t experiment_id; /* 0: a single run */
    int seq;               /* -1 for single runs */
    char *variant, *cell;  /* may be NULL */
    enum store_run_status status;
    int attempt;
    char *started, *finished; /* ISO 8601 UTC; finished may be NULL */
    double duration_s;
    bool has_exit_code;
    int exit_code;
    char *error, *argv_text;
    char *dut_identity; /* the DUT's identity it was measured on; NULL without a DUT */
    char *dut;          /* the name of that DUT (duts:); NULL without a named DUT */
    double receiver_bps, sender_bps, local_us_per_kib, remote_us_per_kib, cpu_local_pct,
        cpu_remote_pct, transactions_per_second, latency_p50_us, latency_p99_us, lost_percent,
        local_process_us_per_kib, remote_process_us_per_kib;
    /* Only filled by store_run_get() and (for export) store_run_list(.., true, ..). */
    char *params_json, *result_json, *env_json;
    /*
     * From the run's plan row and stored documents (store_runinfo.c), always
     * filled: has_plan is false for single runs (warmup and round then mean
     * nothing); identity_local/remote are the JSON texts of the two ends'
     * build identities (env.identity or result host.local.identity, result
     * host.remote.identity), NULL when not recorded.
     */
    bool has_plan, warmup;
    int round;
    char *identity_local, *identity_remote;
    struct store_interval *intervals;
    size_t n_intervals;
};

/*
 * The headline columns of runs (metric/metric.h says which figure each
 * holds): their count, the i-th's name (NULL past the end), and run r's value
 * of column (NAN when NULL in the store or not a headline column).
 */
size_t store_headline_count(void);
const char *store_headline_column(size_t i);
double store_run_figure(const struct store_run *r, const char *column);

/* Experiment filter for store_run_list() and store_export(). */
#define STORE_ALL_RUNS (-1)

/*
 * Runs ordered by id; experiment_id STORE_ALL_RUNS for all, 0 for single runs
 * only, else that experiment's. with_raw also loads the JSON documents and
 * intervals. Free with store_run_list_free().
 */
NB_MUST_CHECK int store_run_list(struct store *db, int64_t experiment_id, bool with_raw,
                                 struct store_run **out, size_t *n, char *err, size_t errlen);
void store_run_list_free(struct store_run *runs, size_t n);

/* One run with everything. -ENOENT if absent. Release with store_run_free(). */
NB_MUST_CHECK int store_run_get(struct store *db, int64_t run_id, struct store_run *out, char *err,
                                size_t errlen);
/* Frees what r points to (not r itself). */
void store_run_free(struct store_run *r);

/*
 * A JSON object describing r (new reference, caller owns). with_raw adds
 * "params", "env" and "result" (parsed documents, or the raw text as a string
 * if it is not valid JSON) and "intervals". Returns NULL on allocation failure.
 */
struct json_t;
struct json_t *store_run_to_json(const struct store_run *r, bool with_raw);

/* The array of store_run_to_json(r, false) of runs[0..n) (`runs list --json`); NULL on ENOMEM. */
struct json_t *store_run_list_json(const struct store_run *runs, size_t n);

enum store_format { STORE_FORMAT_CSV, STORE_FORMAT_JSON };

/* "csv" or "json" (`runs export --format`) into *fmt. Returns 0 or -EINVAL. */
NB_MUST_CHECK int store_format_parse(const char *name, enum store_format *fmt);

/*
 * Writes runs (filtered as store_run_list()) to f: CSV with a header row and
 * the headline columns (RFC 4180 quoting), or one JSON array of objects as
 * store_run_to_json(r, true). -EIO if writing f fails.
 */
NB_MUST_CHECK int store_export(struct store *db, int64_t experiment_id, enum store_format fmt,
                               FILE *f, char *err, size_t errlen);

/*
 * store_export() into the file at path (written whole under a temporary
 * name and renamed into place, util/outfile: a failure leaves no partial
 * file, a symbolic link there is replaced, not followed), or to standard
 * output when path is NULL or "-". Returns 0 or a negative errno with
 * "cannot write PATH: why" in err.
 */
NB_MUST_CHECK int store_export_path(struct store *db, int64_t experiment_id, enum store_format fmt,
                                    const char *path, char *err, size_t errlen);

/* --- Experiment details and plans (reports) ------------------------------ */

/*
 * One experiment by id. spec_json (the parsed experiment file as JSON) and
 * file_text (the file as written) may be NULL when not wanted; each receives
 * a malloc'd string, or NULL if none was stored. -ENOENT if there is no such
 * experiment. Release with store_experiment_free() and free() of the strings.
 */
NB_MUST_CHECK int store_experiment_get(struct store *db, int64_t id, struct store_experiment *out,
                                       char **spec_json, char **file_text, char *err,
                                       size_t errlen);
/* Frees what x points to (not x itself). */
void store_experiment_free(struct store_experiment *x);

/* One plan row as read back; strings are owned by the row (cell may be NULL). */
struct store_plan_row {
    int seq;
    char *variant, *cell;
    bool warmup;
    int round;
};

/* An experiment's plan ordered by seq. Free with store_plan_list_free(). */
NB_MUST_CHECK int store_plan_list(struct store *db, int64_t experiment_id,
                                  struct store_plan_row **out, size_t *n, char *err, size_t errlen);
void store_plan_list_free(struct store_plan_row *rows, size_t n);

#endif
