/* Shared by the files of the experiment module; nothing outside it includes this. */
#ifndef NETAB_EXPERIMENT_EXP_PRIV_H
#define NETAB_EXPERIMENT_EXP_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "experiment/experiment.h"

/* Appends an error; returns 0, or -ENOMEM (the error is then only counted). */
int exp_errors_add(struct exp_errors *errs, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Sorts errs->v[from..] by line and column. */
void exp_errors_sort(struct exp_errors *errs, size_t from);
/* The candidate at most two edits from word, or NULL. */
const char *exp_suggest(const char *word, const char *const *candidates, size_t n);

/* An upper bound on the number of test keys, for arrays indexed by key. */
#define EXP_NKEYS_MAX 64

/* The names of experiment_keys(), in the same order. */
const char *const *exp_key_names(size_t *n);

/*
 * Checks val for key k. On success writes the canonical form into canon
 * and returns 0; otherwise returns -EINVAL and explains in err.
 */
int exp_key_check(const struct exp_key *k, const char *val, char *canon, size_t canonlen, char *err,
                  size_t errlen);

/* Shape limits (docs/experiment.md), checked by exp_check_shape() before the document is built. */
#define EXP_MAX_DEPTH 64      /* lists and mappings inside each other */
#define EXP_MAX_ANCHORS 256   /* &name in one file */
#define EXP_MAX_NODES 1000000 /* values, each alias counted as the values it stands for */

/*
 * Checks buf against the shape limits on libyaml's events, stopping at the
 * first event past one; a syntax error is left to the loader. Returns 0,
 * -EINVAL (one error added, with its line and column) or -ENOMEM.
 */
int exp_check_shape(const char *buf, size_t len, struct exp_errors *errs);

/* The state of one load: the YAML document, the error list and whether memory ran out. */
struct exp_ctx {
    yaml_document_t *doc;
    struct exp_errors *errs;
    bool oom;
};

/* Reports a problem at node n (or at no position when n is NULL). */
void exp_err(struct exp_ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* strdup() that records an allocation failure in c. */
char *exp_strdup(struct exp_ctx *c, const char *s);
/* The node at a document index. */
yaml_node_t *exp_node(struct exp_ctx *c, int index);
/* "a list", "a mapping", "nothing" or "'text'": for "must be X, not Y" messages. */
const char *exp_describe(const yaml_node_t *n, char *buf, size_t len);
/* A scalar's text, or NULL for a non-scalar, a null or text with a NUL byte. */
const char *exp_scalar(const yaml_node_t *n);
bool exp_is_plain(const yaml_node_t *n);

/*
 * Checks the keys of mapping `map` (described as `where` in messages)
 * against names[0..n): unknown keys (with a suggestion) and duplicates are
 * reported, and vals[i] receives the value of names[i] or NULL. Returns
 * false (after reporting) when map is not a mapping.
 */
bool exp_map_fields(struct exp_ctx *c, yaml_node_t *map, const char *where,
                    const char *const *names, size_t n, yaml_node_t **vals);

/*
 * The top-level `layout:` mapping: `hot:`, a non-empty list of function
 * names or fnmatch(3) globs (each checked) into e->layout_hot.
 */
void exp_parse_layout(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);

/*
 * The top-level `report:` mapping: `cell:` (a cell template, checked by
 * metric/celltpl) and `columns:` (an axis of the matrix besides test) into
 * e->report_cell and e->report_columns; after the matrix is parsed.
 */
void exp_parse_report(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);

/* Value readers: each reports its own error and returns false. */
bool exp_get_string(struct exp_ctx *c, yaml_node_t *n, const char *key, char **out);
bool exp_get_int(struct exp_ctx *c, yaml_node_t *n, const char *key, long min, long max, long *out);

/*
 * Checks that every variant makes a valid `netab run` in every cell; adds one
 * error per failing variant at its line. Returns 0, -EINVAL or -ENOMEM.
 */
int exp_check_runs(const struct experiment *e, struct exp_errors *errs);

/* The sections with nested structure (sections.c). */
void exp_parse_test(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);
void exp_parse_variants(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);
void exp_parse_matrix(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);

/* The device under test and hooks that may run on it (dut.c). */
void exp_parse_dut(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);
/*
 * Fills d from the mapping n of a DUT's keys (described as `where` in
 * messages); with name non-NULL "name" is a key too and *name receives its
 * node (NULL when absent). Returns false when n is not a mapping.
 */
bool exp_dut_fields(struct exp_ctx *c, yaml_node_t *n, const char *where, struct exp_dut *d,
                    yaml_node_t **name);
/* Several named DUTs (duts.c): duts: as a list of mappings with 'name' or a mapping by name. */
void exp_parse_duts(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);
/* parallel: duts | none (duts.c). */
void exp_parse_parallel(struct exp_ctx *c, yaml_node_t *n, struct experiment *e);
/* A variant's dut: NAME, one of e->duts; sets v->dut (duts.c). */
void exp_parse_variant_dut(struct exp_ctx *c, yaml_node_t *n, struct experiment *e,
                           struct exp_variant *v);
/* The values of the matrix axis dut: names of e->duts, each once (duts.c). */
void exp_parse_dut_axis(struct exp_ctx *c, yaml_node_t *n, struct experiment *e,
                        struct exp_axis *axis);
/*
 * A hook: a string (runs locally) or a mapping {run: CMD, on: dut|local}.
 * Sets *out and *on_dut; reports its own errors and returns false.
 */
bool exp_get_hook(struct exp_ctx *c, yaml_node_t *n, const char *key, char **out, bool *on_dut);
/* A variant's expect: a regular expression that must compile (util/pattern.h). */
bool exp_get_regex(struct exp_ctx *c, yaml_node_t *n, const char *key, char **out);
/*
 * The checks across sections once everything is parsed: `on: dut`, boot and
 * expect need a dut: section; reset: reboot with one needs every variant's
 * boot. Positions come from the nodes kept in marks (NULL = none).
 */
struct exp_dut_marks {
    yaml_node_t *root, *prepare, *matrix, *parallel, *duts;
};
void exp_check_dut(struct exp_ctx *c, const struct exp_dut_marks *m, struct experiment *e);
/*
 * The checks across sections of several DUTs (duts.c): every run has a DUT,
 * in one place only (a variant's dut: or the matrix axis, not both);
 * parallel: duts needs two DUTs and no local CPU settings. Positions as in
 * exp_check_dut().
 */
void exp_check_duts(struct exp_ctx *c, const struct exp_dut_marks *m, struct experiment *e);
/*
 * A variant's factors: a mapping of factor names ([A-Za-z0-9._-], at most
 * 64) to levels (a single non-empty value, read as a string); sets
 * v->factors (factors.c). Reports its own errors.
 */
void exp_parse_variant_factors(struct exp_ctx *c, yaml_node_t *n, const char *where,
                               struct exp_variant *v);
/*
 * The checks across variants of factors: (factors.c): with any, every
 * variant names the same factors; there are exactly two, each with two
 * levels, and each of the four combinations is one variant's.
 */
void exp_check_factors(struct exp_ctx *c, struct experiment *e);
/* Frees a variant's factors. */
void exp_factors_free(struct exp_variant *v);
/* Frees what d points to (not d). */
void exp_dut_clear(struct exp_dut *d);

/*
 * experiment_run_args(), optionally without the rate keys (bitrate:): they
 * pace udp_stream only, so experiment_run_spec() gives them only to the runs
 * that turn out to be udp_stream (a matrix over test kinds shares them).
 */
int exp_run_args(const struct experiment *e, const struct exp_variant *v, const struct exp_cell *c,
                 bool with_rate, char ***argv, int *argc);

#endif
