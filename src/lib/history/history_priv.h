/* Building a history's series (history/series.c), shared by its readers. */
#ifndef NETAB_HISTORY_HISTORY_PRIV_H
#define NETAB_HISTORY_HISTORY_PRIV_H

#include "history/history.h"

/* A new empty series for variant (may be NULL) in h; *out points to it. 0 or -ENOMEM. */
NB_MUST_CHECK int history_add_series(struct history *h, const char *variant,
                                     struct history_series **out);

/* Appends a point (strings copied; when may be NULL). 0 or -ENOMEM. */
NB_MUST_CHECK int history_add_point(struct history_series *s, const char *label, const char *when,
                                    double value, size_t nruns);

#endif
