#include "report/codelayout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_report.h"
#include "metric/spec.h"

int creport_layout_hot_read(struct creport *r, const json_t *spec)
{
    size_t n = spec_layout_hot_count(spec);
    if (n && !(r->layout_hot = calloc(n, sizeof(*r->layout_hot))))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *pat = spec_layout_hot(spec, i);
        if (pat && !(r->layout_hot[r->nlayout_hot++] = strdup(pat)))
            return -ENOMEM;
    }
    return 0;
}

void creport_layout_hot_free(struct creport *r)
{
    for (size_t i = 0; i < r->nlayout_hot; i++)
        free(r->layout_hot[i]);
    free(r->layout_hot);
    r->layout_hot = NULL;
    r->nlayout_hot = 0;
}

/*
 * The hot set of the section: --hot's when given, else the experiment's
 * `layout: {hot: [...]}`, else none (NULL: layout_compare_files() takes the
 * built-in one). Returns 0, -ENOMEM, or -EINVAL with err naming a stored
 * pattern that is not one (a spec from elsewhere: validate checks files).
 */
static int section_hot(const struct creport *r, struct layout_hot *own,
                       const struct layout_hot **hot, char *err, size_t errlen)
{
    *hot = NULL;
    if (layout_hot_given(&r->opts.hot)) {
        *hot = &r->opts.hot;
        return 0;
    }
    if (!r->nlayout_hot)
        return 0;
    int e = layout_hot_from_patterns((const char *const *)r->layout_hot, r->nlayout_hot,
                                     LAYOUT_HOT_EXPERIMENT, own, err, errlen);
    if (!e)
        *hot = own;
    return e;
}

/* Variant v's row: its file compared with the baseline's, or why not. 0 or -ENOMEM. */
static int compare_one(const struct creport *r, size_t v, const struct layout_hot *hot,
                       bool hot_bad, const char *herr, struct creport_codelayout *x)
{
    char err[NB_ERRLEN * 2] = "";
    if (!r->layouts[0])
        snprintf(err, sizeof(err), "the baseline '%s' names no layout file", r->variants[0]);
    else if (hot_bad)
        snprintf(err, sizeof(err), "layout: hot: %.400s", herr);
    else
        x->compared =
            !layout_compare_files(r->layouts[0], r->layouts[v], hot, 64, &x->sum, err, sizeof(err));
    x->variant = strdup(r->variants[v]);
    x->against = strdup(r->variants[0]);
    x->file = strdup(r->layouts[v]);
    x->baseline_file = r->layouts[0] ? strdup(r->layouts[0]) : NULL;
    x->error = x->compared ? NULL : strdup(err);
    return x->variant && x->against && x->file && (x->baseline_file || !r->layouts[0]) &&
                   (x->compared || x->error)
               ? 0
               : -ENOMEM;
}

int creport_code_layout(struct creport *r)
{
    size_t n = 0;
    for (size_t v = 1; v < r->nvariants; v++)
        n += r->layouts[v] != NULL;
    if (!n)
        return 0;
    if (!(r->layout = calloc(n, sizeof(*r->layout))))
        return -ENOMEM;
    struct layout_hot own = {0};
    const struct layout_hot *hot;
    char herr[NB_ERRLEN * 2] = "";
    int e = section_hot(r, &own, &hot, herr, sizeof(herr));
    bool hot_bad = e == -EINVAL;
    e = hot_bad ? 0 : e;
    for (size_t v = 1; v < r->nvariants && !e; v++)
        if (r->layouts[v])
            e = compare_one(r, v, hot, hot_bad, herr, &r->layout[r->nlayout++]);
    layout_hot_free(&own);
    if (e)
        creport_code_layout_free(r);
    return e;
}

void creport_code_layout_free(struct creport *r)
{
    for (size_t i = 0; i < r->nlayout; i++) {
        struct creport_codelayout *x = &r->layout[i];
        free(x->variant);
        free(x->against);
        free(x->file);
        free(x->baseline_file);
        free(x->error);
        layout_summary_free(&x->sum);
    }
    free(r->layout);
    r->layout = NULL;
    r->nlayout = 0;
}

json_t *creport_code_layout_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->nlayout; i++) {
        const struct creport_codelayout *x = &r->layout[i];
        json_t *sum = x->compared ? layout_summary_to_json(&x->sum) : json_null();
        if (json_array_append_new(a, sum ? json_pack("{s:s, s:s, s:s, s:s?, s:o, s:s?}", "variant",
                                                     x->variant, "against", x->against, "file",
                                                     x->file, "baseline_file", x->baseline_file,
                                                     "summary", sum, "error", x->error)
                                         : NULL)) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}
