/* Shared helpers for the store's unit tests: temp dirs, fixtures, raw SQL. */
#ifndef NETAB_TEST_STORE_HELPERS_H
#define NETAB_TEST_STORE_HELPERS_H

#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store_priv.h"

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

/* rm -rf */
static inline void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The whole of a file, NUL-terminated; caller frees. */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = (size_t)n;
    fclose(f);
    return buf;
}

static inline char *fixture(const char *name)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s", STORE_DATA, name);
    char *t = slurp(p, NULL);
    if (!t)
        fprintf(stderr, "cannot read fixture %s\n", p);
    return t;
}

/* One integer from a query on a separate raw connection (what another process sees). */
static inline long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long long v = -999;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    } else {
        fprintf(stderr, "raw_int(%s): %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return v;
}

/* Runs SQL on a raw connection; returns the SQLite result code. */
static inline int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

#endif
