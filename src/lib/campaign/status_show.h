/*
 * What `netab experiment list` and `netab experiment status` show (also
 * under their older names `netab runs experiments` and `runs status`): the
 * store's experiments with their counts, and one experiment's state, its
 * runner alive or gone (campaign_status_get()), in text or JSON.
 */
#ifndef NETAB_CAMPAIGN_STATUS_SHOW_H
#define NETAB_CAMPAIGN_STATUS_SHOW_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "campaign/campaign.h"
#include "store/store.h"

/* "planned", "running", "stopped", "done". */
const char *campaign_state_name(enum campaign_state s);

/* "1h05m", "3m20s", "42s" of s seconds (rounded); "?" when s is not finite. */
void campaign_duration_text(double s, char *buf, size_t len);

/*
 * Every experiment of db (opened from db_path): with json NULL, a table on
 * out (id, name, state, planned, completed, failed, created); otherwise one
 * object per experiment appended to the array json (counts, columns,
 * state). Returns 0 or a negative errno with a sentence in err.
 */
NB_MUST_CHECK int campaign_list_show(struct store *db, const char *db_path, FILE *out, json_t *json,
                                     char *err, size_t errlen);

/*
 * Experiment id of db (opened from db_path): with json NULL, its state on
 * out (running, or stopped where, since when, why and how to resume; the
 * counts; the time left); otherwise *json is set to one object with the
 * same (the caller owns it). Returns 0, -ENOENT when db has no experiment
 * id, or another negative errno; err says why.
 */
NB_MUST_CHECK int campaign_status_show(struct store *db, const char *db_path, int64_t id, FILE *out,
                                       json_t **json, char *err, size_t errlen);

#endif
