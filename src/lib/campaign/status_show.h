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
 * The headline of the run ev reports, at most len bytes to buf: its error
 * when it did not succeed, else "N trans/s" (rr, crr), "X.Y Gbit/s" or
 * "X.Y Mbit/s", or "no throughput figure".
 */
void campaign_event_headline(const struct campaign_event *ev, char *buf, size_t len);

/*
 * The line `netab experiment run` prints for the run ev reports, without a
 * newline: "run DONE/PLANNED seq S round R[ (warm-up)] variant=V cell=C:
 * STATUS HEADLINE".
 */
void campaign_event_line(const struct campaign_event *ev, char *buf, size_t len);

/*
 * The progress bar's tail after the run ev reports: "last: VARIANT CELL
 * HEADLINE" when it succeeded, else "last: VARIANT CELL STATUS".
 */
void campaign_event_last_text(const struct campaign_event *ev, char *buf, size_t len);

/*
 * What `netab experiment run` and `resume` say on out when
 * campaign_execute() of experiment id in db returned rc (err: its
 * sentence), outcome and signo; c holds the experiment's counts after it.
 * A store another runner holds or an experiment that does not exist: the
 * sentence alone; another failure: the sentence and how to resume; a
 * signal: after how many runs it stopped and how to resume; a reboot that
 * did not happen: how to resume; else the counts of the completed
 * campaign.
 */
void campaign_outcome_print(FILE *out, struct store *db, int64_t id, int rc, const char *err,
                            enum campaign_outcome outcome, int signo, const struct store_counts *c);

/*
 * What `netab experiment run` says once experiment id (e) is recorded with
 * seed in the store at store_path: its runs planned, and for a seed picked
 * rather than read from the file, how to replay this order.
 */
void campaign_created_print(FILE *out, const struct experiment *e, int64_t id, uint64_t seed,
                            const char *store_path);

/*
 * True, after saying so on out, when experiment id of db holds runs `netab
 * import` recorded: it has no experiment file, so there is nothing to run
 * or resume (an experiment that cannot be read is left to resume to say).
 */
bool campaign_nothing_to_run(FILE *out, struct store *db, int64_t id);

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
