/*
 * Recording runs of other tools (store_import.h): the experiment they go
 * into, one plan entry and one ok run row each, in a single transaction.
 */
#include "store/store_import.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "metric/spec.h"
#include "store/store_priv.h"
#include "util/jsonout.h"

#define WHAT "importing runs"

/* True when s is a positive decimal id. */
static bool is_id(const char *s)
{
    return s && *s && strspn(s, "0123456789") == strlen(s) && strtoll(s, NULL, 10) > 0;
}

/* The spec_json of experiment id into *spec (may be NULL); -ENOENT if there is none. */
static int get_spec(struct store *s, int64_t id, char **spec, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s, "SELECT spec_json FROM experiments WHERE id = ?", &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, id);
    int rc = sqldb_step(st);
    bool oom = false;
    *spec = NULL;
    if (rc == SQLDB_ROW)
        *spec = store_col_text(st, 0, &oom);
    else if (rc == SQLDB_DONE)
        e = err_set(err, errlen, ENOENT, "%s: there is no experiment %lld in %s", WHAT,
                    (long long)id, s->path);
    else
        e = store_db_err(s, rc, WHAT, err, errlen);
    sqldb_finalize(st);
    return oom ? err_set(err, errlen, ENOMEM, "%s: out of memory", WHAT) : e;
}

/* The id of the one experiment called name, 0 if none; -EINVAL if several. */
static int find_by_name(struct store *s, const char *name, int64_t *id, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e =
        store_prepare(s, "SELECT id FROM experiments WHERE name = ? ORDER BY id", &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_text(st, 1, name);
    *id = 0;
    int rc, n = 0;
    while ((rc = sqldb_step(st)) == SQLDB_ROW)
        if (n++ == 0)
            *id = sqldb_column_int64(st, 0);
    if (rc != SQLDB_DONE)
        e = store_db_err(s, rc, WHAT, err, errlen);
    else if (n > 1)
        e = err_set(err, errlen, EINVAL,
                    "%s: %d experiments are called '%s'; name the one meant by its id", WHAT, n,
                    name);
    sqldb_finalize(st);
    return e;
}

/* Refuses variant when the experiment file of spec runs it: its runs are netab's own. */
static int check_variant(const char *spec_json, int64_t id, const char *variant, char *err,
                         size_t errlen)
{
    json_t *spec = spec_parse(spec_json);
    int e = 0;
    for (size_t i = 0; i < spec_variant_count(spec); i++) {
        const char *name = spec_variant_name(spec, i);
        if (name && !strcmp(name, variant))
            e = err_set(err, errlen, EINVAL,
                        "%s: variant '%s' is one of experiment %lld's own (netab runs it); "
                        "give the imported runs another name with --variant",
                        WHAT, variant, (long long)id);
    }
    json_decref(spec);
    return e;
}

/* The experiment the runs go into, created (origin import, status done) when t asks for it. */
static int target_experiment(struct store *s, const struct store_import_target *t, int64_t *id,
                             char *err, size_t errlen)
{
    const char *name = t->experiment && *t->experiment ? t->experiment : NULL;
    char *spec = NULL;
    int e = 0;
    *id = 0;
    if (is_id(name))
        *id = strtoll(name, NULL, 10);
    else if (name)
        e = find_by_name(s, name, id, err, errlen);
    if (!e && *id) {
        e = get_spec(s, *id, &spec, err, errlen);
        if (!e)
            e = check_variant(spec, *id, t->variant, err, errlen);
        free(spec);
        return e;
    }
    if (e)
        return e;
    /* The spec is built here, not by the database's JSON functions: the same text on both. */
    json_t *j = json_pack("{s:s, s:s}", "origin", "import", "name", name ? name : "import");
    char *spec_text = j ? jsonout_compact(j) : NULL;
    json_decref(j);
    if (!spec_text)
        return err_set(err, errlen, ENOMEM, "%s: out of memory", WHAT);
    struct sqldb_stmt *st;
    e = store_prepare(s,
                      "INSERT INTO experiments (name, spec_json, seed, status) "
                      "VALUES (?, ?, 0, 'done') RETURNING id",
                      &st, err, errlen);
    if (!e) {
        sqldb_bind_text(st, 1, name ? name : "import");
        sqldb_bind_text(st, 2, spec_text);
        e = store_insert_id(s, st, id, WHAT, err, errlen);
    }
    free(spec_text);
    return e;
}

/*
 * The cell for the runs: t's, else the experiment's only one, else
 * "default" (what a netab experiment without a matrix calls its cell).
 * *cell is malloc'd. Also the next free seq.
 */
static int choose_cell(struct store *s, int64_t id, const char *want, char **cell, int *next_seq,
                       char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s,
                          "SELECT count(DISTINCT coalesce(cell, '')), min(coalesce(cell, '')), "
                          "coalesce(max(seq), 0) FROM plan WHERE experiment_id = ?",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, id);
    int rc = sqldb_step(st);
    if (rc != SQLDB_ROW) {
        e = store_db_err(s, rc, WHAT, err, errlen);
        sqldb_finalize(st);
        return e;
    }
    int ncells = sqldb_column_int(st, 0);
    const char *only = sqldb_column_text(st, 1);
    *next_seq = sqldb_column_int(st, 2) + 1;
    if (want)
        *cell = strdup(want);
    else if (ncells > 1)
        e = err_set(err, errlen, EINVAL,
                    "%s: experiment %lld has %d cells; say which one the runs belong to with "
                    "--cell NAME",
                    WHAT, (long long)id, ncells);
    else
        *cell = strdup(ncells == 1 && only ? only : "default");
    sqldb_finalize(st);
    if (!e && !*cell)
        e = err_set(err, errlen, ENOMEM, "%s: out of memory", WHAT);
    return e;
}

/* Plan entry seq and its run row, finished as ok through the store's one extraction. */
static int add_run(struct store *s, int64_t id, int seq, int round,
                   const struct store_import_target *t, const char *cell,
                   const struct store_import_run *r, char *err, size_t errlen)
{
    struct store_plan_entry pe = {seq, t->variant, cell, false, round};
    struct sqldb_stmt *st;
    int e = store_prepare(s,
                          "INSERT INTO plan (experiment_id, seq, variant, cell, warmup, round) "
                          "VALUES (?, ?, ?, ?, 0, ?)",
                          &st, err, errlen);
    if (e)
        return e;
    sqldb_bind_int64(st, 1, id);
    sqldb_bind_int64(st, 2, pe.seq);
    sqldb_bind_text(st, 3, pe.variant);
    sqldb_bind_text(st, 4, pe.cell);
    sqldb_bind_int64(st, 5, pe.round);
    int rc = sqldb_step(st);
    sqldb_finalize(st);
    if (rc != SQLDB_DONE)
        return store_db_err(s, rc, WHAT, err, errlen);
    e = store_prepare(s,
                      "INSERT INTO runs (experiment_id, seq, variant, cell, status, attempt, "
                      "params_json, argv_text, started) VALUES (?, ?, ?, ?, 'running', 1, ?, ?, ?) "
                      "RETURNING id",
                      &st, err, errlen);
    if (e)
        return e;
    char now[32];
    store_now(now);
    sqldb_bind_int64(st, 1, id);
    sqldb_bind_int64(st, 2, seq);
    sqldb_bind_text(st, 3, t->variant);
    sqldb_bind_text(st, 4, cell);
    store_bind_clean(st, 5, r->params_json);
    store_bind_clean(st, 6, r->argv_text);
    sqldb_bind_text(st, 7, now);
    int64_t run_id = 0;
    e = store_insert_id(s, st, &run_id, WHAT, err, errlen);
    if (e)
        return e;
    return store_finish_in_tx(s, run_id, r->error ? STORE_RUN_FAILED : STORE_RUN_OK,
                              r->error ? 1 : 0, r->error, r->result_json, WHAT, err, errlen);
}

int store_import(struct store *s, const struct store_import_target *t,
                 const struct store_import_run *runs, size_t n, int64_t *experiment_id,
                 int *first_seq, char *err, size_t errlen)
{
    if (!t->variant || !*t->variant)
        return err_set(err, errlen, EINVAL, "%s: the runs need a variant name", WHAT);
    if (n == 0)
        return err_set(err, errlen, EINVAL, "%s: there is no run to import", WHAT);
    int e = store_begin(s, WHAT, err, errlen);
    if (e)
        return e;
    int64_t id = 0;
    int seq = 0;
    char *cell = NULL;
    e = target_experiment(s, t, &id, err, errlen);
    if (!e)
        e = choose_cell(s, id, t->cell, &cell, &seq, err, errlen);
    for (size_t i = 0; !e && i < n; i++)
        e = add_run(s, id, seq + (int)i, (int)i + 1, t, cell, &runs[i], err, errlen);
    free(cell);
    e = store_end_tx(s, e, WHAT, err, errlen);
    if (!e && experiment_id)
        *experiment_id = id;
    if (!e && first_seq)
        *first_seq = seq;
    return e;
}

int store_experiment_is_import(struct store *s, int64_t id, bool *yes, char *err, size_t errlen)
{
    char *spec = NULL;
    *yes = false;
    int e = get_spec(s, id, &spec, err, errlen);
    if (e)
        return e;
    json_t *j = spec ? json_loads(spec, 0, NULL) : NULL;
    const char *origin = json_string_value(json_object_get(j, "origin"));
    *yes = origin && !strcmp(origin, "import");
    json_decref(j);
    free(spec);
    return 0;
}
