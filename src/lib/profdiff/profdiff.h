/*
 * A differential profile: which functions' share of the samples changed
 * between two groups of profiled runs (a baseline variant and another, in
 * one cell), with an interval across runs. Each run's share of a function
 * is one observation, so the same statistics as every other metric apply
 * (Welch's interval of the difference of means, in percentage points).
 *
 * A run's profile carries every function with samples ("full", within a
 * byte budget; measure/profile.h), and its top functions. The full list is
 * used where a run has it; a run without one (an older netab) lists only
 * its top functions. A function missing from a run's list counts 0 there;
 * the error that makes is below the smallest share such a list holds,
 * which the result carries as floor_pct (0: every share is exact).
 *
 * Ownership: a struct profdiff belongs to the caller (profdiff_free()).
 */
#ifndef NETAB_PROFDIFF_PROFDIFF_H
#define NETAB_PROFDIFF_PROFDIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "stats/welch.h"
#include "util/err.h"

enum profdiff_kind {
    PROFDIFF_CHANGED,  /* in both groups: the interval decides */
    PROFDIFF_APPEARED, /* in no baseline run, in at least half of the other runs */
    PROFDIFF_VANISHED, /* in at least half of the baseline runs, in no other run */
};

#define PROFDIFF_MAX_EVENTS 4

/*
 * A function's figures of a group of events (--profile=cycles,instructions,
 * ...; measure/profile.h), from the runs' top functions, which carry them:
 * per side (0 base, 1 other) each event's mean share of its count over the
 * runs that list the function, and IPC and L1-icache misses per 1,000
 * instructions of its summed counts; NaN where no run lists it, or the
 * group lacks the events.
 */
struct profdiff_group {
    double share[2][PROFDIFF_MAX_EVENTS];
    double ipc[2], l1i_mpki[2];
};

struct profdiff_row {
    char *symbol, *module;      /* owned */
    struct profdiff_group g;    /* valid when the profdiff has events (nev > 1) */
    double base_pct, other_pct; /* mean share of samples, percent */
    struct stats_welch w;       /* other - base, percentage points; valid for CHANGED */
    bool have_interval;         /* at least 2 runs each side */
    enum profdiff_kind kind;
    int verdict; /* +1 grew (interval above 0), -1 shrank, 0 within noise */
};

struct profdiff {
    struct profdiff_row *rows; /* the largest changes first (appeared/vanished by share) */
    size_t n;
    size_t base_runs, other_runs; /* runs with a profile */
    double floor_pct;             /* the largest share below which a function may go unlisted */
    double conf;
    /* The runs' group of events, when every run with one has the same (0: none). */
    int nev;
    char ev[PROFDIFF_MAX_EVENTS][32];
};

/*
 * Compares the profiles other[0..no) against base[0..nb) (profile objects:
 * end.profile.local of each run; a NULL or "why" profile is skipped) at
 * confidence conf, keeping the top rows. Returns 0, -EINVAL when either
 * group has no profile (err says which), or -ENOMEM.
 */
NB_MUST_CHECK int profdiff_compute(const json_t *const *base, size_t nb, const json_t *const *other,
                                   size_t no, double conf, size_t top, struct profdiff *out,
                                   char *err, size_t errlen);

void profdiff_free(struct profdiff *d);

/*
 * The JSON form: runs, floor_pct, rows (symbol, module, shares, change,
 * interval, verdict); with a group of events also "events" and each row's
 * "group" (base and other: each event's share, IPC, L1i misses per 1k
 * instructions).
 */
json_t *profdiff_json(const struct profdiff *d);

/* Text lines within 72 columns under a heading line (title) the caller gives. */
void profdiff_text(FILE *f, const char *title, const struct profdiff *d);

/* Markdown: a table under a heading. */
void profdiff_markdown(FILE *f, const char *title, const struct profdiff *d);

/* The verdict word: "grew", "shrank", "within noise", "appeared", "vanished". */
const char *profdiff_word(const struct profdiff_row *r);

#endif
