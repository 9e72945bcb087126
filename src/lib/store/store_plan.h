/*
 * Reading one entry of an experiment's plan back, for resume (the experiment
 * itself: store_experiment_get() in store.h). Conventions as in store.h (0 or
 * a negative errno, a sentence in err).
 */
#ifndef NETAB_STORE_STORE_PLAN_H
#define NETAB_STORE_STORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The plan entry (experiment id, seq); -ENOENT if there is none. */
NB_MUST_CHECK int store_plan_get(struct store *db, int64_t id, int seq, struct store_plan_row *out,
                                 char *err, size_t errlen);
void store_plan_row_free(struct store_plan_row *p);

#endif
