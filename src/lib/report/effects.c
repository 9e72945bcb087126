/*
 * Finding the 2x2 designs of a report and their effects. A factor is either
 * the variant (the baseline against one other variant) or a matrix axis
 * with exactly two values; the cells that differ only in the two factors'
 * levels form one design, so a 2 x (2 x 2) matrix has a variant x axis
 * design for each axis in each level of the other axis. An experiment
 * whose variants carry factors: (docs/experiment.md) declares a design over
 * its four variants, which comes first, once in each cell.
 */
#include "report/effects.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric/spec.h"
#include "stats/factorial.h"

/* The first and second value of axis a in matrix order, or false unless it has exactly two. */
static bool two_values(const struct creport *r, size_t a, const char **v1, const char **v2)
{
    *v1 = *v2 = NULL;
    for (size_t c = 0; c < r->ncells; c++) {
        const char *v = r->cells[c].values ? r->cells[c].values[a] : NULL;
        if (!v || (*v1 && !strcmp(v, *v1)) || (*v2 && !strcmp(v, *v2)))
            continue;
        if (*v2)
            return false;
        *(*v1 ? v2 : v1) = v;
    }
    return *v2 != NULL;
}

/* The cell with c's values except value val on axis a (and val2 on axis b unless b < 0), or -1. */
static long sibling(const struct creport *r, size_t c, size_t a, const char *val, long b,
                    const char *val2)
{
    for (size_t d = 0; d < r->ncells; d++) {
        bool same = r->cells[d].values != NULL;
        for (size_t k = 0; same && k < r->naxes; k++) {
            const char *want = k == a                     ? val
                               : b >= 0 && k == (size_t)b ? val2
                                                          : r->cells[c].values[k];
            same = !strcmp(r->cells[d].values[k], want);
        }
        if (same)
            return (long)d;
    }
    return -1;
}

/* The slice a design is in: "test=tcp_stream" for the axes other than the factors'. */
static void slice_name(const struct creport *r, size_t c, long x, long y, char *b, size_t n)
{
    size_t u = 0;
    b[0] = 0;
    for (size_t k = 0; k < r->naxes && u < n; k++)
        if ((long)k != x && (long)k != y)
            u += (size_t)snprintf(b + u, n - u, "%s%s=%s", u ? "," : "", r->axes[k],
                                  r->cells[c].values[k]);
}

/* The mean, sample variance and count of entry en. */
static struct stats_cell cell_of(const struct creport_entry *en)
{
    double ss = 0;
    for (size_t k = 0; k < en->n; k++)
        ss += (en->values[k] - en->mean) * (en->values[k] - en->mean);
    return (struct stats_cell){en->mean, en->n > 1 ? ss / (double)(en->n - 1) : NAN, en->n};
}

/* One design's factor: its name and its two levels. */
struct factor {
    const char *name, *l1, *l2;
};

/* A copy of f into out; 0 or -ENOMEM. */
static int factor_copy(const struct factor *f, struct creport_factor *out)
{
    out->name = strdup(f->name);
    out->levels[0] = strdup(f->l1);
    out->levels[1] = strdup(f->l2);
    return out->name && out->levels[0] && out->levels[1] ? 0 : -ENOMEM;
}

/*
 * Appends the design of variants va, vb (equal for an axis-only design) and
 * cells cell[i][j] (i = factor A's level, j = factor B's) on metric m.
 * Returns 0 or -ENOMEM.
 */
static int add_design(struct creport *r, enum creport_design_kind kind, const struct factor *fa,
                      const struct factor *fb, const size_t v[2][2], const size_t cl[2][2],
                      const char *slice, size_t m)
{
    struct creport_design *ds = realloc(r->effects, (r->neffects + 1) * sizeof(*ds));
    if (!ds)
        return -ENOMEM;
    r->effects = ds;
    struct creport_design *d = &ds[r->neffects++];
    *d = (struct creport_design){.kind = kind, .m = m, .confidence = r->opts.confidence};
    struct stats_cell sc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            sc[i][j] = cell_of(creport_at(r, v[i][j], cl[i][j], m));
            d->cells[i][j] = (struct creport_design_cell){v[i][j], cl[i][j], sc[i][j]};
        }
    d->computed =
        stats_factorial_2x2((const struct stats_cell(*)[2])sc, r->opts.confidence, &d->fx) == 0;
    if (!d->computed)
        d->fx = (struct stats_2x2){.a = {0}};
    d->slice = strdup(slice);
    return d->slice && !factor_copy(fa, &d->a) && !factor_copy(fb, &d->b) ? 0 : -ENOMEM;
}

/* The deciding metric of cell c0 if the cells of cl all show it, else -1. */
static long design_metric(const struct creport *r, size_t c0, const size_t cl[2][2])
{
    int m = r->cells[c0].decide;
    for (int i = 0; m >= 0 && i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (!creport_at(r, 0, cl[i][j], (size_t)m)->shown)
                return -1;
    return m;
}

/* Variant v against the baseline, crossed with axis x, in every slice. */
static int variant_designs(struct creport *r, size_t v, size_t x)
{
    const char *x1, *x2;
    char slice[256];
    if (!two_values(r, x, &x1, &x2))
        return 0;
    struct factor fa = {"variant", r->variants[0], r->variants[v]}, fb = {r->axes[x], x1, x2};
    const size_t vv[2][2] = {{0, 0}, {v, v}};
    for (size_t c = 0; c < r->ncells; c++) {
        if (!r->cells[c].values || strcmp(r->cells[c].values[x], x1))
            continue;
        long c2 = sibling(r, c, x, x2, -1, NULL);
        if (c2 < 0)
            continue;
        const size_t cl[2][2] = {{c, (size_t)c2}, {c, (size_t)c2}};
        long m = design_metric(r, c, cl);
        slice_name(r, c, (long)x, -1, slice, sizeof(slice));
        int e =
            m < 0 ? 0
                  : add_design(r, CREPORT_DESIGN_VARIANT_AXIS, &fa, &fb, vv, cl, slice, (size_t)m);
        if (e)
            return e;
    }
    return 0;
}

/* With one variant: axis x crossed with axis y, in every slice of the others. */
static int axis_designs(struct creport *r, size_t x, size_t y)
{
    const char *x1, *x2, *y1, *y2;
    char slice[256];
    if (!two_values(r, x, &x1, &x2) || !two_values(r, y, &y1, &y2))
        return 0;
    struct factor fa = {r->axes[x], x1, x2}, fb = {r->axes[y], y1, y2};
    const size_t vv[2][2] = {{0, 0}, {0, 0}};
    for (size_t c = 0; c < r->ncells; c++) {
        const struct creport_cell *cell = &r->cells[c];
        if (!cell->values || strcmp(cell->values[x], x1) || strcmp(cell->values[y], y1))
            continue;
        long c01 = sibling(r, c, x, x1, (long)y, y2), c10 = sibling(r, c, x, x2, (long)y, y1);
        long c11 = sibling(r, c, x, x2, (long)y, y2);
        if (c01 < 0 || c10 < 0 || c11 < 0)
            continue;
        const size_t cl[2][2] = {{c, (size_t)c01}, {(size_t)c10, (size_t)c11}};
        long m = design_metric(r, c, cl);
        slice_name(r, c, (long)x, (long)y, slice, sizeof(slice));
        int e = m < 0 ? 0 : add_design(r, CREPORT_DESIGN_AXES, &fa, &fb, vv, cl, slice, (size_t)m);
        if (e)
            return e;
    }
    return 0;
}

/*
 * Factor f's level for each report variant into lv[nvariants], and its two
 * levels in report order (the baseline's first) into fc; false unless every
 * variant has a level and there are exactly two.
 */
static bool factor_levels(const struct creport *r, const json_t *spec, const char *f,
                          const char **lv, struct factor *fc)
{
    fc->name = f;
    fc->l1 = fc->l2 = NULL;
    for (size_t v = 0; v < r->nvariants; v++) {
        lv[v] = NULL;
        for (size_t s = 0; s < spec_variant_count(spec) && !lv[v]; s++) {
            const char *name = spec_variant_name(spec, s);
            if (name && !strcmp(name, r->variants[v]))
                lv[v] = spec_variant_level(spec, s, f);
        }
        if (!lv[v] || (fc->l1 && !strcmp(lv[v], fc->l1)) || (fc->l2 && !strcmp(lv[v], fc->l2)))
            continue;
        if (fc->l2)
            return false;
        *(fc->l1 ? &fc->l2 : &fc->l1) = lv[v];
    }
    for (size_t v = 0; v < r->nvariants; v++)
        if (!lv[v])
            return false;
    return fc->l2 != NULL;
}

/*
 * The design the variants' factors declare (two factors of two levels, a
 * variant per combination), on each cell's deciding metric. Anything else
 * in a stored spec (a validated file cannot have it) is no design.
 */
static int factor_designs(struct creport *r, const json_t *spec)
{
    struct factor fa, fb;
    if (spec_factor_count(spec) != 2 || r->nvariants != 4)
        return 0;
    const char *la[4], *lb[4];
    if (!factor_levels(r, spec, spec_factor_name(spec, 0), la, &fa) ||
        !factor_levels(r, spec, spec_factor_name(spec, 1), lb, &fb))
        return 0;
    size_t vv[2][2];
    bool seen[2][2] = {{false, false}, {false, false}};
    for (size_t v = 0; v < 4; v++) {
        int i = strcmp(la[v], fa.l1) != 0, j = strcmp(lb[v], fb.l1) != 0;
        if (seen[i][j])
            return 0;
        seen[i][j] = true;
        vv[i][j] = v;
    }
    char slice[256];
    for (size_t c = 0; c < r->ncells; c++) {
        const size_t cl[2][2] = {{c, c}, {c, c}};
        if (r->cells[c].values)
            slice_name(r, c, -1, -1, slice, sizeof(slice));
        else
            snprintf(slice, sizeof(slice), "%s", r->ncells > 1 ? r->cells[c].name : "");
        /* A cell without the figure in some variant says "not computed" rather than vanish. */
        int e = r->cells[c].decide < 0
                    ? 0
                    : add_design(r, CREPORT_DESIGN_FACTORS, &fa, &fb, (const size_t(*)[2])vv, cl,
                                 slice, (size_t)r->cells[c].decide);
        if (e)
            return e;
    }
    return 0;
}

int creport_effects(struct creport *r, const json_t *spec)
{
    creport_effects_free(r);
    int e = factor_designs(r, spec);
    for (size_t v = 1; v < r->nvariants && !e; v++)
        for (size_t x = 0; x < r->naxes && !e; x++)
            e = variant_designs(r, v, x);
    for (size_t x = 0; r->nvariants == 1 && x < r->naxes && !e; x++)
        for (size_t y = x + 1; y < r->naxes && !e; y++)
            e = axis_designs(r, x, y);
    return e;
}

void creport_effects_free(struct creport *r)
{
    for (size_t i = 0; i < r->neffects; i++) {
        struct creport_design *d = &r->effects[i];
        free(d->slice);
        for (int k = 0; k < 2; k++) {
            struct creport_factor *f = k ? &d->b : &d->a;
            free(f->name);
            free(f->levels[0]);
            free(f->levels[1]);
        }
    }
    free(r->effects);
    r->effects = NULL;
    r->neffects = 0;
}

const char *creport_design_kind_name(enum creport_design_kind k)
{
    static const char *const names[] = {"factors", "variant_axis", "axes"};
    return names[k];
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *effect_json(const struct stats_effect *e)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "estimate", num(e->estimate),
                     "ci_low", num(e->ci_low), "ci_high", num(e->ci_high), "se", num(e->se), "df",
                     num(e->df), "p", num(e->p), "pct", num(e->pct), "pct_ci_low", num(e->pct_low),
                     "pct_ci_high", num(e->pct_high));
}

/* Design d as docs/report.md has it; NULL when out of memory. */
static json_t *design_json(const struct creport *r, const struct creport_design *d)
{
    const struct creport_metric *md = &r->metrics[d->m];
    json_t *cells = json_array();
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const struct creport_design_cell *x = &d->cells[i][j];
            json_array_append_new(cells, json_pack("{s:s, s:s, s:o, s:o, s:I}", "variant",
                                                   r->variants[x->v], "cell", r->cells[x->c].name,
                                                   "mean", num(x->s.mean), "variance",
                                                   num(x->s.var), "n", (json_int_t)x->s.n));
        }
    bool ok = d->computed;
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:{s:s, s:[s, s]}, s:{s:s, s:[s, s]}, s:o, s:f, s:o, s:o, s:o, "
        "s:s?}",
        "design", creport_design_kind_name(d->kind), "metric", md->name, "unit", md->unit, "slice",
        d->slice, "factor_a", "name", d->a.name, "levels", d->a.levels[0], d->a.levels[1],
        "factor_b", "name", d->b.name, "levels", d->b.levels[0], d->b.levels[1], "cells",
        cells ? cells : json_null(), "confidence", d->confidence, "main_a",
        ok ? effect_json(&d->fx.a) : json_null(), "main_b",
        ok ? effect_json(&d->fx.b) : json_null(), "interaction",
        ok ? effect_json(&d->fx.interaction) : json_null(), "not_computed",
        ok ? NULL : CREPORT_EFFECTS_NOT_COMPUTED);
}

json_t *creport_effects_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->neffects; i++)
        if (json_array_append_new(a, design_json(r, &r->effects[i]))) {
            json_decref(a);
            a = NULL;
        }
    return a;
}
