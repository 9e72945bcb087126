#include "creport/campaign_report_codelayout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "layout/layout_report.h"

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
    size_t n = json_array_size(r->layout_hot);
    if (!n)
        return 0;
    const char **pats = calloc(n, sizeof(*pats));
    if (!pats)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        pats[i] = json_string_value(json_array_get(r->layout_hot, i));
    int e = layout_hot_from_patterns(pats, n, LAYOUT_HOT_EXPERIMENT, own, err, errlen);
    free(pats);
    if (!e)
        *hot = own;
    return e;
}

int creport_code_layout(struct creport *r)
{
    bool any = false;
    for (size_t v = 1; v < r->nvariants; v++)
        any |= r->layouts[v] != NULL;
    if (!any)
        return 0;
    json_t *arr = json_array();
    if (!arr)
        return -ENOMEM;
    struct layout_hot own = {0};
    const struct layout_hot *hot;
    char herr[NB_ERRLEN * 2] = "";
    int e = section_hot(r, &own, &hot, herr, sizeof(herr));
    bool hot_bad = e == -EINVAL;
    e = hot_bad ? 0 : e;
    for (size_t v = 1; v < r->nvariants && !e; v++) {
        if (!r->layouts[v])
            continue;
        char err[NB_ERRLEN * 2] = "";
        json_t *sum = NULL;
        if (!r->layouts[0])
            snprintf(err, sizeof(err), "the baseline '%s' names no layout file", r->variants[0]);
        else if (hot_bad)
            snprintf(err, sizeof(err), "layout: hot: %.400s", herr);
        else
            sum = layout_compare_files(r->layouts[0], r->layouts[v], hot, 64, err, sizeof(err));
        json_t *x =
            json_pack("{s:s, s:s, s:s, s:s?, s:o, s:s?}", "variant", r->variants[v], "against",
                      r->variants[0], "file", r->layouts[v], "baseline_file", r->layouts[0],
                      "summary", sum ? sum : json_null(), "error", sum ? NULL : err);
        e = json_array_append_new(arr, x) ? -ENOMEM : 0;
    }
    layout_hot_free(&own);
    if (e) {
        json_decref(arr);
        return e;
    }
    r->layout = arr;
    return 0;
}
