/*
 * Copying experiments between stores (netab store copy, docs/store.md): a
 * laptop's SQLite file into the team's PostgreSQL server, or back. Ids are
 * the target's own; an experiment is known again by its name, creation
 * time and seed, a run by its experiment, seq and attempt (a single run by
 * its start time, command line and label), so a second copy adds only what
 * is new. Runs still 'running' in the source are left for a later copy.
 *
 * Conventions as in store.h: 0 or a negative errno with a sentence in err.
 */
#ifndef NETAB_STORE_STORE_COPY_H
#define NETAB_STORE_STORE_COPY_H

#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

struct store_copy_result {
    int64_t from_id, to_id; /* the experiment in each store (0: the single runs) */
    bool created;           /* the experiment was new in the target */
    long runs_copied;       /* run rows added to the target */
    long runs_present;      /* run rows the target had already */
    long runs_left_running; /* 'running' rows not copied */
};

/*
 * Copies experiment id of from (0: the runs outside any experiment) into
 * to, in one transaction of to's: the experiment row, its plan, its final
 * runs and their intervals. *res says what happened. -ENOENT if from has no
 * such experiment.
 */
NB_MUST_CHECK int store_copy_experiment(struct store *from, struct store *to, int64_t id,
                                        struct store_copy_result *res, char *err, size_t errlen);

/*
 * One line on out saying what a copy did: "experiment FROM -> TO[ (new)]:
 * N runs copied, M already there" ("single runs: ..." for id 0), and how
 * many were left running.
 */
void store_copy_print(FILE *out, const struct store_copy_result *res);

/*
 * Copies experiments ids[0..n) of from into to, or with n 0 every
 * experiment of from and then the single runs; each copy said on out
 * (store_copy_print()). Stops at the first that fails: each experiment is
 * copied whole or not at all.
 */
NB_MUST_CHECK int store_copy_all(struct store *from, struct store *to, const int64_t *ids, size_t n,
                                 FILE *out, char *err, size_t errlen);

#endif
