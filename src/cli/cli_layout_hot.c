/*
 * `netab layout --hot-from RUN.json | EXPERIMENT[:VARIANT]`: the hot set from
 * sampled profiles, of one `netab run --profile --json` document or of an
 * experiment's stored runs (those of one variant, or all).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_layout_hot.h"
#include "store/store.h"

/* Functions with less than this share of all samples are not hot. */
#define MIN_SHARE_PCT 0.5

static int from_file(const char *path, struct layout_hot *hot, char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        return err_set(err, errlen, EINVAL, "--hot-from %s: not a JSON run document: %s (line %d)",
                       path, je.text, je.line);
    const json_t *docs[1] = {doc};
    int rc = layout_hot_from_profiles(docs, 1, MIN_SHARE_PCT, hot, err, errlen);
    json_decref(doc);
    return rc;
}

/* "12" or "12:patched" into an id and a variant (NULL: every variant). */
static int parse_ref(const char *arg, long long *id, const char **variant)
{
    char *end;
    errno = 0;
    *id = strtoll(arg, &end, 10);
    if (errno || end == arg || *id <= 0 || (*end && *end != ':') || (*end == ':' && !end[1]))
        return -EINVAL;
    *variant = *end == ':' ? end + 1 : NULL;
    return 0;
}

static int from_store(const char *arg, const char *db_path, struct layout_hot *hot, char *err,
                      size_t errlen)
{
    long long id;
    const char *variant;
    if (parse_ref(arg, &id, &variant))
        return err_set(err, errlen, EINVAL,
                       "--hot-from: '%s' is neither a file nor EXPERIMENT[:VARIANT]", arg);
    char path[4096];
    struct store *db = NULL;
    struct store_run *runs = NULL;
    size_t n = 0, ndocs = 0;
    json_t **docs = NULL;
    int rc = store_default_path(db_path, path, sizeof(path), err, errlen);
    if (!rc)
        rc = store_open(path, STORE_OPEN_READONLY, &db, err, errlen);
    if (!rc)
        rc = store_run_list(db, (int64_t)id, true, &runs, &n, err, errlen);
    if (!rc && !(docs = calloc(n ? n : 1, sizeof(*docs))))
        rc = -ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        const struct store_run *r = &runs[i];
        if (r->status != STORE_RUN_OK || !r->result_json ||
            (variant && (!r->variant || strcmp(r->variant, variant))))
            continue;
        if ((docs[ndocs] = json_loads(r->result_json, 0, NULL)))
            ndocs++;
    }
    if (!rc && !ndocs)
        rc = err_set(err, errlen, EINVAL, "--hot-from %s: experiment %lld has no ok run%s%s", arg,
                     id, variant ? " of variant " : "", variant ? variant : "");
    if (!rc)
        rc = layout_hot_from_profiles((const json_t *const *)docs, ndocs, MIN_SHARE_PCT, hot, err,
                                      errlen);
    for (size_t i = 0; i < ndocs; i++)
        json_decref(docs[i]);
    free(docs);
    store_run_list_free(runs, n);
    store_close(db);
    return rc;
}

int cli_layout_hot_from(const char *arg, const char *db, struct layout_hot *hot, char *err,
                        size_t errlen)
{
    struct stat st;
    if (stat(arg, &st) == 0)
        return from_file(arg, hot, err, errlen);
    return from_store(arg, db, hot, err, errlen);
}
