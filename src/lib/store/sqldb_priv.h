/* The backends of the database layer (sqldb.h): what each one implements. */
#ifndef NETAB_STORE_SQLDB_PRIV_H
#define NETAB_STORE_SQLDB_PRIV_H

#include "store/sqldb.h"

struct sqldb_ops {
    int (*exec)(struct sqldb *db, const char *sql);
    int (*begin_write)(struct sqldb *db);
    int (*commit)(struct sqldb *db); /* NULL: exec("COMMIT") */
    int (*prepare)(struct sqldb *db, const char *sql, struct sqldb_stmt *st);
    int (*bind)(struct sqldb_stmt *st, int i, int type, int64_t iv, double dv, const char *sv);
    int (*step)(struct sqldb_stmt *st);
    void (*reset)(struct sqldb_stmt *st);
    void (*finalize)(struct sqldb_stmt *st);
    bool (*is_null)(struct sqldb_stmt *st, int i);
    int64_t (*col_int64)(struct sqldb_stmt *st, int i);
    double (*col_double)(struct sqldb_stmt *st, int i);
    const char *(*col_text)(struct sqldb_stmt *st, int i);
    int (*lock_try)(struct sqldb *db, int32_t space, int32_t key);
    int (*lock_held)(struct sqldb *db, int32_t space, int32_t key);
    void (*unlock)(struct sqldb *db, int32_t space, int32_t key);
    /* NULL where a connection cannot be lost (SQLite). */
    int (*reconnect)(struct sqldb *db);
    void (*close)(struct sqldb *db);
};

/* Value types for ops->bind. */
enum { SQLDB_T_NULL, SQLDB_T_INT64, SQLDB_T_DOUBLE, SQLDB_T_TEXT };

struct sqldb {
    const struct sqldb_ops *ops;
    enum sqldb_dialect dialect;
    void *impl;
    bool in_tx;
    bool tx_lost;  /* the connection dropped inside the transaction: none of it was committed */
    bool readonly; /* opened for reading only, or SQLite found the file read-only */
    int64_t changes;
    int sys_errno;
    char errmsg[512];
};

struct sqldb_stmt {
    struct sqldb *db;
    void *impl;
};

/* Records the backend's message for the last failure; returns rc. */
int sqldb_fail(struct sqldb *db, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int sqldb_sqlite_open(struct sqldb *db, const char *target, unsigned flags);
int sqldb_pg_open(struct sqldb *db, const char *target, unsigned flags);

#endif
