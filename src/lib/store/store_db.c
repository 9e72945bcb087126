/*
 * Opening the results store: where it lives, the durability settings, error
 * messages a user can act on, and schema migrations.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_priv.h"

/* netab's mark in the database header ("NTAB"), so foreign databases are recognised. */
#define STORE_APPLICATION_ID 0x4e544142
/* How long a writer waits for another process's lock before giving up. */
#define STORE_BUSY_TIMEOUT_MS 10000

int store_default_path(const char *cli_path, char *out, size_t outlen, char *err, size_t errlen)
{
    const char *env = getenv("NETAB_DB");
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (cli_path && *cli_path)
        n = snprintf(out, outlen, "%s", cli_path);
    else if (env && *env)
        n = snprintf(out, outlen, "%s", env);
    else if (xdg && *xdg == '/')
        n = snprintf(out, outlen, "%s/netab/results.db", xdg);
    else if (home && *home)
        n = snprintf(out, outlen, "%s/.local/share/netab/results.db", home);
    else
        return err_set(err, errlen, ENOENT,
                       "no results database path: give --db PATH or set NETAB_DB "
                       "(neither XDG_DATA_HOME nor HOME is set)");
    if (n < 0 || (size_t)n >= outlen)
        return err_set(err, errlen, ENAMETOOLONG, "results database path is too long");
    return 0;
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
        return err_set(err, errlen, ENAMETOOLONG, "path too long: %s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0777) && errno != EEXIST) {
            int e = errno;
            return err_set(err, errlen, e,
                           "cannot create directory %s for the results database: %s", dir,
                           strerror(e));
        }
        *p = c;
        if (!c)
            break;
    }
    return 0;
}

int store_sqlite_err(const struct store *s, int rc, const char *what, char *err, size_t errlen)
{
    const char *path = s && s->path ? s->path : "?";
    int sys = s && s->db ? sqlite3_system_errno(s->db) : 0;
    const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_READONLY:
        return err_set(err, errlen, EROFS,
                       "%s: the results database %s is read-only (check the permissions of the "
                       "file and its directory, and the file system's mount options); nothing "
                       "already recorded was changed",
                       what, path);
    case SQLITE_FULL:
        return err_set(err, errlen, ENOSPC,
                       "%s: the disk holding %s is full; nothing already recorded was changed, "
                       "free some space and try again",
                       what, path);
    case SQLITE_NOTADB:
        return err_set(err, errlen, ENOTSUP,
                       "%s: %s is not a SQLite database (is --db or NETAB_DB pointing at the "
                       "right file?); it was left untouched",
                       what, path);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return err_set(err, errlen, EBUSY,
                       "%s: %s stayed locked by another process for more than %d s", what, path,
                       STORE_BUSY_TIMEOUT_MS / 1000);
    case SQLITE_CANTOPEN:
        return err_set(err, errlen, sys ? sys : EACCES, "%s: cannot open %s: %s", what, path,
                       sys ? strerror(sys) : msg);
    case SQLITE_IOERR:
        if (sys == ENOSPC || sys == EDQUOT)
            return store_sqlite_err(s, SQLITE_FULL, what, err, errlen);
        if (sys == EROFS || sys == EACCES || sys == EPERM)
            return store_sqlite_err(s, SQLITE_READONLY, what, err, errlen);
        return err_set(err, errlen, EIO, "%s: I/O error on %s: %s%s%s", what, path, msg,
                       sys ? ": " : "", sys ? strerror(sys) : "");
    case SQLITE_CORRUPT:
        return err_set(err, errlen, EIO, "%s: the results database %s is damaged: %s", what, path,
                       msg);
    case SQLITE_NOMEM:
        return err_set(err, errlen, ENOMEM, "%s: out of memory", what);
    case SQLITE_CONSTRAINT:
        return err_set(err, errlen, EINVAL, "%s: refused by the database: %s", what, msg);
    default:
        return err_set(err, errlen, EIO, "%s: %s (%s)", what, msg, path);
    }
}

int store_exec(struct store *s, const char *sql, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : store_sqlite_err(s, rc, what, err, errlen);
}

int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
    int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
    return rc == SQLITE_OK ? 0 : store_sqlite_err(s, rc, "preparing a query", err, errlen);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Reads a one-integer PRAGMA (or query). */
static int query_int(struct store *s, const char *sql, int64_t *out, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sqlite_err(s, rc, "reading the database", err, errlen);
    int e = 0;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        *out = 0;
    else
        e = store_sqlite_err(s, rc, "reading the database", err, errlen);
    sqlite3_finalize(st);
    return e;
}

/* Applies every migration newer than the database, all in one transaction. */
static int migrate(struct store *s, char *err, size_t errlen)
{
    int e = store_exec(s, "BEGIN IMMEDIATE", "upgrading the database schema", err, errlen);
    if (e)
        return e;
    int64_t v;
    /* Another process may have migrated while we waited for the lock. */
    e = query_int(s, "PRAGMA user_version", &v, err, errlen);
    for (size_t i = 0; !e && i < store_n_migrations; i++) {
        const struct store_migration *m = &store_migrations[i];
        if (m->version <= v)
            continue;
        char what[128];
        snprintf(what, sizeof(what), "schema migration %d (%s)", m->version, m->name);
        e = store_exec(s, m->sql, what, err, errlen);
        if (!e) {
            char sql[64];
            snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", m->version);
            e = store_exec(s, sql, what, err, errlen);
        }
        if (!e)
            v = m->version;
    }
    if (!e) {
        char sql[64];
        snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APPLICATION_ID);
        e = store_exec(s, sql, "upgrading the database schema", err, errlen);
    }
    if (!e)
        e = store_exec(s, "COMMIT", "upgrading the database schema", err, errlen);
    if (e) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return e;
    }
    s->version = (int)v;
    return 0;
}

/* Refuses files this netab must not touch; reads the schema version. */
static int check_database(struct store *s, char *err, size_t errlen)
{
    int64_t version, app, tables;
    int e = query_int(s, "PRAGMA user_version", &version, err, errlen);
    if (!e)
        e = query_int(s, "PRAGMA application_id", &app, err, errlen);
    if (!e)
        e = query_int(s, "SELECT count(*) FROM sqlite_master", &tables, err, errlen);
    if (e)
        return e;
    if ((app != 0 && app != STORE_APPLICATION_ID) || (app == 0 && version == 0 && tables > 0))
        return err_set(err, errlen, ENOTSUP,
                       "%s is a SQLite database but not a netab results store; it was left "
                       "untouched",
                       s->path);
    if (version > STORE_SCHEMA_VERSION)
        return err_set(err, errlen, EPROTONOSUPPORT,
                       "%s has schema version %lld, newer than this netab understands (%d); "
                       "use a newer netab (the file was left untouched)",
                       s->path, (long long)version, STORE_SCHEMA_VERSION);
    s->version = (int)version;
    return 0;
}

/* Internal store_open() flag: this is already the immutable retry. */
#define STORE_OPEN_IMMUTABLE_RETRY (1u << 30)

int store_open(const char *path, unsigned flags, struct store **out, char *err, size_t errlen);

/* Opens path read-only through a "file:...?immutable=1" URI. */
static int open_immutable(const char *path, struct store **out, char *err, size_t errlen)
{
    char *uri = malloc(strlen(path) * 3 + 32);
    if (!uri)
        return err_set(err, errlen, ENOMEM, "out of memory");
    char *q = stpcpy(uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
            q += sprintf(q, "%%%02X", *p);
        else
            *q++ = (char)*p;
    }
    strcpy(q, "?immutable=1");
    int e = store_open(uri, STORE_OPEN_READONLY | STORE_OPEN_IMMUTABLE_RETRY, out, err, errlen);
    free(uri);
    if (!e) {
        /* Report the path the user gave, not the URI. */
        char *p = strdup(path);
        if (p) {
            free((*out)->path);
            (*out)->path = p;
        }
    }
    return e;
}

/* Whether path starts like a URL ("postgresql://..."): its scheme into scheme. */
static bool url_scheme(const char *path, char *scheme, size_t len)
{
    size_t n = strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    if (n == 0 || n >= len || strncmp(path + n, "://", 3) ||
        !((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z'))
        return false;
    snprintf(scheme, len, "%.*s", (int)n, path);
    return true;
}

int store_check_path(const char *path, char *err, size_t errlen)
{
    /* A URL is never a file name to create: only its scheme is named (it may hold a password). */
    char scheme[32];
    if (url_scheme(path, scheme, sizeof(scheme)))
        return err_set(err, errlen, EINVAL,
                       "--db %s://...: this netab knows no URL scheme; give the path of an SQLite "
                       "file (a PostgreSQL store is not supported yet)",
                       scheme);
    return 0;
}

int store_open(const char *path, unsigned flags, struct store **out, char *err, size_t errlen)
{
    bool uri = flags & STORE_OPEN_IMMUTABLE_RETRY;
    *out = NULL;
    int ce = uri ? 0 : store_check_path(path, err, errlen);
    if (ce)
        return ce;
    struct stat sb;
    bool exists = uri || stat(path, &sb) == 0;
    if (!uri && exists && S_ISDIR(sb.st_mode))
        return err_set(err, errlen, EISDIR, "results database %s is a directory", path);
    if (!exists && !(flags & STORE_OPEN_CREATE))
        return err_set(err, errlen, ENOENT,
                       "no results database at %s (nothing recorded there yet?)", path);
    if (!exists) {
        int e = make_parent_dirs(path, err, errlen);
        if (e)
            return e;
    }
    struct store *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    s->readonly = flags & STORE_OPEN_READONLY;
    int oflags = s->readonly
                     ? SQLITE_OPEN_READONLY
                     : SQLITE_OPEN_READWRITE | (flags & STORE_OPEN_CREATE ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &s->db,
                             oflags | SQLITE_OPEN_FULLMUTEX | (uri ? SQLITE_OPEN_URI : 0), NULL);
    int e = 0;
    if (rc != SQLITE_OK) {
        e = store_sqlite_err(s, rc, "opening the results database", err, errlen);
        goto out;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    /* SQLite quietly opens read-only when the file or file system forbids writing. */
    if (sqlite3_db_readonly(s->db, "main") == 1)
        s->readonly = true;
    /* Nothing may be written before we know this is our database. */
    e = check_database(s, err, errlen);
    if (e && s->readonly && (e == -ENOENT || e == -EACCES || e == -EROFS) &&
        !(flags & STORE_OPEN_IMMUTABLE_RETRY)) {
        /* A WAL database on a read-only file system cannot create its -shm
         * file; with no -wal file left (a clean close) there is nothing but
         * the main file to read, so reading it as immutable is exact. */
        char *p = strdup(path);
        store_close(s);
        s = NULL;
        e = p ? open_immutable(p, out, err, errlen) : err_set(err, errlen, ENOMEM, "out of memory");
        free(p);
        return e;
    }
    if (e)
        goto out;
    if (!s->readonly) {
        /* WAL keeps readers and the writer apart; FULL syncs the WAL on every
         * commit, so a run reported committed survives power loss. */
        e = store_exec(s, "PRAGMA journal_mode = WAL", "setting up the database", err, errlen);
        if (!e)
            e = store_exec(s, "PRAGMA synchronous = FULL", "setting up the database", err, errlen);
    }
    if (!e)
        e = store_exec(s, "PRAGMA foreign_keys = ON", "setting up the database", err, errlen);
    if (e)
        goto out;
    if (s->version < STORE_SCHEMA_VERSION) {
        if (s->readonly && s->version == 0)
            e = err_set(err, errlen, ENOENT, "%s is empty (no netab results recorded yet)", path);
        else if (s->readonly)
            e = err_set(err, errlen, EROFS,
                        "%s has schema version %d and needs upgrading to %d, but it is read-only",
                        path, s->version, STORE_SCHEMA_VERSION);
        else
            e = migrate(s, err, errlen);
    }
out:
    if (e) {
        store_close(s);
        return e;
    }
    *out = s;
    return 0;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    sqlite3_close_v2(s->db);
    free(s->path);
    free(s);
}

int store_schema_version(const struct store *s)
{
    return s->version;
}

const char *store_path(const struct store *s)
{
    return s->path;
}
