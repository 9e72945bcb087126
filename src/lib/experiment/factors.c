/*
 * factors: a 2 x 2 design over the variants (docs/experiment.md,
 * "Factors"). Each variant says its level of each factor, for example
 * {patch: with, align: "64"}; the report then gives each factor's main
 * effect and their interaction. Only the shape the report analyses is
 * accepted: two factors of two levels each and four variants, one per
 * combination. Anything else is refused here, before hours of runs, rather
 * than discovered in the report.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"

/* The longest factor name or level; they appear in report headings. */
#define FACTOR_MAX 64

void exp_factors_free(struct exp_variant *v)
{
    for (size_t i = 0; i < v->nfactors; i++) {
        free(v->factors[i].name);
        free(v->factors[i].level);
    }
    free(v->factors);
    v->factors = NULL;
    v->nfactors = 0;
}

/* True when s has no control characters and at most FACTOR_MAX bytes. */
static bool printable(const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return len <= FACTOR_MAX;
}

/* Checks one NAME: LEVEL pair of variant v's factors and appends it; false after reporting. */
static bool parse_pair(struct exp_ctx *c, yaml_node_t *k, yaml_node_t *val, const char *where,
                       struct exp_variant *v)
{
    char buf[64];
    const char *name = exp_scalar(k), *level = exp_scalar(val);
    size_t len = name ? strlen(name) : 0;
    if (!len || len > FACTOR_MAX ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != len) {
        exp_err(c, k,
                "%s: a factor's name may only use letters, digits, '.', '_' and '-' (1 to 64), "
                "not %s",
                where, exp_describe(k, buf, sizeof(buf)));
        return false;
    }
    for (size_t i = 0; i < v->nfactors; i++)
        if (!strcmp(v->factors[i].name, name)) {
            exp_err(c, k, "%s: duplicate factor '%s'", where, name);
            return false;
        }
    if (!level || !*level || !printable(level)) {
        exp_err(c, val,
                "%s: factor '%s': the level must be a single value, a string of 1 to 64 "
                "printable characters, not %s",
                where, name,
                level && !*level ? "an empty string" : exp_describe(val, buf, sizeof(buf)));
        return false;
    }
    struct exp_factor *f = &v->factors[v->nfactors];
    f->name = exp_strdup(c, name);
    f->level = exp_strdup(c, level);
    v->nfactors++;
    return f->name && f->level;
}

void exp_parse_variant_factors(struct exp_ctx *c, yaml_node_t *n, const char *where,
                               struct exp_variant *v)
{
    char buf[64];
    v->factors_line = (int)n->start_mark.line + 1;
    v->factors_col = (int)n->start_mark.column + 1;
    size_t count = n->type == YAML_MAPPING_NODE
                       ? (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start)
                       : 0;
    if (n->type != YAML_MAPPING_NODE) {
        exp_err(c, n, "%s: 'factors' must be a mapping of factor names to levels, not %s", where,
                exp_describe(n, buf, sizeof(buf)));
        return;
    }
    if (!count) {
        exp_err(c, n, "%s: 'factors' is empty: name each factor and this variant's level of it",
                where);
        return;
    }
    if (!(v->factors = calloc(count, sizeof(*v->factors)))) {
        c->oom = true;
        return;
    }
    bool ok = true;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = exp_node(c, p->key), *val = exp_node(c, p->value);
        if (k && val && !parse_pair(c, k, val, where, v))
            ok = false;
    }
    /* A variant whose factors were wrong has none: the checks across variants then keep quiet. */
    if (!ok)
        exp_factors_free(v);
}

/* Appends an error at line:col (the factors: of some variant). */
static void at(struct exp_ctx *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void at(struct exp_ctx *c, int line, int col, const char *fmt, ...)
{
    char msg[NB_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (exp_errors_add(c->errs, line, col, "%s", msg))
        c->oom = true;
}

/* Variant v's level of factor name, or NULL. */
static const char *level_of(const struct exp_variant *v, const char *name)
{
    for (size_t i = 0; i < v->nfactors; i++)
        if (!strcmp(v->factors[i].name, name))
            return v->factors[i].level;
    return NULL;
}

/* "a, b, c": the names of v's factors. */
static void names_of(const struct exp_variant *v, char *b, size_t n)
{
    size_t u = 0;
    b[0] = 0;
    for (size_t i = 0; i < v->nfactors && u < n; i++)
        u += (size_t)snprintf(b + u, n - u, "%s%s", i ? ", " : "", v->factors[i].name);
}

/* Every variant names exactly ref's factors; false after reporting those that do not. */
static bool same_names(struct exp_ctx *c, const struct experiment *e, const struct exp_variant *ref)
{
    char list[200];
    bool ok = true;
    names_of(ref, list, sizeof(list));
    for (size_t i = 0; i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        if (!v->nfactors) {
            at(c, v->line, v->col,
               "variant '%s' has no 'factors'; when one variant has them, every variant names "
               "the same factors (%s)",
               v->name, list);
            ok = false;
            continue;
        }
        for (size_t k = 0; k < ref->nfactors; k++)
            if (!level_of(v, ref->factors[k].name)) {
                at(c, v->factors_line, v->factors_col,
                   "variant '%s': factors: no '%s' (variant '%s' names %s; every variant names the "
                   "same factors)",
                   v->name, ref->factors[k].name, ref->name, list);
                ok = false;
            }
        for (size_t k = 0; k < v->nfactors; k++)
            if (!level_of(ref, v->factors[k].name)) {
                at(c, v->factors_line, v->factors_col,
                   "variant '%s': factors: '%s' is not one of variant '%s''s factors (%s)", v->name,
                   v->factors[k].name, ref->name, list);
                ok = false;
            }
    }
    return ok;
}

/*
 * The levels of factor name in variant order into lv[0..1]; false after
 * reporting when it has one level or more than two.
 */
static bool two_levels(struct exp_ctx *c, const struct experiment *e, const struct exp_variant *ref,
                       const char *name, const char *lv[2])
{
    char list[300];
    size_t nl = 0, u = 0;
    const struct exp_variant *third = NULL;
    lv[0] = lv[1] = NULL;
    list[0] = 0;
    for (size_t i = 0; i < e->nvariants; i++) {
        const char *l = level_of(&e->variants[i], name);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(level_of(&e->variants[j], name), l);
        if (seen)
            continue;
        if (nl < 2)
            lv[nl] = l;
        else if (!third)
            third = &e->variants[i];
        nl++;
        if (u < sizeof(list))
            u += (size_t)snprintf(list + u, sizeof(list) - u, "%s%s", u ? ", " : "", l);
    }
    if (nl == 2)
        return true;
    const struct exp_variant *v = third ? third : ref;
    at(c, v->factors_line, v->factors_col,
       "factors: '%s' has %zu level%s (%s); a 2 x 2 design needs exactly two levels of each "
       "factor",
       name, nl, nl == 1 ? "" : "s", list);
    return false;
}

/* Each combination of the levels is one variant's; reports duplicates and missing ones. */
static void combinations(struct exp_ctx *c, const struct experiment *e,
                         const struct exp_variant *ref, const char *la[2], const char *lb[2])
{
    const char *a = ref->factors[0].name, *b = ref->factors[1].name;
    const struct exp_variant *who[2][2] = {{NULL, NULL}, {NULL, NULL}};
    for (size_t k = 0; k < e->nvariants; k++) {
        const struct exp_variant *v = &e->variants[k];
        int i = strcmp(level_of(v, a), la[0]) != 0, j = strcmp(level_of(v, b), lb[0]) != 0;
        if (who[i][j])
            at(c, v->factors_line, v->factors_col,
               "variant '%s': factors: %s=%s, %s=%s is also variant '%s''s; in a 2 x 2 design "
               "each combination is one variant's",
               v->name, a, la[i], b, lb[j], who[i][j]->name);
        else
            who[i][j] = v;
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (!who[i][j])
                at(c, ref->factors_line, ref->factors_col,
                   "factors: no variant has %s=%s, %s=%s; a 2 x 2 design needs a variant for each "
                   "of the four combinations",
                   a, la[i], b, lb[j]);
}

void exp_check_factors(struct exp_ctx *c, struct experiment *e)
{
    const struct exp_variant *ref = NULL;
    for (size_t i = 0; i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        if (v->factors_line && !v->nfactors)
            return; /* its factors: were wrong, and said so */
        if (!v->name)
            return; /* the variant itself was wrong: nothing to name it by */
        if (!ref && v->nfactors)
            ref = v;
    }
    if (!ref || !same_names(c, e, ref))
        return;
    if (ref->nfactors != 2) {
        char list[200];
        names_of(ref, list, sizeof(list));
        at(c, ref->factors_line, ref->factors_col,
           "factors: a 2 x 2 design needs exactly two factors, and variant '%s' names %zu (%s); "
           "netab analyses no other design",
           ref->name, ref->nfactors, list);
        return;
    }
    const char *la[2], *lb[2];
    bool ok = two_levels(c, e, ref, ref->factors[0].name, la);
    if (two_levels(c, e, ref, ref->factors[1].name, lb) && ok)
        combinations(c, e, ref, la, lb);
}
