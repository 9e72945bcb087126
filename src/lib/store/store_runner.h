/*
 * The runners of campaigns (schema version 4): one row per process that
 * ran or resumed an experiment, with its pid, host and boot, a heartbeat it
 * refreshes before and after every run, and how it ended. Together with the
 * store's lock (campaign/liveness) it tells a running campaign from one
 * whose runner is gone, and since when (docs/campaign.md, "Status").
 *
 * Conventions as in store.h: 0 or a negative errno with a sentence in err.
 */
#ifndef NETAB_STORE_STORE_RUNNER_H
#define NETAB_STORE_STORE_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct store_runner {
    int64_t id, experiment_id;
    long pid;
    char *host, *boot_id;      /* gethostname(), /proc/sys/kernel/random/boot_id */
    char *started, *heartbeat; /* ISO 8601 UTC */
    char *ended, *end_reason;  /* NULL while it has not ended (or vanished) */
};
void store_runner_free(struct store_runner *r);

/* Records a new runner of experiment_id (heartbeat = now); *id receives its row id. */
NB_MUST_CHECK int store_runner_begin(struct store *db, int64_t experiment_id, long pid,
                                     const char *host, const char *boot_id, int64_t *id, char *err,
                                     size_t errlen);

/* Sets runner id's heartbeat to now. */
NB_MUST_CHECK int store_runner_beat(struct store *db, int64_t id, char *err, size_t errlen);

/*
 * Records that runner id ended now, and why ("complete", "interrupted by
 * signal 2 (...)", "vanished (found at resume)"); its heartbeat stays the
 * last one it wrote itself.
 */
NB_MUST_CHECK int store_runner_end(struct store *db, int64_t id, const char *reason, char *err,
                                   size_t errlen);

/* The newest runner of experiment_id; *found false (r untouched) when it never had one. */
NB_MUST_CHECK int store_runner_last(struct store *db, int64_t experiment_id, struct store_runner *r,
                                    bool *found, char *err, size_t errlen);

/* The newest run row of an experiment: where a campaign was when its runner stopped. */
struct store_last_run {
    int64_t run_id;
    int seq, attempt;
    enum store_run_status status;
    char *variant, *cell, *started, *error; /* error may be NULL */
};
void store_last_run_free(struct store_last_run *r);

/* The newest run row of experiment_id; *found false when it has none. */
NB_MUST_CHECK int store_last_run_get(struct store *db, int64_t experiment_id,
                                     struct store_last_run *r, bool *found, char *err,
                                     size_t errlen);

#endif
