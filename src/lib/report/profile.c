/* The differential profile section of the campaign report (profile.h). */
#include "report/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/hotplace.h"
#include "profdiff/profdiff.h"

/* A run's end.profile.local, or NULL when it holds no profile. */
static json_t *profile_of(const struct creport_rundoc *d)
{
    json_t *p =
        json_object_get(json_object_get(json_object_get(d->result, "end"), "profile"), "local");
    return json_is_object(p) ? p : NULL;
}

/* The scope the profiles of both sides share, "mixed", or "" when none records one. */
static void scope_of(json_t *const *a, size_t na, json_t *const *b, size_t nb, char out[8])
{
    out[0] = '\0';
    for (size_t i = 0; i < na + nb; i++) {
        const char *s = json_string_value(json_object_get(i < na ? a[i] : b[i - na], "scope"));
        if (!s)
            continue;
        if (!out[0])
            snprintf(out, 8, "%s", strcmp(s, "test") && strcmp(s, "system") ? "mixed" : s);
        else if (strcmp(out, s))
            snprintf(out, 8, "mixed");
    }
}

/* ", test scope" for a profile's title when its runs record a scope; "" otherwise. */
static const char *scope_words(const struct creport_profdiff *d, char *buf, size_t len)
{
    if (!d->scope[0])
        return "";
    snprintf(buf, len, ", %s scope", d->scope);
    return buf;
}

/* One comparison: variant v against the baseline in cell c, from profiles[v][c]. */
static int compare_one(struct creport *r, json_t ***prof, size_t *nprof, size_t v, size_t c)
{
    size_t b = c, o = v * r->ncells + c;
    if (!nprof[b] || !nprof[o])
        return 0;
    struct creport_profdiff *n = realloc(r->profdiffs, (r->nprofdiffs + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    r->profdiffs = n;
    struct creport_profdiff *d = &r->profdiffs[r->nprofdiffs];
    *d = (struct creport_profdiff){.v = v, .c = c};
    scope_of(prof[b], nprof[b], prof[o], nprof[o], d->scope);
    char err[NB_ERRLEN];
    int e = profdiff_compute((const json_t *const *)prof[b], nprof[b],
                             (const json_t *const *)prof[o], nprof[o], r->opts.confidence,
                             CREPORT_PROFILE_TOP, &d->d, err, sizeof(err));
    if (e == -EINVAL) /* no usable profile on a side */
        return 0;
    if (!e)
        r->nprofdiffs++;
    return e;
}

int creport_profiles(struct creport *r, const struct creport_placed *p, size_t np)
{
    size_t slots = r->nvariants * r->ncells;
    json_t ***prof = calloc(slots ? slots : 1, sizeof(*prof));
    size_t *nprof = calloc(slots ? slots : 1, sizeof(*nprof));
    int e = prof && nprof ? 0 : -ENOMEM;
    for (size_t i = 0; !e && i < np; i++) {
        json_t *pr = profile_of(p[i].doc);
        size_t k = p[i].v * r->ncells + p[i].c;
        if (!pr)
            continue;
        json_t **grown = realloc(prof[k], (nprof[k] + 1) * sizeof(*grown));
        if (!grown) {
            e = -ENOMEM;
            break;
        }
        prof[k] = grown;
        prof[k][nprof[k]++] = pr;
    }
    for (size_t c = 0; !e && c < r->ncells; c++)
        for (size_t v = 1; !e && v < r->nvariants; v++)
            e = compare_one(r, prof, nprof, v, c);
    for (size_t k = 0; prof && k < slots; k++)
        free(prof[k]);
    free(prof);
    free(nprof);
    return e;
}

void creport_profiles_free(struct creport *r)
{
    for (size_t i = 0; i < r->nprofdiffs; i++) {
        creport_placement_clear(&r->profdiffs[i]);
        profdiff_free(&r->profdiffs[i].d);
    }
    free(r->profdiffs);
    r->profdiffs = NULL;
    r->nprofdiffs = 0;
}

static const char *cell_of(const struct creport *r, size_t c)
{
    return r->cells[c].name[0] ? r->cells[c].name : "(all)";
}

void creport_print_profile_text(FILE *f, const struct creport *r)
{
    for (size_t i = 0; i < r->nprofdiffs; i++) {
        const struct creport_profdiff *d = &r->profdiffs[i];
        char title[256], sc[32];
        snprintf(title, sizeof(title),
                 "\nProfile, %.60s: %.40s against %.40s (share of samples%s):", cell_of(r, d->c),
                 r->variants[d->v], r->variants[0], scope_words(d, sc, sizeof(sc)));
        profdiff_text(f, title, &d->d);
        creport_placement_text(f, r, d);
    }
}

void creport_print_profile_markdown(FILE *f, const struct creport *r)
{
    for (size_t i = 0; i < r->nprofdiffs; i++) {
        const struct creport_profdiff *d = &r->profdiffs[i];
        char title[256], sc[32];
        snprintf(title, sizeof(title), "\n### Profile, %.60s: %.40s against %.40s%s",
                 cell_of(r, d->c), r->variants[d->v], r->variants[0],
                 scope_words(d, sc, sizeof(sc)));
        profdiff_markdown(f, title, &d->d);
        creport_placement_markdown(f, r, d);
    }
}

json_t *creport_profile_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->nprofdiffs; i++) {
        const struct creport_profdiff *d = &r->profdiffs[i];
        json_t *o = profdiff_json(&d->d);
        json_t *rows = json_object_get(o, "functions");
        if (o && d->scope[0])
            json_object_set_new(o, "scope", json_string(d->scope));
        for (size_t k = 0; d->place && k < json_array_size(rows); k++)
            json_object_set_new(json_array_get(rows, k), "placement",
                                creport_placement_row_json(&d->place[k]));
        if (!o ||
            json_object_update_new(o, json_pack("{s:s, s:s, s:s, s:o}", "cell", r->cells[d->c].name,
                                                "variant", r->variants[d->v], "against",
                                                r->variants[0], "placement",
                                                creport_placement_files_json(r, d))) ||
            json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}
