/*
 * The database layer's text work (sqldb.h): SQLite placeholders rewritten
 * for PostgreSQL, and which targets are PostgreSQL URLs.
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
        cmocka_unit_test(test_is_postgres),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
