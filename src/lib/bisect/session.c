/* A bisection's records in the results store (bisect/session.h). */
#include "bisect/session.h"
#include "util/jsonout.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

int bisect_session_create(struct store *db, const struct bisect_config *cfg, const char *mode,
                          const char *top, const char *good, const char *bad, int64_t *id,
                          char *err, size_t errlen)
{
    json_t *common = json_array();
    for (size_t i = 0; common && i < cfg->ncommon; i++)
        json_array_append_new(common, json_string(cfg->common[i]));
    json_t *j = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:i, s:i, s:i, s:f, s:f, s:o, "
        "s:b, s:b, s:f, s:f, s:o, s:o, s:o}",
        "bisect", mode, "top", top, "good", good, "bad", bad, "good_rev",
        cfg->good ? cfg->good : good, "build", str_or_null(cfg->build), "setup",
        str_or_null(cfg->setup), "runs", (int)cfg->runs, "max_runs", (int)cfg->max_runs, "warmup",
        (int)cfg->warmup, "noise", cfg->noise, "confidence", cfg->confidence, "metric",
        str_or_null(cfg->metric), "lower_is_better", cfg->lower_is_better, "direction_given",
        cfg->direction_given, "timeout", cfg->timeout, "build_timeout", cfg->build_timeout,
        "common", common ? common : json_array(), "experiment", str_or_null(cfg->experiment),
        "experiment_text", str_or_null(cfg->experiment ? cfg->experiment_text : NULL));
    char *spec = j ? jsonout_compact(j) : NULL;
    json_decref(j);
    if (!spec)
        return err_set(err, errlen, ENOMEM, "out of memory");
    int rc = store_experiment_create(db, "bisect", NULL, spec, cfg->seed, NULL, 0, id, err, errlen);
    free(spec);
    if (!rc)
        rc = store_experiment_set_status(db, *id, "running", err, errlen);
    return rc;
}

/* A string member or NULL. */
static const char *member(const json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

static int copy_hash(const json_t *j, const char *key, char out[BISECT_HASH_LEN + 1])
{
    const char *s = member(j, key);
    if (!s || strlen(s) != BISECT_HASH_LEN)
        return -EINVAL;
    strcpy(out, s);
    return 0;
}

/* The numbers of cfg from the session's JSON. */
static void load_numbers(const json_t *j, struct bisect_config *cfg)
{
    cfg->runs = (unsigned)json_integer_value(json_object_get(j, "runs"));
    cfg->max_runs = (unsigned)json_integer_value(json_object_get(j, "max_runs"));
    cfg->warmup = (unsigned)json_integer_value(json_object_get(j, "warmup"));
    cfg->noise = json_number_value(json_object_get(j, "noise"));
    cfg->confidence = json_number_value(json_object_get(j, "confidence"));
    cfg->lower_is_better = json_is_true(json_object_get(j, "lower_is_better"));
    cfg->direction_given = json_is_true(json_object_get(j, "direction_given"));
    cfg->timeout = json_number_value(json_object_get(j, "timeout"));
    cfg->build_timeout = json_number_value(json_object_get(j, "build_timeout"));
}

int bisect_session_load(struct store *db, int64_t id, struct bisect_config *cfg, json_t **keep,
                        char top[PATH_MAX], char good[BISECT_HASH_LEN + 1],
                        char bad[BISECT_HASH_LEN + 1], char *mode, size_t modelen, char *err,
                        size_t errlen)
{
    struct store_experiment x;
    char *spec = NULL;
    *keep = NULL;
    int rc = store_experiment_get(db, id, &x, &spec, NULL, err, errlen);
    if (rc)
        return rc;
    json_t *j = spec ? json_loads(spec, 0, NULL) : NULL;
    bool ok = j && !strcmp(x.name, "bisect") && member(j, "bisect") && member(j, "top") &&
              strlen(member(j, "top")) < PATH_MAX && !copy_hash(j, "good", good) &&
              !copy_hash(j, "bad", bad) && json_is_array(json_object_get(j, "common"));
    store_experiment_free(&x);
    free(spec);
    if (!ok) {
        json_decref(j);
        return err_set(err, errlen, EINVAL, "experiment %" PRId64 " is not a bisection", id);
    }
    json_t *common = json_object_get(j, "common");
    cfg->ncommon = json_array_size(common);
    cfg->common = calloc(cfg->ncommon + 1, sizeof(*cfg->common));
    if (!cfg->common) {
        json_decref(j);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < cfg->ncommon; i++)
        cfg->common[i] = (char *)json_string_value(json_array_get(common, i));
    strcpy(top, member(j, "top"));
    snprintf(mode, modelen, "%s", member(j, "bisect"));
    cfg->good = member(j, "good_rev");
    cfg->bad = bad;
    cfg->build = member(j, "build");
    cfg->setup = member(j, "setup");
    cfg->metric = member(j, "metric");
    cfg->experiment = member(j, "experiment");
    cfg->experiment_text = member(j, "experiment_text");
    load_numbers(j, cfg);
    *keep = j;
    return 0;
}

/* The sessions (experiments called "bisect"), newest first, passed to match(). */
static int sessions(struct store *db,
                    bool (*match)(struct store *, const struct store_experiment *, const void *),
                    const void *arg, int64_t *id, char *err, size_t errlen)
{
    struct store_experiment *list = NULL;
    size_t n = 0;
    *id = 0;
    int rc = store_experiment_list(db, &list, &n, err, errlen);
    for (size_t i = n; !rc && i-- > 0;)
        if (!strcmp(list[i].name, "bisect") && match(db, &list[i], arg)) {
            *id = list[i].id;
            break;
        }
    store_experiment_list_free(list, n);
    return rc;
}

static bool running(struct store *db, const struct store_experiment *x, const void *arg)
{
    (void)db;
    (void)arg;
    return !strcmp(x->status, "running");
}

int bisect_session_latest(struct store *db, int64_t *id, char *err, size_t errlen)
{
    int rc = sessions(db, running, NULL, id, err, errlen);
    if (!rc && !*id)
        rc = err_set(err, errlen, ENOENT, "no unfinished bisection in %s", store_path(db));
    return rc;
}

struct step_key {
    const char *top, *good, *bad;
};

static bool same_step_session(struct store *db, const struct store_experiment *x, const void *arg)
{
    const struct step_key *k = arg;
    char *spec = NULL, err[NB_ERRLEN];
    struct store_experiment y;
    if (store_experiment_get(db, x->id, &y, &spec, NULL, err, sizeof(err)))
        return false;
    store_experiment_free(&y);
    json_t *j = spec ? json_loads(spec, 0, NULL) : NULL;
    free(spec);
    bool same = j && member(j, "bisect") && !strcmp(member(j, "bisect"), "step") &&
                member(j, "top") && !strcmp(member(j, "top"), k->top) && member(j, "good") &&
                !strcmp(member(j, "good"), k->good) && member(j, "bad") &&
                !strcmp(member(j, "bad"), k->bad);
    json_decref(j);
    return same;
}

int bisect_session_find_step(struct store *db, const char *top, const char *good, const char *bad,
                             int64_t *id, char *err, size_t errlen)
{
    struct step_key k = {top, good, bad};
    return sessions(db, same_step_session, &k, id, err, errlen);
}

/* Parses "bisect SID refs" or "bisect SID step K HASH" into r; false for other names. */
static bool parse_name(const char *name, int64_t sid, struct bisect_record *r)
{
    char prefix[64];
    int n = snprintf(prefix, sizeof(prefix), "bisect %" PRId64 " ", sid);
    if (strncmp(name, prefix, (size_t)n))
        return false;
    name += n;
    if (!strcmp(name, "refs")) {
        r->refs = true;
        return true;
    }
    char hash[BISECT_HASH_LEN + 2];
    int used = 0;
    if (sscanf(name, "step %d %41s%n", &r->k, hash, &used) != 2 || name[used] ||
        strlen(hash) != BISECT_HASH_LEN || r->k < 1)
        return false;
    strcpy(r->hash, hash);
    return true;
}

int bisect_session_records(struct store *db, int64_t sid, struct bisect_record **out, size_t *n,
                           char *err, size_t errlen)
{
    struct store_experiment *list = NULL;
    size_t nl = 0;
    *out = NULL;
    *n = 0;
    int rc = store_experiment_list(db, &list, &nl, err, errlen);
    if (!rc && nl && !(*out = calloc(nl, sizeof(**out))))
        rc = err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < nl; i++) {
        struct bisect_record r = {.id = list[i].id};
        if (!parse_name(list[i].name, sid, &r))
            continue;
        r.done = !strcmp(list[i].status, "done");
        r.build_failed = !strcmp(list[i].status, "failed") && list[i].planned == 0;
        r.lost = !strcmp(list[i].status, "failed") && list[i].planned > 0;
        (*out)[(*n)++] = r;
    }
    store_experiment_list_free(list, nl);
    return rc;
}

int bisect_experiment_by_name(struct store *db, const char *name, int64_t *id, char *err,
                              size_t errlen)
{
    struct store_experiment *list = NULL;
    size_t n = 0;
    *id = 0;
    int rc = store_experiment_list(db, &list, &n, err, errlen);
    for (size_t i = n; !rc && i-- > 0;)
        if (!strcmp(list[i].name, name)) {
            *id = list[i].id;
            break;
        }
    store_experiment_list_free(list, n);
    return rc;
}

int bisect_record_build_failure(struct store *db, int64_t sid, int k, const char *hash,
                                const char *why, char *err, size_t errlen)
{
    char name[128];
    snprintf(name, sizeof(name), "bisect %" PRId64 " step %d %s", sid, k, hash);
    json_t *j = json_pack("{s:s}", "build_failed", why);
    char *spec = j ? jsonout_compact(j) : NULL;
    json_decref(j);
    if (!spec)
        return err_set(err, errlen, ENOMEM, "out of memory");
    int64_t id;
    int rc = store_experiment_create(db, name, NULL, spec, 0, NULL, 0, &id, err, errlen);
    free(spec);
    if (!rc)
        rc = store_experiment_set_status(db, id, "failed", err, errlen);
    return rc;
}

void bisect_build_failure_reason(struct store *db, int64_t id, char *buf, size_t len)
{
    struct store_experiment x;
    char *spec = NULL, err[NB_ERRLEN];
    snprintf(buf, len, "the build failed");
    if (store_experiment_get(db, id, &x, &spec, NULL, err, sizeof(err)))
        return;
    store_experiment_free(&x);
    json_t *j = spec ? json_loads(spec, 0, NULL) : NULL;
    const char *why = member(j, "build_failed");
    if (why)
        snprintf(buf, len, "%s", why);
    json_decref(j);
    free(spec);
}
