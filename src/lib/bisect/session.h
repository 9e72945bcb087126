/*
 * A bisection's records in the results store (the names in bisect/bisect.h):
 * the session's options as JSON and back, and its experiments found again
 * by name.
 */
#ifndef NETAB_BISECT_SESSION_H
#define NETAB_BISECT_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "bisect/bisect.h"
#include "store/store.h"

/* "run" (netab bisect run) or "step" (netab bisect step under git bisect run). */
NB_MUST_CHECK int bisect_session_create(struct store *db, const struct bisect_config *cfg,
                                        const char *mode, const char *top, const char *good,
                                        const char *bad, int64_t *id, char *err, size_t errlen);

/*
 * A session's options back from its record: cfg's strings and common words
 * point into *keep (json_decref() it, free(cfg->common) after use); top,
 * good and bad are copied. Returns 0 or -errno with err.
 */
NB_MUST_CHECK int bisect_session_load(struct store *db, int64_t id, struct bisect_config *cfg,
                                      json_t **keep, char top[PATH_MAX],
                                      char good[BISECT_HASH_LEN + 1], char bad[BISECT_HASH_LEN + 1],
                                      char *mode, size_t modelen, char *err, size_t errlen);

/* The newest session in db that is still "running" (mode "run"); -ENOENT if none. */
NB_MUST_CHECK int bisect_session_latest(struct store *db, int64_t *id, char *err, size_t errlen);

/* The newest "step" session for the same work tree and references; *id 0 if none. */
NB_MUST_CHECK int bisect_session_find_step(struct store *db, const char *top, const char *good,
                                           const char *bad, int64_t *id, char *err, size_t errlen);

/* One experiment of a session, from its name. */
struct bisect_record {
    int64_t id;
    bool refs; /* the references; else step k of commit hash */
    int k;
    char hash[BISECT_HASH_LEN + 1];
    bool done, build_failed; /* status done; a recorded build failure */
    /* Runs planned but status failed: the DUT never came back (bisect_measure_stored()). */
    bool lost;
};

/*
 * The session's experiments in id order. Caller frees *out. Returns 0 or
 * -errno with err.
 */
NB_MUST_CHECK int bisect_session_records(struct store *db, int64_t sid, struct bisect_record **out,
                                         size_t *n, char *err, size_t errlen);

/* The newest experiment called name; *id 0 if none. */
NB_MUST_CHECK int bisect_experiment_by_name(struct store *db, const char *name, int64_t *id,
                                            char *err, size_t errlen);

/*
 * Records step k of hash as a failed experiment without runs whose spec
 * holds the build's last lines (why), so that a resume skips it again.
 */
NB_MUST_CHECK int bisect_record_build_failure(struct store *db, int64_t sid, int k,
                                              const char *hash, const char *why, char *err,
                                              size_t errlen);

/* The build failure recorded as experiment id, into buf. */
void bisect_build_failure_reason(struct store *db, int64_t id, char *buf, size_t len);

#endif
