/*
 * Reading an experiment back for resume: its file text and one entry of its
 * plan. Conventions as in store.h (0 or a negative errno, a sentence in err).
 */
#ifndef NETAB_STORE_STORE_PLAN_H
#define NETAB_STORE_STORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* An experiment as recorded; strings are owned (store_experiment_info_free()). */
struct store_experiment_info {
    int64_t id;
    char *name, *status;
    char *file_text; /* NULL if none was recorded */
    uint64_t seed;
};

/* The experiment with this id; -ENOENT if there is none. */
NB_MUST_CHECK int store_experiment_info_get(struct store *db, int64_t id,
                                            struct store_experiment_info *out, char *err,
                                            size_t errlen);
void store_experiment_info_free(struct store_experiment_info *x);

/* The plan entry (experiment id, seq); -ENOENT if there is none. */
NB_MUST_CHECK int store_plan_get(struct store *db, int64_t id, int seq, struct store_plan_row *out,
                                 char *err, size_t errlen);
void store_plan_row_free(struct store_plan_row *p);

#endif
