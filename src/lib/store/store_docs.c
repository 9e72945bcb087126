/*
 * The result documents of an experiment's ok runs, through
 * store_run_list(): no SQL of its own. Moved from the CLI
 * (the former cli_layout_hot.c).
 */
#include "store/store_docs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void store_docs_free(json_t **docs, size_t n)
{
    for (size_t i = 0; docs && i < n; i++)
        json_decref(docs[i]);
    free(docs);
}

int store_docs_ok_runs(struct store *db, int64_t experiment, const char *variant, json_t ***docs,
                       size_t *n, char *err, size_t errlen)
{
    struct store_run *runs = NULL;
    size_t nruns = 0, ndocs = 0;
    json_t **d = NULL;
    int rc = store_run_list(db, experiment, true, &runs, &nruns, err, errlen);
    if (!rc && !(d = calloc(nruns ? nruns : 1, sizeof(*d))))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < nruns; i++) {
        const struct store_run *r = &runs[i];
        if (r->status != STORE_RUN_OK || !r->result_json ||
            (variant && (!r->variant || strcmp(r->variant, variant))))
            continue;
        if ((d[ndocs] = json_loads(r->result_json, 0, NULL)))
            ndocs++;
    }
    if (!rc && !ndocs)
        rc = err_set(err, errlen, ENODATA, "experiment %lld has no ok run%s%s",
                     (long long)experiment, variant ? " of variant " : "", variant ? variant : "");
    store_run_list_free(runs, nruns);
    if (rc) {
        store_docs_free(d, ndocs);
        return rc;
    }
    *docs = d;
    *n = ndocs;
    return 0;
}

int store_docs_ok_runs_at(const char *db_path, int64_t experiment, const char *variant,
                          json_t ***docs, size_t *n, char *err, size_t errlen)
{
    struct store *db = NULL;
    *docs = NULL;
    *n = 0;
    int rc = store_open_default(db_path, STORE_OPEN_READONLY, &db, err, errlen);
    if (!rc)
        rc = store_docs_ok_runs(db, experiment, variant, docs, n, err, errlen);
    store_close(db);
    return rc;
}

int store_docs_parse_ref(const char *ref, int64_t *id, const char **variant)
{
    char *end;
    errno = 0;
    long long v = strtoll(ref, &end, 10);
    if (errno || end == ref || v <= 0 || (*end && *end != ':') || (*end == ':' && !end[1]))
        return -EINVAL;
    *id = v;
    *variant = *end == ':' ? end + 1 : NULL;
    return 0;
}
