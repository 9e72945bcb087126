/*
 * netab history (docs/history.md): one metric of each variant across stored
 * experiments in time order, or a plain CSV of (label, value) from
 * anywhere, as series ready for change-point detection (stats/changepoint.h).
 */
#ifndef NETAB_HISTORY_HISTORY_H
#define NETAB_HISTORY_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/opttable.h"

/* What one point of a series is. */
enum history_by {
    HISTORY_BY_EXPERIMENT, /* every experiment */
    HISTORY_BY_COMMIT,     /* consecutive experiments of one commit (bisect steps: the hash) */
    HISTORY_BY_KERNEL,     /* consecutive runs on one kernel (the DUT's, else the local one) */
};

/* The words of --by: "experiment", "commit", "kernel". */
extern const struct opt_choice history_by_choices[];

struct history_point {
    char *label;
    char *when;   /* the first experiment's creation time (ISO 8601), NULL from a CSV */
    double value; /* the mean of the metric over the point's runs */
    size_t nruns;
};

struct history_series {
    char *variant; /* NULL for a CSV */
    struct history_point *pts;
    size_t n, cap;
};

struct history {
    struct history_series *series;
    size_t n;
    char metric[128];
    char unit[32];
    bool lower_is_better;
};

/*
 * The series of metric (a compare metric name or a dotted path into the
 * run documents; NULL: throughput) of every variant (or only `variant`, if
 * not NULL) across the experiments of the stores dbs[0..ndb-1] (none: the
 * default store, $NETAB_DB or the default file), merged in order of creation. Every successful
 * measured run counts; warm-ups do not. Returns 0 or a negative errno with a sentence in err. Free
 * with history_free(), also on failure.
 */
NB_MUST_CHECK int history_from_stores(const char *const *dbs, size_t ndb, const char *metric,
                                      const char *variant, enum history_by by, struct history *out,
                                      char *err, size_t errlen);

/*
 * One series from a CSV file of "label,value" lines (a first line whose
 * value is not a number is a header; labels may be double-quoted). Every
 * other bad line is an error naming its line. Returns 0 or -errno with err.
 */
NB_MUST_CHECK int history_from_csv(const char *path, struct history *out, char *err, size_t errlen);

void history_free(struct history *h);

#endif
