/*
 * A thin SQL database layer under the results store: one set of statements
 * for SQLite and PostgreSQL (docs/store.md, "Two databases, one store").
 *
 * The store writes every statement once, in the portable subset of SQL the
 * two share, with SQLite's `?` / `?N` placeholders; the PostgreSQL backend
 * rewrites them to `$n` (sqldb_rewrite_placeholders()). What differs and
 * cannot be written portably (the schema's DDL, the lock a campaign takes)
 * is chosen by dialect (sqldb_dialect()) in the few places that need it.
 *
 * Result codes: SQLDB_OK, SQLDB_ROW, SQLDB_DONE, or one of the negative
 * SQLDB_E* classes below; sqldb_errmsg() has the backend's own words for
 * the last failure. The store turns a class into an errno and a sentence a
 * user can act on.
 *
 * A statement's bound values are copied at bind time and kept across
 * sqldb_reset(), as in SQLite. Text handed out (sqldb_column_text()) lives
 * until the next step, reset or finalize of its statement.
 */
#ifndef NETAB_STORE_SQLDB_H
#define NETAB_STORE_SQLDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sqldb_dialect { SQLDB_SQLITE, SQLDB_POSTGRES };

enum {
    SQLDB_OK = 0,
    SQLDB_ROW = 100,
    SQLDB_DONE = 101,
    SQLDB_EREADONLY = -1,   /* read-only file, file system or transaction */
    SQLDB_EFULL = -2,       /* disk full */
    SQLDB_ENOTADB = -3,     /* not a database of this kind */
    SQLDB_EBUSY = -4,       /* locked by another process for too long */
    SQLDB_ECANTOPEN = -5,   /* cannot open or connect */
    SQLDB_EIO = -6,         /* I/O error */
    SQLDB_ECORRUPT = -7,    /* damaged database */
    SQLDB_ENOMEM = -8,      /* out of memory */
    SQLDB_ECONSTRAINT = -9, /* a constraint or trigger refused the statement */
    SQLDB_ECONN = -10,      /* the connection to the server was lost (sqldb_tx_lost: and is back) */
    SQLDB_EOTHER = -11,
};

struct sqldb;
struct sqldb_stmt;

/* sqldb_open() flags. */
enum {
    SQLDB_OPEN_CREATE = 1 << 0,   /* SQLite: create the file if missing */
    SQLDB_OPEN_READONLY = 1 << 1, /* open for reading only */
    SQLDB_OPEN_URI = 1 << 2,      /* SQLite: target is a file: URI */
};

/* Whether target is a PostgreSQL connection URL (postgresql:// or postgres://). */
bool sqldb_is_postgres_url(const char *target);

/*
 * Opens target: a PostgreSQL URL through libpq, anything else as an SQLite
 * file. *out is set even on failure (unless out of memory) so that the
 * caller can read sqldb_errmsg(); release it with sqldb_close().
 */
int sqldb_open(const char *target, unsigned flags, struct sqldb **out);
void sqldb_close(struct sqldb *db);
enum sqldb_dialect sqldb_dialect(const struct sqldb *db);
/* Whether db can only be read (asked for, or SQLite found the file or file system read-only). */
bool sqldb_readonly(const struct sqldb *db);

/* The backend's message for the last failure (never NULL) and its errno, if it had one. */
const char *sqldb_errmsg(const struct sqldb *db);
int sqldb_system_errno(const struct sqldb *db);

/* Runs sql, which may hold several statements and no placeholders; returns no rows. */
int sqldb_exec(struct sqldb *db, const char *sql);

/*
 * Transactions. begin_write takes the write lock at once where the backend
 * has one (SQLite's BEGIN IMMEDIATE), so two writers queue instead of one
 * failing at commit. rollback is quiet and harmless outside a transaction.
 */
int sqldb_begin_write(struct sqldb *db);
int sqldb_commit(struct sqldb *db);
void sqldb_rollback(struct sqldb *db);
bool sqldb_in_tx(const struct sqldb *db);

/*
 * Whether the last transaction failed because the connection to the server
 * dropped and the server kept none of it (a drop before COMMIT, or during
 * COMMIT when the server, asked once the session was back, said aborted), so
 * it can be run again from its start once sqldb_reconnect() succeeds. A
 * drop during COMMIT of a transaction that committed is no failure at all.
 */
bool sqldb_tx_lost(const struct sqldb *db);

/*
 * Waits for the server as a statement outside a transaction does (once a
 * second, NETAB_DB_WAIT seconds, saying so on stderr) and takes the locks
 * held again. SQLDB_OK, or SQLDB_ECONN when it did not come back.
 */
int sqldb_reconnect(struct sqldb *db);

/* Rows changed by the last INSERT, UPDATE or DELETE statement. */
int64_t sqldb_changes(const struct sqldb *db);

int sqldb_prepare(struct sqldb *db, const char *sql, struct sqldb_stmt **st);
int sqldb_bind_int64(struct sqldb_stmt *st, int i, int64_t v);
int sqldb_bind_double(struct sqldb_stmt *st, int i, double v);
int sqldb_bind_text(struct sqldb_stmt *st, int i, const char *s); /* NULL binds NULL */
int sqldb_bind_null(struct sqldb_stmt *st, int i);
/* SQLDB_ROW (a row to read), SQLDB_DONE, or an error class. */
int sqldb_step(struct sqldb_stmt *st);
/* Makes st ready to run again; bindings stay. */
void sqldb_reset(struct sqldb_stmt *st);
void sqldb_finalize(struct sqldb_stmt *st);

bool sqldb_column_is_null(struct sqldb_stmt *st, int i);
int64_t sqldb_column_int64(struct sqldb_stmt *st, int i);
int sqldb_column_int(struct sqldb_stmt *st, int i);
double sqldb_column_double(struct sqldb_stmt *st, int i);
const char *sqldb_column_text(struct sqldb_stmt *st, int i);

/*
 * A session-level exclusive lock named by (space, key), taken without
 * waiting: 1 taken, 0 held by another session, or an error class.
 * PostgreSQL: an advisory lock, released when the session ends (also when
 * the process is killed, as the server sees the connection close) and
 * taken again when the layer reconnects. SQLite: not supported (SQLDB_EOTHER);
 * SQLite stores lock a file beside the database instead.
 */
int sqldb_lock_try(struct sqldb *db, int32_t space, int32_t key);
/* Releases a lock sqldb_lock_try() took (nothing if it did not). */
void sqldb_unlock(struct sqldb *db, int32_t space, int32_t key);
/* Whether any session holds the lock (space, key): 1, 0, or an error class. */
int sqldb_lock_held(struct sqldb *db, int32_t space, int32_t key);

/*
 * SQLite's `?` and `?N` placeholders as PostgreSQL's `$n` (a bare `?` is
 * one more than the largest number so far, as SQLite counts), outside
 * quoted strings and identifiers. Returns a malloc'd string (NULL when out
 * of memory) and the number of parameters in *nparams.
 */
char *sqldb_rewrite_placeholders(const char *sql, int *nparams);

#endif
