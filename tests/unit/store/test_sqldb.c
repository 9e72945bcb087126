/*
 * The database layer's text work (sqldb.h): SQLite placeholders rewritten
 * for PostgreSQL, which targets are PostgreSQL URLs, and a backend's
 * message kept on one line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <stdlib.h>
#include <string.h>

#include "store/sqldb.h"
#include "store/sqldb_priv.h"

static void check_rewrite(const char *in, const char *want, int want_n)
{
    int n = -1;
    char *out = sqldb_rewrite_placeholders(in, &n);
    assert_non_null(out);
    assert_string_equal(out, want);
    assert_int_equal(n, want_n);
    free(out);
}

static void test_placeholders(void **state)
{
    (void)state;
    check_rewrite("SELECT 1", "SELECT 1", 0);
    check_rewrite("INSERT INTO t VALUES (?, ?, ?)", "INSERT INTO t VALUES ($1, $2, $3)", 3);
    /* Numbered ones keep their number and may repeat. */
    check_rewrite("WHERE a = ?1 AND b = ?2 OR c = ?1", "WHERE a = $1 AND b = $2 OR c = $1", 2);
    /* A bare ? after ?N is one more than the largest so far, as SQLite counts. */
    check_rewrite("?3, ?, ?1", "$3, $4, $1", 4);
    check_rewrite("?10 ?", "$10 $11", 11);
    /* Not inside strings or quoted identifiers, including doubled quotes. */
    check_rewrite("SELECT '?', \"a?\", 'it''s ?' FROM t WHERE x = ?",
                  "SELECT '?', \"a?\", 'it''s ?' FROM t WHERE x = $1", 1);
    check_rewrite("UPDATE runs SET a = ? WHERE id = ? AND status = 'running'",
                  "UPDATE runs SET a = $1 WHERE id = $2 AND status = 'running'", 2);
}

/* The layer over SQLite: typed binds and reads, NULLs, RETURNING id, changes, rollback. */
static void test_sqlite_backend(void **state)
{
    (void)state;
    struct sqldb *db;
    assert_int_equal(sqldb_open(":memory:", SQLDB_OPEN_CREATE, &db), SQLDB_OK);
    assert_int_equal(sqldb_dialect(db), SQLDB_SQLITE);
    assert_int_equal(sqldb_exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, "
                                    "d REAL, s TEXT UNIQUE)"),
                     SQLDB_OK);
    struct sqldb_stmt *st;
    assert_int_equal(sqldb_begin_write(db), SQLDB_OK);
    assert_true(sqldb_in_tx(db));
    assert_int_equal(
        sqldb_prepare(db, "INSERT INTO t (i, d, s) VALUES (?, ?, ?) RETURNING id", &st), SQLDB_OK);
    for (int k = 0; k < 2; k++) {
        sqldb_reset(st);
        assert_int_equal(sqldb_bind_int64(st, 1, INT64_C(1) << 40 | k), SQLDB_OK);
        assert_int_equal(sqldb_bind_double(st, 2, 0.1 + k), SQLDB_OK);
        assert_int_equal(sqldb_bind_text(st, 3, k ? NULL : "x"), SQLDB_OK);
        assert_int_equal(sqldb_step(st), SQLDB_ROW);
        assert_int_equal(sqldb_column_int64(st, 0), k + 1);
        assert_int_equal(sqldb_step(st), SQLDB_DONE);
    }
    sqldb_finalize(st);
    assert_int_equal(sqldb_commit(db), SQLDB_OK);
    assert_false(sqldb_in_tx(db));
    /* A constraint: the class says so, the message is SQLite's. */
    assert_int_equal(sqldb_exec(db, "INSERT INTO t (s) VALUES ('x')"), SQLDB_ECONSTRAINT);
    assert_non_null(strstr(sqldb_errmsg(db), "UNIQUE"));
    /* Rolled back: the row is gone. */
    assert_int_equal(sqldb_begin_write(db), SQLDB_OK);
    assert_int_equal(sqldb_exec(db, "UPDATE t SET i = 7"), SQLDB_OK);
    assert_int_equal(sqldb_changes(db), 2);
    sqldb_rollback(db);
    assert_int_equal(sqldb_prepare(db,
                                   "SELECT i, d, s FROM t WHERE id = ?1 OR id = ?1 + 1 "
                                   "ORDER BY id",
                                   &st),
                     SQLDB_OK);
    sqldb_bind_int64(st, 1, 1);
    assert_int_equal(sqldb_step(st), SQLDB_ROW);
    assert_int_equal(sqldb_column_int64(st, 0), INT64_C(1) << 40);
    ASSERT_EQ(sqldb_column_double(st, 1), 0.1);
    assert_string_equal(sqldb_column_text(st, 2), "x");
    assert_int_equal(sqldb_step(st), SQLDB_ROW);
    assert_true(sqldb_column_is_null(st, 2));
    assert_null(sqldb_column_text(st, 2));
    assert_int_equal(sqldb_step(st), SQLDB_DONE);
    sqldb_finalize(st);
    /* SQLite stores lock a file instead. */
    assert_int_equal(sqldb_lock_try(db, 1, 2), SQLDB_EOTHER);
    sqldb_close(db);
}

static void test_is_postgres(void **state)
{
    (void)state;
    assert_true(sqldb_is_postgres_url("postgresql://h/db"));
    assert_true(sqldb_is_postgres_url("postgres://h/db"));
    assert_false(sqldb_is_postgres_url("postgresql:/h/db"));
    assert_false(sqldb_is_postgres_url("results.db"));
    assert_false(sqldb_is_postgres_url(NULL));
}

/* libpq's two-line message ends in a newline; the sentence around it must stay one line. */
static void test_fail_one_line(void **state)
{
    (void)state;
    struct sqldb db = {0};
    assert_int_equal(sqldb_fail(&db, SQLDB_ECONN, "%s",
                                "server closed the connection unexpectedly\n\tThis probably "
                                "means the server terminated abnormally\n\tbefore or while "
                                "processing the request.\n"),
                     SQLDB_ECONN);
    assert_string_equal(sqldb_errmsg(&db),
                        "server closed the connection unexpectedly This probably means the server "
                        "terminated abnormally before or while processing the request.");
    sqldb_fail(&db, SQLDB_EOTHER, "\n no connection to the server \n\n");
    assert_string_equal(sqldb_errmsg(&db), "no connection to the server");
    sqldb_fail(&db, SQLDB_EOTHER, "plain");
    assert_string_equal(sqldb_errmsg(&db), "plain");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placeholders),
        cmocka_unit_test(test_sqlite_backend),
        cmocka_unit_test(test_is_postgres),
        cmocka_unit_test(test_fail_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
