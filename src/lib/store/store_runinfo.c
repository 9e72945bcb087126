/*
 * The warm-up flag and round of a campaign run (its plan row) and the build
 * identities of both ends (its stored documents), for `netab runs list`
 * and `runs export` (docs/store.md). Read from what is stored already: no
 * schema change.
 */
#include "store/store_runinfo.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

/*
 * One run's facts. json_extract() of an object gives its JSON text; the
 * json_valid() guards keep a document stored as is (not JSON) from failing
 * the whole listing.
 */
#define RUNINFO_SQL                                                                                \
    "SELECT p.seq IS NOT NULL, p.warmup, p.round, "                                                \
    "COALESCE(CASE WHEN json_valid(r.env_json) THEN json_extract(r.env_json, '$.identity') END, "  \
    "CASE WHEN json_valid(r.result_json) THEN json_extract(r.result_json, "                        \
    "'$.host.local.identity') END), "                                                              \
    "CASE WHEN json_valid(r.result_json) THEN json_extract(r.result_json, "                        \
    "'$.host.remote.identity') END "                                                               \
    "FROM runs r LEFT JOIN plan p ON p.experiment_id = r.experiment_id AND p.seq = r.seq "         \
    "WHERE r.id = ?"

/* Column i as JSON text of an object, or NULL (SQL NULL or not an object). */
static char *object_text(sqlite3_stmt *st, int i, bool *oom)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    json_t *v = t ? json_loads(t, 0, NULL) : NULL;
    char *out = NULL;
    if (json_is_object(v)) {
        out = json_dumps(v, JSON_COMPACT);
        if (!out)
            *oom = true;
    }
    json_decref(v);
    return out;
}

int store_runinfo_fill(struct store *s, struct store_run *runs, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int e = store_prepare(s, RUNINFO_SQL, &st, err, errlen);
    if (e)
        return e;
    for (size_t i = 0; !e && i < n; i++) {
        struct store_run *r = &runs[i];
        bool oom = false;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, r->id);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            r->has_plan = sqlite3_column_int(st, 0) != 0;
            r->warmup = sqlite3_column_int(st, 1) != 0;
            r->round = sqlite3_column_int(st, 2);
            r->identity_local = object_text(st, 3, &oom);
            r->identity_remote = object_text(st, 4, &oom);
        } else if (rc != SQLITE_DONE) {
            e = store_sqlite_err(s, rc, "reading a run's plan row and identities", err, errlen);
        }
        if (!e && oom)
            e = err_set(err, errlen, ENOMEM, "out of memory reading run %lld", (long long)r->id);
    }
    sqlite3_finalize(st);
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
