/*
 * A `netab compare` campaign in a results store: the experiment that
 * compare_experiment() describes, recorded in cfg->db (--db) or in a
 * temporary store that is removed at the end, and run by the campaign
 * engine (campaign_execute) round by round, so that adaptive stopping can
 * add rounds between looks.
 */
#ifndef NETAB_COMPARE_SESSION_H
#define NETAB_COMPARE_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "campaign/campaign.h"
#include "compare/compare.h"
#include "store/store.h"

struct compare_session {
    struct store *db;
    char path[PATH_MAX];   /* the store's file */
    char tmpdir[PATH_MAX]; /* "" unless the store is temporary */
    struct experiment *e;  /* owned */
    int64_t id;            /* the experiment's id in db */
    long rounds_planned;   /* rounds in the plan so far, warm-ups included */
    uint64_t seed;
};

/*
 * Opens the store, builds the experiment and records it with its first
 * `rounds` rounds (warm-ups included). On failure everything is released.
 * Returns 0 or a negative errno with a sentence in err.
 */
NB_MUST_CHECK int compare_session_open(struct compare_session *s, const struct compare_config *cfg,
                                       long rounds, char *err, size_t errlen);

/*
 * Runs every planned run up to round `through` (adding rounds to the plan
 * first if needed), reporting each finished run through progress. *signo is
 * the signal that cancelled it (campaign_cancel()), 0 when it ran to the end.
 * stop (may be NULL) is asked after each run, with arg: true ends the session
 * there (struct campaign_opts, stop).
 */
NB_MUST_CHECK int
compare_session_run(struct compare_session *s, long through,
                    void (*progress)(const struct campaign_event *ev, const char *msg, void *arg),
                    void *arg, bool (*stop)(void *arg), int *signo, char *err, size_t errlen);

/* Closes the store and removes it if it was temporary. Safe on a zeroed session. */
void compare_session_close(struct compare_session *s);

#endif
