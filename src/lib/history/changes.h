/*
 * netab history's findings (docs/history.md): the change points of each
 * series (E-divisive means, stats/changepoint.h), shown as text, as a JSON
 * document and as a figure. The CLI parses options and calls these.
 */
#ifndef NETAB_HISTORY_CHANGES_H
#define NETAB_HISTORY_CHANGES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "history/history.h"
#include "stats/changepoint.h"

/* The change points of one series. */
struct history_changes {
    double *y; /* the series' values, in order */
    struct stats_changepoint *cp;
    size_t ncp;
};

struct history_analysis {
    const struct history *h;   /* borrowed */
    struct stats_cp_opts opts; /* as used */
    bool csv;                  /* the series came from --csv (else from stores, by `by`) */
    enum history_by by;
    struct history_changes *series; /* one per h->series; owned */
    size_t found;                   /* change points in all series */
};

/*
 * The change points of every series of h under opts. csv and by only say
 * what a point is, for the output. Returns 0 or -ENOMEM; free out with
 * history_analysis_free(), also on failure.
 */
NB_MUST_CHECK int history_analyse(const struct history *h, const struct stats_cp_opts *opts,
                                  bool csv, enum history_by by, struct history_analysis *out);
void history_analysis_free(struct history_analysis *a);

/*
 * The text: the metric and the method, then per series its change points
 * (label, means before and after, change with interval, p) and segments;
 * every point too when all_points. Write errors stay in out's error flag.
 */
void history_print_text(FILE *out, const struct history_analysis *a, bool all_points);

/* The JSON document of --json (docs/history.md); NULL when out of memory. */
json_t *history_document(const struct history_analysis *a);

/*
 * The figure at path (format by extension): one panel per series, the
 * change points marked. Returns 0 or a negative errno with err.
 */
NB_MUST_CHECK int history_draw(const struct history_analysis *a, const char *path, char *err,
                               size_t errlen);

#endif
