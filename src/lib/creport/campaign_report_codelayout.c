#include "creport/campaign_report_codelayout.h"

#include <errno.h>
#include <stdio.h>

#include "layout/layout_report.h"

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
    int e = 0;
    for (size_t v = 1; v < r->nvariants && !e; v++) {
        if (!r->layouts[v])
            continue;
        char err[NB_ERRLEN * 2] = "";
        json_t *sum = NULL;
        if (!r->layouts[0])
            snprintf(err, sizeof(err), "the baseline '%s' names no layout file", r->variants[0]);
        else
            sum = layout_compare_files(r->layouts[0], r->layouts[v], 64, err, sizeof(err));
        json_t *x =
            json_pack("{s:s, s:s, s:s, s:s?, s:o, s:s?}", "variant", r->variants[v], "against",
                      r->variants[0], "file", r->layouts[v], "baseline_file", r->layouts[0],
                      "summary", sum ? sum : json_null(), "error", sum ? NULL : err);
        e = json_array_append_new(arr, x) ? -ENOMEM : 0;
    }
    if (e) {
        json_decref(arr);
        return e;
    }
    r->layout = arr;
    return 0;
}
