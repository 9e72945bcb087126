#include "report/env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "envcap/envcap.h"
#include "util/jsonout.h"

/*
 * Grows list (n elements of sz bytes) by one zeroed element: sets *out to
 * the new list and returns the new element, or NULL (list kept) when out of memory.
 */
static void *grow(void *list, size_t n, size_t sz, void **out)
{
    char *p = realloc(list, (n + 1) * sz);
    if (!p)
        return NULL;
    memset(p + n * sz, 0, sz);
    *out = p;
    return p + n * sz;
}

/* v from an env_diff() leaf j (NULL: absent). Returns 0 or -ENOMEM. */
static int value_of(struct creport_env_value *v, const json_t *j)
{
    static const enum creport_env_kind kinds[] = {
        [JSON_OBJECT] = CREPORT_ENV_OBJECT, [JSON_ARRAY] = CREPORT_ENV_ARRAY,
        [JSON_STRING] = CREPORT_ENV_STRING, [JSON_INTEGER] = CREPORT_ENV_INT,
        [JSON_REAL] = CREPORT_ENV_REAL,     [JSON_TRUE] = CREPORT_ENV_TRUE,
        [JSON_FALSE] = CREPORT_ENV_FALSE,   [JSON_NULL] = CREPORT_ENV_NULL,
    };
    if (!j)
        j = json_null();
    v->kind = kinds[json_typeof(j)];
    v->i = json_integer_value(j);
    v->d = json_real_value(j);
    if (json_is_string(j) && !(v->s = strdup(json_string_value(j))))
        return -ENOMEM;
    return (v->shown = jsonout_compact(j)) ? 0 : -ENOMEM;
}

/* The JSON of v: a leaf as env_diff() gave it, or NULL when out of memory. */
static json_t *value_json(const struct creport_env_value *v)
{
    switch (v->kind) {
    case CREPORT_ENV_FALSE:
        return json_false();
    case CREPORT_ENV_TRUE:
        return json_true();
    case CREPORT_ENV_INT:
        return json_integer(v->i);
    case CREPORT_ENV_REAL:
        return json_real(v->d);
    case CREPORT_ENV_STRING:
        return json_string(v->s);
    case CREPORT_ENV_OBJECT:
        return json_object();
    case CREPORT_ENV_ARRAY:
        return json_array();
    case CREPORT_ENV_NULL:
        break;
    }
    return json_null();
}

int creport_env_add_facts(struct creport_env_diff *d, const json_t *rows)
{
    size_t i;
    const json_t *x;
    json_array_foreach(rows, i, x)
    {
        void *list;
        struct creport_env_fact *f =
            grow(d->differences, d->ndifferences, sizeof(*d->differences), &list);
        if (!f)
            return -ENOMEM;
        d->differences = list;
        d->ndifferences++;
        const char *path = json_string_value(json_object_get(x, "path"));
        if (!(f->path = strdup(path ? path : "")) ||
            value_of(&f->baseline, json_object_get(x, "a")) ||
            value_of(&f->variant, json_object_get(x, "b")))
            return -ENOMEM;
    }
    return 0;
}

/* Appends a copy of s to *list (*n strings). Returns 0 or -ENOMEM. */
static int add_string(char ***list, size_t *n, const char *s)
{
    void *p;
    char **at = grow(*list, *n, sizeof(**list), &p);
    if (!at)
        return -ENOMEM;
    *list = p;
    (*n)++;
    return (*at = strdup(s)) ? 0 : -ENOMEM;
}

int creport_env_add_strings(char ***list, size_t *n, const json_t *strings)
{
    size_t i;
    const json_t *x;
    int e = 0;
    json_array_foreach(strings, i, x)
    {
        if (!e)
            e = add_string(list, n, json_string_value(x) ? json_string_value(x) : "");
    }
    return e;
}

int creport_env_warn(struct creport *r, const char *sentence)
{
    return add_string(&r->env_warnings, &r->nenv_warnings, sentence);
}

/* The diff of variant v's snapshot env against the baseline's base (runs ids[0], ids[v]). */
static int diff_one(struct creport *r, size_t v, const json_t *base, const json_t *env,
                    const int64_t *ids)
{
    void *list;
    struct creport_env_diff *d = grow(r->env_diffs, r->nenv_diffs, sizeof(*d), &list);
    if (!d)
        return -ENOMEM;
    r->env_diffs = list;
    r->nenv_diffs++;
    d->baseline_run = ids[0];
    d->run = ids[v];
    json_t *rows = env_diff(base, env);
    int e = rows && (d->variant = strdup(r->variants[v])) && (d->against = strdup(r->variants[0]))
                ? creport_env_add_facts(d, rows)
                : -ENOMEM;
    json_decref(rows);
    return e;
}

int creport_env_differences(struct creport *r, const struct creport_placed *p, size_t n)
{
    json_t **env = calloc(r->nvariants ? r->nvariants : 1, sizeof(*env));
    int64_t *ids = calloc(r->nvariants ? r->nvariants : 1, sizeof(*ids));
    int e = env && ids ? 0 : -ENOMEM;
    for (size_t k = 0; !e && k < n; k++)
        if (!env[p[k].v] && p[k].doc->run->env_json) {
            env[p[k].v] = p[k].doc->env;
            ids[p[k].v] = p[k].doc->run->id;
        }
    for (size_t v = 1; !e && v < r->nvariants; v++)
        if (env[0] && env[v])
            e = diff_one(r, v, env[0], env[v], ids);
    free(env);
    free(ids);
    return e;
}

int creport_env_warnings(struct creport *r, const struct creport_rundoc *docs, size_t nruns)
{
    const json_t **envs = calloc(nruns ? nruns : 1, sizeof(*envs));
    if (!envs)
        return -ENOMEM;
    for (size_t k = 0; k < nruns; k++)
        envs[k] = docs[k].env;
    json_t *w = env_warnings_summary(envs, nruns);
    json_t *b = env_warnings_summary_by_name(envs, nruns);
    free(envs);
    int e = w && b ? creport_env_add_strings(&r->env_warnings, &r->nenv_warnings, w) : -ENOMEM;
    if (!e)
        e = creport_env_add_strings(&r->env_by_name, &r->nenv_by_name, b);
    json_decref(w);
    json_decref(b);
    return e;
}

/* A new JSON array of the strings s[0..n), or NULL when out of memory. */
static json_t *strings_json(char *const *s, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(s[i]))) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* The env_differences entry of d, keys in the order the report has always written them. */
static json_t *diff_json(const struct creport_env_diff *d)
{
    json_t *o = json_object(), *rows = json_array();
    int e = o && rows ? 0 : -1;
    for (size_t i = 0; !e && i < d->ndifferences; i++) {
        const struct creport_env_fact *f = &d->differences[i];
        json_t *x = json_object();
        e = x ? 0 : -1;
        e |= json_object_set_new(x, "path", json_string(f->path));
        e |= json_object_set_new(x, "a", value_json(&f->baseline));
        e |= json_object_set_new(x, "b", value_json(&f->variant));
        e |= json_array_append_new(rows, x);
    }
    e |= json_object_set_new(o, "variant", json_string(d->variant));
    e |= json_object_set_new(o, "against", json_string(d->against));
    e |= json_object_set_new(o, "baseline_run", json_integer((json_int_t)d->baseline_run));
    e |= json_object_set_new(o, "run", json_integer((json_int_t)d->run));
    e |= json_object_set_new(o, "differences", rows);
    e |= json_object_set_new(o, "identity_notes",
                             strings_json(d->identity_notes, d->nidentity_notes));
    if (e) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *creport_env_diffs_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->nenv_diffs; i++)
        if (json_array_append_new(a, diff_json(&r->env_diffs[i]))) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

json_t *creport_env_warnings_json(const struct creport *r)
{
    return strings_json(r->env_warnings, r->nenv_warnings);
}

static void free_value(struct creport_env_value *v)
{
    free(v->s);
    free(v->shown);
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

void creport_env_free(struct creport *r)
{
    for (size_t i = 0; r->env_diffs && i < r->nenv_diffs; i++) {
        struct creport_env_diff *d = &r->env_diffs[i];
        for (size_t k = 0; d->differences && k < d->ndifferences; k++) {
            free(d->differences[k].path);
            free_value(&d->differences[k].baseline);
            free_value(&d->differences[k].variant);
        }
        free(d->differences);
        free_strings(d->identity_notes, d->nidentity_notes);
        free(d->variant);
        free(d->against);
    }
    free(r->env_diffs);
    free_strings(r->env_warnings, r->nenv_warnings);
    free_strings(r->env_by_name, r->nenv_by_name);
}
