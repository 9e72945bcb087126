/*
 * The experiment spec document: experiment_to_json() (experiment/json.c)
 * writes it, the store keeps it as experiments.spec_json, and the readers
 * (store_import, the campaign report) go through these functions, so that a
 * key is named once (the SPEC_* names, which the writer uses too). Readers
 * are tolerant: a member that is absent or of the wrong type reads as
 * absent (NULL, 0, false), since a stored spec may come from an older netab.
 */
#ifndef NETAB_METRIC_SPEC_H
#define NETAB_METRIC_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define SPEC_VARIANTS "variants" /* [{name, opts, ..., layout}] */
#define SPEC_NAME "name"
#define SPEC_LAYOUT "layout" /* a variant's file; at the top level {hot: [...]} */
#define SPEC_LAYOUT_HOT "hot"
#define SPEC_ORDER "order" /* "randomized" or "blocked" */
#define SPEC_BLOCKED "blocked"
#define SPEC_MATRIX "matrix" /* [{key, values: [...]}] */
#define SPEC_KEY "key"
#define SPEC_VALUES "values"
#define SPEC_DUTS "duts"         /* [{name, ssh, ...}]: several named DUTs (docs/experiment.md) */
#define SPEC_PARALLEL "parallel" /* "duts" when their runs ran at the same time */
#define SPEC_PARALLEL_DUTS "duts"
/*
 * factors: at the top, the names of a 2 x 2 design's factors in file order
 * (["patch", "align"]); in each variant, its level of each ({"patch": "with"}).
 */
#define SPEC_FACTORS "factors"
/* report: {cell, columns}: the report's cell template and its column axis (docs/report.md). */
#define SPEC_REPORT "report"
#define SPEC_REPORT_CELL "cell"
#define SPEC_REPORT_COLUMNS "columns"

/* The spec in spec_json, or NULL (NULL text or not JSON). Caller has ownership (json_decref). */
json_t *spec_parse(const char *spec_json);

/* The number of variants, and variant i's name and `layout:` file (NULL when absent). */
size_t spec_variant_count(const json_t *spec);
const char *spec_variant_name(const json_t *spec, size_t i);
const char *spec_variant_layout(const json_t *spec, size_t i);

/*
 * The experiment's own hot set for the code layout section (the top-level
 * `layout: {hot: [...]}`): the number of patterns (0 without one) and
 * pattern i (NULL if absent or not a string).
 */
size_t spec_layout_hot_count(const json_t *spec);
const char *spec_layout_hot(const json_t *spec, size_t i);

/* True when the spec's order is blocked (each variant's runs together). */
bool spec_order_blocked(const json_t *spec);

/* The named DUTs (duts:), DUT i's name (NULL if absent), and whether parallel: duts was set. */
size_t spec_dut_count(const json_t *spec);
const char *spec_dut_name(const json_t *spec, size_t i);
bool spec_parallel_duts(const json_t *spec);

/* The factors of a design over the variants: their count, factor i's name, variant v's level. */
size_t spec_factor_count(const json_t *spec);
const char *spec_factor_name(const json_t *spec, size_t i);
const char *spec_variant_level(const json_t *spec, size_t v, const char *factor);

/* The experiment's `report: {cell: T, columns: AXIS}`: its template and axis, NULL when absent. */
const char *spec_report_cell(const json_t *spec);
const char *spec_report_columns(const json_t *spec);

/* The matrix: its axes, axis a's key (NULL if not a string), its values and value i. */
size_t spec_axis_count(const json_t *spec);
const char *spec_axis_key(const json_t *spec, size_t a);
size_t spec_axis_size(const json_t *spec, size_t a);
const json_t *spec_axis_value(const json_t *spec, size_t a, size_t i);

#endif
