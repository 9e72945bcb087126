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
#include "util/redact.h"

/* netab's mark in the database header ("NTAB"), so foreign databases are recognised. */
#define STORE_APPLICATION_ID 0x4e544142

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

static int make_parent_dirs(const char *path, char *err, size_t errlen);

int store_local_file(const char *db_path, const char *suffix, char *out, size_t outlen, char *err,
                     size_t errlen)
{
    if (!sqldb_is_postgres_url(db_path)) {
        if (snprintf(out, outlen, "%s%s", db_path, suffix) >= (int)outlen)
            return err_set(err, errlen, ENAMETOOLONG, "the results store path is too long: %s",
                           db_path);
        return 0;
    }
    /* FNV-1a of the URL without its password: one file per server store and host. */
    char *r = redact_url(db_path);
    if (!r)
        return err_set(err, errlen, ENOMEM, "out of memory");
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)r; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    free(r);
    /* The directory of the default SQLite store, whatever NETAB_DB says. */
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(out, outlen, "%s/netab/pg-%016llx%s", xdg, (unsigned long long)h, suffix);
    else if (home && *home)
        n = snprintf(out, outlen, "%s/.local/share/netab/pg-%016llx%s", home, (unsigned long long)h,
                     suffix);
    else
        return err_set(err, errlen, ENOENT,
                       "no directory for netab's local files: neither XDG_DATA_HOME nor HOME is "
                       "set");
    if (n < 0 || (size_t)n >= outlen)
        return err_set(err, errlen, ENAMETOOLONG, "netab's data directory path is too long");
    return make_parent_dirs(out, err, errlen);
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

/*
 * Whether a new store can be created at path: its directory must be
 * writable. Said here because SQLite, refused, says only "unable to open"
 * and the errno it leaves is the failed open's ENOENT, never EROFS.
 */
static int check_creatable(const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
        return err_set(err, errlen, ENAMETOOLONG, "path too long: %s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else
        slash[slash == dir] = '\0';
    if (access(dir, W_OK | X_OK))
        return err_set(err, errlen, errno, "cannot create the results database %s: %s (%s)", path,
                       strerror(errno), dir);
    return 0;
}

/* Reads a one-integer PRAGMA (or query); 0 when it returns no row. */
static int query_int(struct store *s, const char *sql, int64_t *out, char *err, size_t errlen)
{
    struct sqldb_stmt *st;
    int e = store_prepare(s, sql, &st, err, errlen);
    if (e)
        return e;
    int rc = sqldb_step(st);
    if (rc == SQLDB_ROW)
        *out = sqldb_column_int64(st, 0);
    else if (rc == SQLDB_DONE)
        *out = 0;
    else
        e = store_db_err(s, rc, "reading the database", err, errlen);
    sqldb_finalize(st);
    return e;
}

/* PostgreSQL keeps the schema version in a table: SQLite's user_version has no equivalent. */
#define PG_VERSION_TABLE "CREATE TABLE IF NOT EXISTS netab_schema (version INTEGER NOT NULL)"
/* Advisory lock space of netab (its mark "NTAB"): key 0 migrations, else an experiment. */
#define PG_LOCK_SPACE STORE_APPLICATION_ID

/* The database's schema version, read inside the migration's transaction. */
static int read_version(struct store *s, int64_t *v, char *err, size_t errlen)
{
    if (sqldb_dialect(s->db) == SQLDB_SQLITE)
        return query_int(s, "PRAGMA user_version", v, err, errlen);
    return query_int(s, "SELECT coalesce(max(version), 0) FROM netab_schema", v, err, errlen);
}

static int write_version(struct store *s, int v, const char *what, char *err, size_t errlen)
{
    char sql[96];
    if (sqldb_dialect(s->db) == SQLDB_SQLITE)
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
    else
        snprintf(sql, sizeof(sql), "DELETE FROM netab_schema; INSERT INTO netab_schema VALUES (%d)",
                 v);
    return store_exec(s, sql, what, err, errlen);
}

/*
 * Applies every migration newer than the database, all in one transaction.
 * SQLite's BEGIN IMMEDIATE and PostgreSQL's transaction-scoped advisory
 * lock both make a second netab wait here, then see the new version.
 */
static int migrate(struct store *s, char *err, size_t errlen)
{
    const char *what = "upgrading the database schema";
    bool pg = sqldb_dialect(s->db) == SQLDB_POSTGRES;
    int e = store_begin(s, what, err, errlen);
    if (e)
        return e;
    if (pg) {
        char sql[160];
        snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock(%d, 0); " PG_VERSION_TABLE,
                 PG_LOCK_SPACE);
        e = store_exec(s, sql, what, err, errlen);
    }
    int64_t v = 0;
    /* Another process may have migrated while we waited for the lock. */
    if (!e)
        e = read_version(s, &v, err, errlen);
    for (size_t i = 0; !e && i < store_n_migrations; i++) {
        const struct store_migration *m = &store_migrations[i];
        if (m->version <= v)
            continue;
        char mwhat[128];
        snprintf(mwhat, sizeof(mwhat), "schema migration %d (%s)", m->version, m->name);
        e = store_exec(s, pg && m->pg ? m->pg : m->sql, mwhat, err, errlen);
        if (!e)
            e = write_version(s, m->version, mwhat, err, errlen);
        if (!e)
            v = m->version;
    }
    if (!e && !pg) {
        char sql[64];
        snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APPLICATION_ID);
        e = store_exec(s, sql, what, err, errlen);
    }
    e = store_end_tx(s, e, what, err, errlen);
    if (!e)
        s->version = (int)v;
    return e;
}

/* PostgreSQL: the version, or 0 in an empty database; refuses one holding other tables. */
static int check_pg(struct store *s, int64_t *version, char *err, size_t errlen)
{
    int64_t ours = 0, theirs = 0;
    int e = query_int(s, "SELECT CASE WHEN to_regclass('netab_schema') IS NULL THEN 0 ELSE 1 END",
                      &ours, err, errlen);
    if (!e)
        e = query_int(s, "SELECT CASE WHEN to_regclass('experiments') IS NULL THEN 0 ELSE 1 END",
                      &theirs, err, errlen);
    if (!e && !ours && theirs)
        e = err_set(err, errlen, ENOTSUP,
                    "%s has a table 'experiments' but is not a netab results store; it was left "
                    "untouched (give netab a database or schema of its own)",
                    s->path);
    *version = 0;
    if (!e && ours)
        e = read_version(s, version, err, errlen);
    return e;
}

/* Refuses files this netab must not touch; reads the schema version. */
static int check_database(struct store *s, char *err, size_t errlen)
{
    int64_t version = 0, app = 0, tables = 0;
    int e;
    if (sqldb_dialect(s->db) == SQLDB_POSTGRES) {
        e = check_pg(s, &version, err, errlen);
    } else {
        e = query_int(s, "PRAGMA user_version", &version, err, errlen);
        if (!e)
            e = query_int(s, "PRAGMA application_id", &app, err, errlen);
        if (!e)
            e = query_int(s, "SELECT count(*) FROM sqlite_master", &tables, err, errlen);
    }
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

/* What a file of mode m is, in words, for the message that refuses it as a store. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

int store_check_path(const char *path, char *err, size_t errlen)
{
    /* A URL is never a file name to create: only its scheme is named (it may hold a password). */
    char scheme[32];
    if (url_scheme(path, scheme, sizeof(scheme)) && !sqldb_is_postgres_url(path))
        return err_set(err, errlen, EINVAL,
                       "--db %s://...: unknown URL scheme; netab knows postgresql:// and "
                       "postgres:// (a PostgreSQL server), or give the path of an SQLite file",
                       scheme);
    /*
     * SQLite would open a device or a FIFO and create PATH-journal beside it
     * (/dev/null-journal, mode 0666, as root), then call it empty.
     */
    struct stat sb;
    if (!sqldb_is_postgres_url(path) && !stat(path, &sb) && !S_ISREG(sb.st_mode))
        return err_set(err, errlen, S_ISDIR(sb.st_mode) ? EISDIR : EINVAL,
                       "--db %s is %s: the results store is a regular file (created when "
                       "absent) or a postgresql:// URL",
                       path, file_kind(sb.st_mode));
    return 0;
}

/* A new store around path's opened database: its displayed path has no password. */
static int store_new(const char *path, unsigned flags, struct store **out, char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = redact_url(path))) {
        free(s);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    s->readonly = flags & STORE_OPEN_READONLY;
    *out = s;
    return 0;
}

/* Connects to the PostgreSQL server of url; nothing exists on disk to create. */
static int open_pg(const char *url, unsigned flags, struct store **out, char *err, size_t errlen)
{
    struct store *s = NULL;
    int e = store_new(url, flags, &s, err, errlen);
    if (e)
        return e;
    int rc = sqldb_open(url, s->readonly ? SQLDB_OPEN_READONLY : 0, &s->db);
    if (rc != SQLDB_OK)
        e = err_set(err, errlen, rc == SQLDB_ENOMEM ? ENOMEM : ECONNREFUSED,
                    "cannot connect to the results database %s: %s", s->path,
                    s->db ? sqldb_errmsg(s->db) : "out of memory");
    if (!e)
        e = check_database(s, err, errlen);
    *out = s;
    return e;
}

/* Opens (creating) the SQLite file path; *out is set for the caller to close, also on failure. */
static int open_sqlite(const char *path, unsigned flags, bool uri, struct store **out, char *err,
                       size_t errlen)
{
    struct stat sb;
    bool exists = uri || stat(path, &sb) == 0;
    *out = NULL;
    if (!uri && exists && S_ISDIR(sb.st_mode))
        return err_set(err, errlen, EISDIR, "results database %s is a directory", path);
    if (!exists && !(flags & STORE_OPEN_CREATE))
        return err_set(err, errlen, ENOENT,
                       "no results database at %s (nothing recorded there yet?)", path);
    if (!exists) {
        int e = make_parent_dirs(path, err, errlen);
        if (!e)
            e = check_creatable(path, err, errlen);
        if (e)
            return e;
    }
    struct store *s = NULL;
    int e = store_new(path, flags, &s, err, errlen);
    if (e)
        return e;
    *out = s;
    unsigned of = (s->readonly ? SQLDB_OPEN_READONLY : 0) |
                  (flags & STORE_OPEN_CREATE ? SQLDB_OPEN_CREATE : 0) | (uri ? SQLDB_OPEN_URI : 0);
    int rc = sqldb_open(path, of, &s->db);
    if (rc != SQLDB_OK)
        return s->db ? store_db_err(s, rc, "opening the results database", err, errlen)
                     : err_set(err, errlen, ENOMEM, "out of memory");
    /* SQLite quietly opens read-only when the file or file system forbids writing. */
    if (sqldb_readonly(s->db))
        s->readonly = true;
    /* Nothing may be written before we know this is our database. */
    return check_database(s, err, errlen);
}

/* Durability and integrity settings of a writable SQLite store. */
static int setup_sqlite(struct store *s, char *err, size_t errlen)
{
    const char *what = "setting up the database";
    int e = 0;
    if (!s->readonly) {
        /* WAL keeps readers and the writer apart; FULL syncs the WAL on every
         * commit, so a run reported committed survives power loss. */
        e = store_exec(s, "PRAGMA journal_mode = WAL", what, err, errlen);
        if (!e)
            e = store_exec(s, "PRAGMA synchronous = FULL", what, err, errlen);
    }
    if (!e)
        e = store_exec(s, "PRAGMA foreign_keys = ON", what, err, errlen);
    return e;
}

int store_open(const char *path, unsigned flags, struct store **out, char *err, size_t errlen)
{
    bool uri = flags & STORE_OPEN_IMMUTABLE_RETRY;
    bool pg = sqldb_is_postgres_url(path);
    struct store *s = NULL;
    *out = NULL;
    int e = uri ? 0 : store_check_path(path, err, errlen);
    if (e)
        return e;
    e = pg ? open_pg(path, flags, &s, err, errlen) : open_sqlite(path, flags, uri, &s, err, errlen);
    if (!pg && e && s && s->readonly && (e == -ENOENT || e == -EACCES || e == -EROFS) && !uri) {
        /* A WAL database on a read-only file system cannot create its -shm
         * file; with no -wal file left (a clean close) there is nothing but
         * the main file to read, so reading it as immutable is exact. */
        store_close(s);
        return open_immutable(path, out, err, errlen);
    }
    if (!e && !pg)
        e = setup_sqlite(s, err, errlen);
    if (!e && s->version < STORE_SCHEMA_VERSION) {
        if (s->readonly && s->version == 0)
            e = err_set(err, errlen, ENOENT, "%s is empty (no netab results recorded yet)",
                        s->path);
        else if (s->readonly)
            e = err_set(err, errlen, EROFS,
                        "%s has schema version %d and needs upgrading to %d, but it is read-only",
                        s->path, s->version, STORE_SCHEMA_VERSION);
        else
            e = migrate(s, err, errlen);
    }
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
    sqldb_close(s->db);
    free(s->path);
    free(s);
}

bool store_is_url(const char *path)
{
    return sqldb_is_postgres_url(path);
}

const char *store_display_path(const char *path, char *buf, size_t len)
{
    char *r = redact_url(path);
    /* Without memory for the copy, print nothing of it rather than a password. */
    snprintf(buf, len, "%s", r ? r : "(the results store)");
    free(r);
    return buf;
}

bool store_is_server(const struct store *s)
{
    return sqldb_dialect(s->db) == SQLDB_POSTGRES;
}

int store_campaign_lock(struct store *s, int64_t experiment_id, char *err, size_t errlen)
{
    int rc = sqldb_lock_try(s->db, PG_LOCK_SPACE, (int32_t)experiment_id);
    if (rc == 1)
        return 0;
    if (rc == 0)
        return err_set(err, errlen, EBUSY,
                       "another netab is running experiment %lld on %s (it holds the "
                       "experiment's lock in the database); wait for it or stop it first",
                       (long long)experiment_id, s->path);
    return store_db_err(s, rc, "taking the experiment's lock", err, errlen);
}

void store_campaign_unlock(struct store *s, int64_t experiment_id)
{
    sqldb_unlock(s->db, PG_LOCK_SPACE, (int32_t)experiment_id);
}

int store_campaign_lock_held(struct store *s, int64_t experiment_id)
{
    int rc = sqldb_lock_held(s->db, PG_LOCK_SPACE, (int32_t)experiment_id);
    return rc == 0 || rc == 1 ? rc : -1;
}

int store_schema_version(const struct store *s)
{
    return s->version;
}

int store_open_default(const char *given, unsigned flags, struct store **out, char *err,
                       size_t errlen)
{
    char path[4096];
    *out = NULL;
    int e = store_default_path(given, path, sizeof(path), err, errlen);
    return e ? e : store_open(path, flags, out, err, errlen);
}

const char *store_path(const struct store *s)
{
    return s->path;
}
