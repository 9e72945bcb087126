/*
 * Runs that another tool made, recorded as runs of a named variant
 * (`netab import`, docs/store.md "Imported runs"). Conventions as in store.h:
 * 0 or a negative errno with a sentence in err.
 *
 * Imported runs get a plan entry each (seq after the experiment's last, not
 * a warm-up, round 1, 2, ...) and a run row with status ok, so that reports
 * treat them as measured runs; a run with an error gets status failed,
 * exit code 1 and that error, so that reports count it as a failed run. An experiment created by an
 * import has no experiment file, status 'done' and the spec {"origin": "import"}: there is nothing
 * to run or resume in it.
 */
#ifndef NETAB_STORE_STORE_IMPORT_H
#define NETAB_STORE_STORE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One run to record; strings are borrowed for the call. */
struct store_import_run {
    const char *result_json; /* its document, shaped like `netab run --json` */
    const char *params_json; /* where it came from, e.g. {"import": {...}}; may be NULL */
    const char *argv_text;   /* a line saying what it was, e.g. "iperf3 -J a.json #1" */
    /* NULL: the run gave its value (status ok); else it failed, and this is why ("-EINTR") */
    const char *error;
};

/* Where the runs go. */
struct store_import_target {
    /*
     * An experiment id ("7") or name. A name that no experiment has creates
     * an import experiment of that name; NULL or "" creates one named
     * "import". A name that several experiments share is refused.
     */
    const char *experiment;
    const char *variant; /* required; not one of a netab experiment's own variants */
    /* The cell; NULL: the experiment's only cell, "default" for a new one. */
    const char *cell;
};

/*
 * Records runs[0..n-1] (n >= 1) into the experiment t names, all in one
 * transaction: the experiment (if new), the plan entries and the run rows,
 * or nothing. -ENOENT for an experiment id that does not exist, -EINVAL
 * for an ambiguous name, a variant that a netab experiment runs itself or
 * a missing cell choice. *experiment_id and *first_seq receive where the
 * runs went (either may be NULL).
 */
NB_MUST_CHECK int store_import(struct store *db, const struct store_import_target *t,
                               const struct store_import_run *runs, size_t n,
                               int64_t *experiment_id, int *first_seq, char *err, size_t errlen);

/* *yes: experiment id was created by an import (its spec's origin is "import"). */
NB_MUST_CHECK int store_experiment_is_import(struct store *db, int64_t id, bool *yes, char *err,
                                             size_t errlen);

#endif
