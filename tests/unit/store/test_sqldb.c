/*
 * The database layer's text work (sqldb.h): SQLite placeholders rewritten
 * for PostgreSQL, and passwords removed from URLs before anything prints
 * or stores them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqldb.h"

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

static void check_redact(const char *in, const char *want)
{
    char *out = sqldb_redact(in);
    assert_non_null(out);
    assert_string_equal(out, want);
    free(out);
}

static void test_redact(void **state)
{
    (void)state;
    check_redact("postgresql://u:secret@db.lab/netab", "postgresql://u@db.lab/netab");
    check_redact("postgres://u:secret@db.lab:5433/netab?sslmode=require",
                 "postgres://u@db.lab:5433/netab?sslmode=require");
    /* A password holding '@' or ':' is removed whole. */
    check_redact("postgresql://u:p@ss:w@h/db", "postgresql://u@h/db");
    /* In the query string, wherever it stands. */
    check_redact("postgresql://u@h/db?password=secret", "postgresql://u@h/db");
    check_redact("postgresql://u@h/db?password=secret&sslmode=require",
                 "postgresql://u@h/db?sslmode=require");
    check_redact("postgresql://u@h/db?sslmode=require&password=secret",
                 "postgresql://u@h/db?sslmode=require");
    check_redact("postgresql://u@h/db?a=1&password=secret&b=2", "postgresql://u@h/db?a=1&b=2");
    check_redact("postgresql://u:x@/db?host=/tmp/s&password=y", "postgresql://u@/db?host=/tmp/s");
    /* Nothing to remove. */
    check_redact("postgresql://u@h/db", "postgresql://u@h/db");
    check_redact("postgresql:///db?host=/run/pg", "postgresql:///db?host=/run/pg");
    check_redact("postgresql://h:5432/db", "postgresql://h:5432/db");
    /* Files are not URLs, even with ':' or '@' in their names. */
    check_redact("/tmp/a:b@c/results.db", "/tmp/a:b@c/results.db");
    check_redact("dir/x://y", "dir/x://y");
}

static void test_redact_text(void **state)
{
    (void)state;
    char *t = sqldb_redact_text("netab run --db postgresql://u:pw@h/db -t 1 "
                                "{\"argv\": \"x --db=postgres://v:s3@h2/d?password=p2\"}");
    assert_non_null(t);
    assert_string_equal(t, "netab run --db postgresql://u@h/db -t 1 "
                           "{\"argv\": \"x --db=postgres://v@h2/d\"}");
    free(t);
    t = sqldb_redact_text("no url here: a:b@c");
    assert_string_equal(t, "no url here: a:b@c");
    free(t);
    assert_null(sqldb_redact_text(NULL));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placeholders),
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_redact_text),
        cmocka_unit_test(test_is_postgres),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
