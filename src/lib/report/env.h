/*
 * The environment in `netab report`'s model: each variant's first ok run's
 * snapshot against the baseline's (envcap's env_diff(), converted once into
 * typed facts) and the environment warnings of all runs
 * (env_warnings_summary()). Renderers read these fields; the report's JSON
 * gets its env_differences and env_warnings back from them, as env_diff()
 * and env_warnings_summary() worded them.
 */
#ifndef NETAB_REPORT_ENV_H
#define NETAB_REPORT_ENV_H

#include "report/report.h"
#include "report/place.h"

/* The JSON type of an env_diff() leaf: a scalar, or an empty object or array. */
enum creport_env_kind {
    CREPORT_ENV_NULL, /* null, or no such fact on that side */
    CREPORT_ENV_FALSE,
    CREPORT_ENV_TRUE,
    CREPORT_ENV_INT,
    CREPORT_ENV_REAL,
    CREPORT_ENV_STRING,
    CREPORT_ENV_OBJECT, /* {} */
    CREPORT_ENV_ARRAY,  /* [] */
};

/* One side's value of a fact. */
struct creport_env_value {
    enum creport_env_kind kind;
    long long i; /* CREPORT_ENV_INT */
    double d;    /* CREPORT_ENV_REAL */
    char *s;     /* CREPORT_ENV_STRING */
    /* The value as one line of compact JSON ("null" when absent), as every format shows it. */
    char *shown;
};

/* A leaf of the snapshots that differs (an env_diff() row {"path", "a", "b"}). */
struct creport_env_fact {
    char *path;                        /* JSON Pointer (RFC 6901) into the snapshot */
    struct creport_env_value baseline; /* "a" */
    struct creport_env_value variant;  /* "b" */
};

/* One variant's first ok run against the baseline's (the JSON's env_differences entry). */
struct creport_env_diff {
    char *variant;
    char *against;        /* the baseline's name */
    int64_t baseline_run; /* the run ids compared */
    int64_t run;
    /* The local snapshot's differing leaves, then the remote identity's (identity.h). */
    struct creport_env_fact *differences;
    size_t ndifferences;
    char **identity_notes; /* env_identity_notes() sentences (identity.h) */
    size_t nidentity_notes;
};

/*
 * Fills r->env_diffs: env_diff() of the first measured ok run of each
 * variant (of the placed runs p[0..n)) against the baseline's, for every
 * variant where both have a snapshot. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_env_differences(struct creport *r, const struct creport_placed *p,
                                          size_t n);

/* Appends env_diff() rows (an array of {"path", "a", "b"}) to d's differences. 0 or -ENOMEM. */
NB_MUST_CHECK int creport_env_add_facts(struct creport_env_diff *d, const json_t *rows);

/* Appends copies of the strings of a JSON array to *list (*n of them). 0 or -ENOMEM. */
NB_MUST_CHECK int creport_env_add_strings(char ***list, size_t *n, const json_t *strings);

/*
 * Sets r->env_warnings and r->env_by_name from the environment snapshots of
 * runs[0..nruns): env_warnings_summary() and env_warnings_summary_by_name(),
 * one line per kind with how many runs it concerned. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_env_warnings(struct creport *r, const struct creport_rundoc *docs,
                                       size_t nruns);

/* Appends a copy of sentence to r->env_warnings. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int creport_env_warn(struct creport *r, const char *sentence);

/* The JSON's env_differences (a new array), or NULL when out of memory. */
json_t *creport_env_diffs_json(const struct creport *r);

/* The JSON's env_warnings (a new array of strings), or NULL when out of memory. */
json_t *creport_env_warnings_json(const struct creport *r);

/* Releases r's environment members. */
void creport_env_free(struct creport *r);

#endif
