/* The hot set from sampled profiles (netab run --profile documents): --hot-from. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_hot.h"

/* Adds n samples of sym to sums ({base name: samples}). */
static void add_samples(json_t *sums, const char *sym, json_int_t n)
{
    /* Unnamed samples, and names no layout table can hold, are no help. */
    if (!sym || !*sym || strpbrk(sym, "[]*?,\t ") || n <= 0)
        return;
    char base[256];
    snprintf(base, sizeof(base), "%s", sym);
    /* "ip_rcv_core.isra.0" is ip_rcv_core's clone: match it as layout_hot_match() does. */
    char *dot = strchr(base, '.');
    if (dot && !strstr(base, ".cold"))
        *dot = '\0';
    json_t *had = json_object_get(sums, base);
    json_object_set_new(sums, base, json_integer((had ? json_integer_value(had) : 0) + n));
}

/*
 * Adds one profile's functions to sums: every function of its full list
 * ("full", measure/profile.h) when it has one, else its top functions.
 * Returns the profile's samples.
 */
static json_int_t add_profile(const json_t *p, json_t *sums)
{
    const json_t *mods = json_object_get(json_object_get(p, "full"), "functions");
    if (json_is_object(mods)) {
        const char *mod, *sym;
        json_t *m, *n;
        json_object_foreach((json_t *)mods, mod, m)
        {
            json_object_foreach(m, sym, n) add_samples(sums, sym, json_integer_value(n));
        }
    } else {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(p, "functions"), i, f)
        {
            add_samples(sums, json_string_value(json_object_get(f, "symbol")),
                        json_integer_value(json_object_get(f, "samples")));
        }
    }
    return json_integer_value(json_object_get(p, "samples"));
}

int layout_hot_from_profiles(const json_t *const *docs, size_t n, double min_share,
                             struct layout_hot *hot, char *err, size_t errlen)
{
    json_t *sums = json_object();
    json_int_t total = 0;
    size_t profiles = 0;
    if (!sums)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *both = json_object_get(json_object_get(docs[i], "end"), "profile");
        const char *side;
        json_t *p;
        json_object_foreach(both, side, p)
        {
            if (json_is_object(p) && json_object_get(p, "functions")) {
                total += add_profile(p, sums);
                profiles++;
            }
        }
    }
    /* The functions with at least min_share of all samples, as a comma list. */
    size_t cap = 1, len = 0;
    const char *name;
    json_t *v;
    json_object_foreach(sums, name, v) cap += strlen(name) + 1;
    char *list = calloc(cap, 1);
    int rc = list ? 0 : -ENOMEM;
    json_object_foreach(sums, name, v)
    {
        if (rc || !total || 100.0 * (double)json_integer_value(v) / (double)total < min_share)
            continue;
        len += (size_t)snprintf(list + len, cap - len, "%s%s", len ? "," : "", name);
    }
    json_decref(sums);
    if (!rc && !profiles)
        rc = err_set(err, errlen, EINVAL,
                     "no sampled profile in the runs given (run them with --profile, or "
                     "profile: true in the experiment file)");
    else if (!rc && !len)
        rc =
            err_set(err, errlen, EINVAL,
                    "the profiles name no function with at least %.2g%% of the samples", min_share);
    if (!rc)
        rc = layout_hot_parse_list(list, hot, err, errlen);
    if (!rc)
        hot->kind = LAYOUT_HOT_PROFILE;
    free(list);
    return rc;
}

int layout_hot_from_file(const char *path, double min_share, struct layout_hot *hot, char *err,
                         size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        return err_set(err, errlen, EINVAL, "--hot-from %s: not a JSON run document: %s (line %d)",
                       path, je.text, je.line);
    const json_t *docs[1] = {doc};
    int rc = layout_hot_from_profiles(docs, 1, min_share, hot, err, errlen);
    json_decref(doc);
    return rc;
}
