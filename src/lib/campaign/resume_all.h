/*
 * `netab experiment resume --all`: which of the store's experiments are left
 * to resume, and in what order. How one is resumed (progress, signals, exit
 * status) stays with the caller.
 */
#ifndef NETAB_CAMPAIGN_RESUME_ALL_H
#define NETAB_CAMPAIGN_RESUME_ALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Resumes experiment id (named name); returns false to resume no more. */
typedef bool (*campaign_resume_fn)(void *arg, int64_t id, const char *name);

/*
 * Calls resume(arg, id, name) for each experiment of db whose status is not
 * "done", oldest first, until resume returns false. *resumed receives the
 * number of calls. Returns 0, or a negative errno with err when the list of
 * experiments cannot be read (then resume was never called).
 */
NB_MUST_CHECK int campaign_resume_all(struct store *db, campaign_resume_fn resume, void *arg,
                                      size_t *resumed, char *err, size_t errlen);

#endif
