/* Passwords out of database URLs (util/redact.h): URLs alone and inside command lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/redact.h"

static void check_redact(const char *in, const char *want)
{
    char *out = redact_url(in);
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
    char *t = redact_text("netab run --db postgresql://u:pw@h/db -t 1 "
                          "{\"argv\": \"x --db=postgres://v:s3@h2/d?password=p2\"}");
    assert_non_null(t);
    assert_string_equal(t, "netab run --db postgresql://u@h/db -t 1 "
                           "{\"argv\": \"x --db=postgres://v@h2/d\"}");
    free(t);
    t = redact_text("no url here: a:b@c");
    assert_string_equal(t, "no url here: a:b@c");
    free(t);
    assert_null(redact_text(NULL));
}

/* A command line to show: passwords out of every word, words quoted only where sh needs it. */
static void test_redact_command(void **state)
{
    (void)state;
    const char *const argv[] = {"report", "--db=postgresql://u:pw@h/db?password=x&sslmode=require",
                                "--db",   "postgres://u:p%40w@h:5432/db",
                                "it's",   "",
                                "a b",    "1,2"};
    char *c = redact_command(argv, sizeof(argv) / sizeof(*argv));
    assert_non_null(c);
    assert_string_equal(c, "report '--db=postgresql://u@h/db?sslmode=require' --db "
                           "postgres://u@h:5432/db 'it'\\''s' '' 'a b' 1,2");
    free(c);
    c = redact_command(argv, 0);
    assert_string_equal(c, "");
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_redact_text),
        cmocka_unit_test(test_redact_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
