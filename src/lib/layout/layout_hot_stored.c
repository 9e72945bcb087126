/*
 * `netab layout --hot-from RUN.json|EXPERIMENT[:VARIANT]`: the hot set from
 * the profiles of a run document's file or of a stored experiment's ok
 * runs (layout_hot.h). The one part of layout/ that reads the store.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "layout/layout_hot.h"
#include "store/store_docs.h"

int layout_hot_from(const char *ref, const char *db_path, double min_share, struct layout_hot *hot,
                    char *err, size_t errlen)
{
    struct stat st;
    if (stat(ref, &st) == 0)
        return layout_hot_from_file(ref, min_share, hot, err, errlen);
    int64_t id;
    const char *variant;
    if (store_docs_parse_ref(ref, &id, &variant))
        return err_set(err, errlen, EINVAL,
                       "--hot-from: '%s' is neither a file nor EXPERIMENT[:VARIANT]", ref);
    char why[NB_ERRLEN * 2];
    json_t **docs = NULL;
    size_t n = 0;
    int rc = store_docs_ok_runs_at(db_path, id, variant, &docs, &n, err, errlen);
    if (rc == -ENODATA) {
        snprintf(why, sizeof(why), "%s", err);
        err_set(err, errlen, EINVAL, "--hot-from %s: %s", ref, why);
    } else if (!rc) {
        rc = layout_hot_from_profiles((const json_t *const *)docs, n, min_share, hot, err, errlen);
    }
    store_docs_free(docs, n);
    return rc;
}
