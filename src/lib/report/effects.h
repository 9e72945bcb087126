/*
 * 2x2 designs in an experiment report: where two factors of two levels
 * each meet (the baseline and another variant against a matrix axis of two
 * values; with one variant, two such axes), the main effect of each factor
 * and their interaction on the deciding metric, with intervals
 * (stats/factorial.h), in every slice of the remaining axes; and the
 * design the variants' factors: declare (docs/experiment.md).
 */
#ifndef NETAB_REPORT_EFFECTS_H
#define NETAB_REPORT_EFFECTS_H

#include <stdio.h>

#include "report/report.h"
#include "stats/factorial.h"

/* What made a design: variants' factors:, the variant against an axis, or two axes. */
enum creport_design_kind {
    CREPORT_DESIGN_FACTORS,
    CREPORT_DESIGN_VARIANT_AXIS,
    CREPORT_DESIGN_AXES,
};

/* Its name in the JSON: "factors", "variant_axis", "axes". */
const char *creport_design_kind_name(enum creport_design_kind k);

/* A factor of a design: its name ("variant" or an axis) and its two levels, the reference first. */
struct creport_factor {
    char *name, *levels[2];
};

/* A cell of a design: variant v in report cell c, and its values on the design's metric. */
struct creport_design_cell {
    size_t v, c;
    struct stats_cell s; /* mean, sample variance (NaN below 2 values), count */
};

/* Why a design has no effects (its "not_computed"). */
#define CREPORT_EFFECTS_NOT_COMPUTED "every cell needs 2 values or more"

/* One 2x2 design of r->effects. */
struct creport_design {
    enum creport_design_kind kind;
    size_t m;    /* the metric, an index into r->metrics: the cells' deciding one */
    char *slice; /* the other axes' values, "test=tcp_stream"; "" for none */
    struct creport_factor a, b;
    struct creport_design_cell cells[2][2]; /* [factor A's level][factor B's level] */
    double confidence;                      /* of the intervals */
    bool computed;       /* false: a cell has fewer than 2 values (CREPORT_EFFECTS_NOT_COMPUTED) */
    struct stats_2x2 fx; /* main effects and interaction when computed */
};

/*
 * Sets r->effects (r->neffects) to every 2x2 design of r (docs/report.md,
 * "2×2 effects"), none when there is none: first the one the variants'
 * factors: declare in the experiment's spec (may be NULL), in each cell,
 * then those found between the variant and the matrix axes. Call after the
 * means are computed. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_effects(struct creport *r, const json_t *spec);

/* Releases r->effects. */
void creport_effects_free(struct creport *r);

/* The JSON "effects" member: every design of r, [] for none; NULL when out of memory. */
json_t *creport_effects_json(const struct creport *r);

#endif
