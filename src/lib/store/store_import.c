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

#define WHAT "importing runs"

/* Ends the import's transaction: COMMIT if e is 0, else ROLLBACK and keep e. */
static int end_tx(struct store *s, int e, char *err, size_t errlen)
{
    if (!e)
        e = store_exec(s, "COMMIT", WHAT, err, errlen);
    if (e && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return e;
}

/* True when s is a positive decimal id. */
static bool is_id(const char *s)
{
    return s && *s && strspn(s, "0123456789") == strlen(s) && strtoll(s, NULL, 10) > 0;
}

/* The spec_json of experiment id into *spec (may be NULL); -ENOENT if there is none. */
static int get_spec(struct store *s, int64_t id, char **spec, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int e = store_prepare(s, "SELECT spec_json FROM experiments WHERE id = ?", &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    bool oom = false;
    *spec = NULL;
    if (rc == SQLITE_ROW)
        *spec = store_col_text(st, 0, &oom);
    else if (rc == SQLITE_DONE)
        e = err_set(err, errlen, ENOENT, "%s: there is no experiment %lld in %s", WHAT,
                    (long long)id, s->path);
    else
        e = store_sqlite_err(s, rc, WHAT, err, errlen);
    sqlite3_finalize(st);
    return oom ? err_set(err, errlen, ENOMEM, "%s: out of memory", WHAT) : e;
}

/* The id of the one experiment called name, 0 if none; -EINVAL if several. */
static int find_by_name(struct store *s, const char *name, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int e =
        store_prepare(s, "SELECT id FROM experiments WHERE name = ? ORDER BY id", &st, err, errlen);
    if (e)
        return e;
    store_bind_text(st, 1, name);
    *id = 0;
    int rc, n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (n++ == 0)
            *id = sqlite3_column_int64(st, 0);
    if (rc != SQLITE_DONE)
        e = store_sqlite_err(s, rc, WHAT, err, errlen);
    else if (n > 1)
        e = err_set(err, errlen, EINVAL,
                    "%s: %d experiments are called '%s'; name the one meant by its id", WHAT, n,
                    name);
    sqlite3_finalize(st);
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
    sqlite3_stmt *st;
    e = store_prepare(s,
                      "INSERT INTO experiments (name, spec_json, seed, status) "
                      "VALUES (?, json_object('origin', 'import', 'name', ?1), 0, 'done')",
                      &st, err, errlen);
    if (e)
        return e;
    store_bind_text(st, 1, name ? name : "import");
    int rc = sqlite3_step(st);
    e = rc == SQLITE_DONE ? 0 : store_sqlite_err(s, rc, WHAT, err, errlen);
    sqlite3_finalize(st);
    if (!e)
        *id = sqlite3_last_insert_rowid(s->db);
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
    sqlite3_stmt *st;
    int e = store_prepare(s,
                          "SELECT count(DISTINCT coalesce(cell, '')), min(coalesce(cell, '')), "
                          "coalesce(max(seq), 0) FROM plan WHERE experiment_id = ?",
                          &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        e = store_sqlite_err(s, rc, WHAT, err, errlen);
        sqlite3_finalize(st);
        return e;
    }
    int ncells = sqlite3_column_int(st, 0);
    const char *only = (const char *)sqlite3_column_text(st, 1);
    *next_seq = sqlite3_column_int(st, 2) + 1;
    if (want)
        *cell = strdup(want);
    else if (ncells > 1)
        e = err_set(err, errlen, EINVAL,
                    "%s: experiment %lld has %d cells; say which one the runs belong to with "
                    "--cell NAME",
                    WHAT, (long long)id, ncells);
    else
        *cell = strdup(ncells == 1 && only ? only : "default");
    sqlite3_finalize(st);
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
    sqlite3_stmt *st;
    int e = store_prepare(s,
                          "INSERT INTO plan (experiment_id, seq, variant, cell, warmup, round) "
                          "VALUES (?, ?, ?, ?, 0, ?)",
                          &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, pe.seq);
    store_bind_text(st, 3, pe.variant);
    store_bind_text(st, 4, pe.cell);
    sqlite3_bind_int(st, 5, pe.round);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sqlite_err(s, rc, WHAT, err, errlen);
    e = store_prepare(s,
                      "INSERT INTO runs (experiment_id, seq, variant, cell, status, attempt, "
                      "params_json, argv_text) VALUES (?, ?, ?, ?, 'running', 1, ?, ?)",
                      &st, err, errlen);
    if (e)
        return e;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, seq);
    store_bind_text(st, 3, t->variant);
    store_bind_text(st, 4, cell);
    store_bind_text(st, 5, r->params_json);
    store_bind_text(st, 6, r->argv_text);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sqlite_err(s, rc, WHAT, err, errlen);
    return store_finish_in_tx(s, sqlite3_last_insert_rowid(s->db), STORE_RUN_OK, 0, NULL,
                              r->result_json, WHAT, err, errlen);
}

int store_import(struct store *s, const struct store_import_target *t,
                 const struct store_import_run *runs, size_t n, int64_t *experiment_id,
                 int *first_seq, char *err, size_t errlen)
{
    if (!t->variant || !*t->variant)
        return err_set(err, errlen, EINVAL, "%s: the runs need a variant name", WHAT);
    if (n == 0)
        return err_set(err, errlen, EINVAL, "%s: there is no run to import", WHAT);
    if (s->readonly)
        return store_sqlite_err(s, SQLITE_READONLY, WHAT, err, errlen);
    int e = store_exec(s, "BEGIN IMMEDIATE", WHAT, err, errlen);
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
    e = end_tx(s, e, err, errlen);
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
