/*
 * The warm-up flag and round of a campaign run (its plan row) and the build
 * identities of both ends (its stored documents), for `netab runs list`
 * and `runs export` (docs/store.md). Read from what is stored already: no
 * schema change.
 */
#include "store/store_runinfo.h"
#include "util/jsonout.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One run's facts: its plan row and the documents the identities come from,
 * read whole and picked apart here (portable SQL; a document stored as is,
 * not JSON, gives no identity instead of failing the listing).
 */
#define RUNINFO_SQL                                                                                \
    "SELECT CASE WHEN p.seq IS NULL THEN 0 ELSE 1 END, p.warmup, p.round, r.env_json, "            \
    "r.result_json "                                                                               \
    "FROM runs r LEFT JOIN plan p ON p.experiment_id = r.experiment_id AND p.seq = r.seq "         \
    "WHERE r.id = ?"

/* The object at a dotted path of the JSON text, as compact JSON text, or NULL. */
static char *object_at(const char *text, const char *path, bool *oom)
{
    json_t *doc = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
    json_t *v = doc;
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
        v = json_is_object(v) ? json_object_get(v, k) : NULL;
    char *out = NULL;
    if (json_is_object(v)) {
        out = jsonout_compact(v);
        if (!out)
            *oom = true;
    }
    json_decref(doc);
    return out;
}

int store_runinfo_fill(struct store *s, struct store_run *runs, size_t n, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s, RUNINFO_SQL, &st, err, errlen);
    if (e)
        return e;
    for (size_t i = 0; !e && i < n; i++) {
        struct store_run *r = &runs[i];
        bool oom = false;
        sqldb_reset(st);
        sqldb_bind_int64(st, 1, r->id);
        int rc = sqldb_step(st);
        if (rc == SQLDB_ROW) {
            r->has_plan = sqldb_column_int(st, 0) != 0;
            r->warmup = sqldb_column_int(st, 1) != 0;
            r->round = sqldb_column_int(st, 2);
            const char *env = sqldb_column_text(st, 3), *res = sqldb_column_text(st, 4);
            r->identity_local = object_at(env, "identity", &oom);
            if (!r->identity_local)
                r->identity_local = object_at(res, "host.local.identity", &oom);
            r->identity_remote = object_at(res, "host.remote.identity", &oom);
        } else if (rc != SQLDB_DONE) {
            e = store_db_err(s, rc, "reading a run's plan row and identities", err, errlen);
        }
        if (!e && oom)
            e = err_set(err, errlen, ENOMEM, "out of memory reading run %lld", (long long)r->id);
    }
    sqldb_finalize(st);
    return e;
}

static json_t *doc_or_null(const char *text)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    return v ? v : json_null();
}

void store_runinfo_json(const struct store_run *r, json_t *o)
{
    json_object_set_new(o, "warmup", r->has_plan ? json_boolean(r->warmup) : json_null());
    json_object_set_new(o, "round", r->has_plan ? json_integer(r->round) : json_null());
    json_object_set_new(o, "identity",
                        json_pack("{s:o, s:o}", "local", doc_or_null(r->identity_local), "remote",
                                  doc_or_null(r->identity_remote)));
}

void store_runinfo_csv_head(struct csv *w)
{
    static const char *const head[] = {"warmup",         "round",          "local_release",
                                       "local_build_id", "remote_release", "remote_build_id"};
    for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
        csv_text(w, head[i]);
}

/* The release and build ID of an identity's JSON text, as CSV fields (empty when unknown). */
static void identity_fields(struct csv *w, const char *text)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    csv_text(w, json_string_value(json_object_get(v, "release")));
    csv_text(w, json_string_value(json_object_get(v, "build_id")));
    json_decref(v);
}

void store_runinfo_csv(struct csv *w, const struct store_run *r)
{
    if (r->has_plan) {
        csv_integer(w, r->warmup);
        csv_integer(w, r->round);
    } else {
        csv_empty(w);
        csv_empty(w);
    }
    identity_fields(w, r->identity_local);
    identity_fields(w, r->identity_remote);
}
