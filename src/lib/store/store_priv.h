/* Internals shared by the store's source files; not part of the API. */
#ifndef NETAB_STORE_PRIV_H
#define NETAB_STORE_PRIV_H

#include "store/sqldb.h"
#include "store/store.h"

struct store {
    struct sqldb *db;
    char *path; /* for messages: a URL's password is removed (redact_url()) */
    int version;
    bool readonly;
};

/*
 * One schema migration: applied to go from version - 1 to version. sql is
 * SQLite's text; pg is PostgreSQL's where the DDL differs (NULL: the same
 * text serves both, as a plain ALTER TABLE ... ADD COLUMN does).
 */
struct store_migration {
    int version;
    const char *name;
    const char *sql;
    const char *pg;
};
extern const struct store_migration store_migrations[];
extern const size_t store_n_migrations;

/*
 * Turns a database layer's result class (sqldb.h) into a negative errno and
 * writes "WHAT: <explanation> (PATH)" into err; the explanation is specific
 * for the cases a user can act on (read-only, disk full, not a database,
 * locked, the server gone).
 */
int store_db_err(const struct store *s, int rc, const char *what, char *err, size_t errlen);

/* Runs sql (no results); on failure maps the error as above. */
int store_exec(struct store *s, const char *sql, const char *what, char *err, size_t errlen);

/* Prepares sql; on failure maps the error. */
int store_prepare(struct store *s, const char *sql, struct sqldb_stmt **st, char *err,
                  size_t errlen);

/* Begins a write transaction (refused on a read-only store). */
int store_begin(struct store *s, const char *what, char *err, size_t errlen);

/* Ends a write transaction: COMMIT if e is 0, else ROLLBACK; returns e or COMMIT's failure. */
int store_end_tx(struct store *s, int e, const char *what, char *err, size_t errlen);

/*
 * After store_end_tx() returned *e: true when the transaction failed only
 * because the server's connection dropped and the server kept none of it
 * (sqldb_tx_lost), and the connection is back, so the caller runs the whole
 * transaction again; *tries counts the attempts (at most STORE_TX_TRIES).
 * When the server did not come back, *e and err say so.
 */
#define STORE_TX_TRIES 5
bool store_tx_again(struct store *s, int *e, int *tries, const char *what, char *err,
                    size_t errlen);

/*
 * Steps an INSERT ... RETURNING id to its row, reads the new id into *id and
 * finalizes st (both databases give the id this way).
 */
int store_insert_id(struct store *s, struct sqldb_stmt *st, int64_t *id, const char *what,
                    char *err, size_t errlen);

/* Now as the store writes timestamps: ISO 8601 UTC with milliseconds. */
void store_now(char out[32]);

/* Seconds from ISO timestamp a to b (as store_now() writes them), or NAN. */
double store_seconds_between(const char *a, const char *b);

/*
 * Binds text with the password of any database URL in it removed
 * (redact_text()): command lines and documents may quote a --db URL,
 * and no stored document keeps a password. SQLDB_OK or SQLDB_ENOMEM.
 */
int store_bind_clean(struct sqldb_stmt *st, int i, const char *text);

/* A malloc'd copy of text column i, NULL for SQL NULL; sets *oom when the copy fails. */
char *store_col_text(struct sqldb_stmt *st, int i, bool *oom);

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
