/* Internals shared by the store's source files; not part of the API. */
#ifndef NETAB_STORE_PRIV_H
#define NETAB_STORE_PRIV_H

#include <sqlite3.h>

#include "store/store.h"

struct store {
    sqlite3 *db;
    char *path;
    int version;
    bool readonly;
};

/* One schema migration: applied to go from version - 1 to version. */
struct store_migration {
    int version;
    const char *name;
    const char *sql;
};
extern const struct store_migration store_migrations[];
extern const size_t store_n_migrations;

/*
 * Turns a SQLite result code into a negative errno and writes
 * "WHAT: <explanation> (PATH)" into err; the explanation is specific for the
 * cases a user can act on (read-only, disk full, not a database, locked).
 */
int store_sqlite_err(const struct store *s, int rc, const char *what, char *err, size_t errlen);

/* Runs sql (no results); on failure maps the error as above. */
int store_exec(struct store *s, const char *sql, const char *what, char *err, size_t errlen);

/* Prepares sql; on failure maps the error. */
int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, char *err, size_t errlen);

/* Binds text or NULL. */
int store_bind_text(sqlite3_stmt *st, int i, const char *s);

/* A malloc'd copy of text column i, NULL for SQL NULL; sets *oom when the copy fails. */
char *store_col_text(sqlite3_stmt *st, int i, bool *oom);

/* A stored status name back into its enum; anything unknown is "failed". */
enum store_run_status store_run_status_parse(const char *s);

/*
 * The body of store_run_finish() inside the caller's write transaction: the
 * 'running' row run_id gets its final status, its document, the headline
 * columns taken from it and its intervals. what names the operation in
 * messages. Used by store_run_finish() and by the importer (store_import.c),
 * so that an imported run's columns come from the one extraction.
 */
int store_finish_in_tx(struct store *s, int64_t run_id, enum store_run_status status, int exit_code,
                       const char *error, const char *result_json, const char *what, char *err,
                       size_t errlen);

#endif
