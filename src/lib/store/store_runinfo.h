/* What a run's listing adds from its plan row and stored documents. Internal. */
#ifndef NETAB_STORE_RUNINFO_H
#define NETAB_STORE_RUNINFO_H

#include "store/store_priv.h"
#include "util/csv.h"

/*
 * Fills has_plan, warmup, round, identity_local and identity_remote of
 * runs[0..n) from the plan table and from the stored env and result JSON
 * (documents that are not valid JSON give no identity). Returns 0 or a
 * negative errno with a message.
 */
NB_MUST_CHECK int store_runinfo_fill(struct store *s, struct store_run *runs, size_t n, char *err,
                                     size_t errlen);

/* The members "warmup", "round" and "identity" {"local", "remote"} of a run's JSON, set into o. */
void store_runinfo_json(const struct store_run *r, struct json_t *o);

/*
 * The CSV export's extra columns, after the headline ones: warmup, round,
 * local_release, local_build_id, remote_release, remote_build_id (empty
 * when unknown or, for warmup and round, for single runs).
 */
void store_runinfo_csv_head(struct csv *w);
void store_runinfo_csv(struct csv *w, const struct store_run *r);

#endif
