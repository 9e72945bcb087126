/*
 * What every report format lets out (issue 34): no PostgreSQL password,
 * whether it comes from the report's own --db (the HTML page's command to
 * reproduce) or from a stored run's command line; no raw control byte in
 * text and Markdown, where names from outside (variants, cells, the
 * experiment, kernel words) are shown as \xNN; no CSV field a spreadsheet
 * would run as a formula; and the command to reproduce names what was asked,
 * shell-quoted.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "report/report.h"
#include "plot/plot.h"

enum { PER = 3 };

/* The passwords planted below; none may appear in any format. */
static const char *const passwords[] = {"s3cret", "hunter2", "pw2", "pa55"};

static const char *const variant_names[2] = {"base\x1b[2J\x07",
                                             "=HYPERLINK(\"http://evil/\",\"x\")"};

/* A report of two hostile-named variants in one hostile-named cell, PER runs each. */
static struct creport *hostile_report(void)
{
    static char argv_json[] =
        "{\"argv\": [\"run\", \"--db\", \"postgresql://bob:hunter2@db/x?password=pw2\", \"-c\", "
        "\"x y\"]}";
    struct store_experiment x = {.id = 7, .name = "exp\x1b]0;title\x07", .status = "done"};
    struct store_plan_row plan[2 * PER];
    struct store_run runs[2 * PER];
    memset(runs, 0, sizeof(runs));
    size_t n = 0;
    for (int k = 0; k < PER; k++)
        for (int v = 0; v < 2; v++) {
            plan[n] =
                (struct store_plan_row){(int)n, (char *)variant_names[v], "+cmd|/c calc", false, k};
            struct store_run *r = &runs[n];
            r->id = (int64_t)n + 1;
            r->seq = (int)n;
            r->status = STORE_RUN_OK;
            /* An old store's command line with a password; the other variant's argv has one. */
            r->argv_text = v ? NULL : "netab run --db postgresql://alice:s3cret@db.lab/netab -c x";
            r->params_json = v ? argv_json : NULL;
            r->receiver_bps = 1e9 * (1 + 0.01 * k + 0.05 * v);
            r->sender_bps = r->receiver_bps;
            r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct = r->cpu_remote_pct =
                r->transactions_per_second = r->latency_p50_us = r->latency_p99_us =
                    r->lost_percent = r->local_process_us_per_kib = r->remote_process_us_per_kib =
                        NAN;
            n++;
        }
    struct creport_opts o;
    creport_opts_default(&o);
    o.sections = CREPORT_SEC_ALL;
    struct creport *r = NULL;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, NULL, plan, n, runs, n, &o, &r, err, sizeof(err)), 0);
    return r;
}

/* Not inlined: GCC 12 then takes the memstream buffer for a dangling local. */
__attribute__((noinline)) static char *render(const struct creport *r, enum creport_format fmt)
{
    static const char *const cmd[] = {"report",
                                      "--db",
                                      "postgresql://carol:pa55@db/x",
                                      "--experiments",
                                      "1,2",
                                      "--label",
                                      "kernel",
                                      "--plot",
                                      "my figures",
                                      NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(creport_render(r, fmt, cmd, f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* Fails when a field of CSV text starts as a formula: =, +, @, tab, CR, or - and no number. */
static void assert_no_formula(const char *csv)
{
    for (const char *p = csv; *p;) {
        const char *field = *p == '"' ? p + 1 : p;
        char c = *field;
        if (c == '=' || c == '+' || c == '@' || c == '\t' || c == '\r')
            fail_msg("CSV field starts with a formula: '%.40s'", field);
        if (c == '-') {
            char *end;
            (void)strtod(field, &end);
            if (end == field || !strchr(",;\n\"", *end))
                fail_msg("CSV field starts with '-' and is no number: '%.40s'", field);
        }
        /* The next field: past this one's closing quote (doubled quotes inside), then a comma. */
        bool quoted = *p == '"';
        for (p += quoted; *p; p++) {
            if (quoted && *p == '"' && p[1] == '"') {
                p++;
                continue;
            }
            if (quoted && *p == '"')
                quoted = false;
            else if (!quoted && (*p == ',' || *p == '\n'))
                break;
        }
        if (*p)
            p++;
    }
}

static void test_no_password_in_any_format(void **state)
{
    (void)state;
    struct creport *r = hostile_report();
    for (int fmt = CREPORT_TEXT; fmt <= CREPORT_HTML; fmt++) {
        char *out = render(r, (enum creport_format)fmt);
        ASSERT_GT(strlen(out), 100);
        for (size_t i = 0; i < sizeof(passwords) / sizeof(*passwords); i++)
            if (strstr(out, passwords[i]))
                fail_msg("format %d shows the password '%s'", fmt, passwords[i]);
        free(out);
    }
    /* The page names the store without its password, what was asked, and quotes a blank. */
    char *h = render(r, CREPORT_HTML);
    assert_non_null(strstr(h, "netab report --db postgresql://carol@db/x --experiments 1,2 "
                              "--label kernel --plot 'my figures' &gt; report.html"));
    assert_non_null(strstr(h, "netab run --db postgresql://alice@db.lab/netab -c x"));
    assert_non_null(strstr(h, "run --db postgresql://bob@db/x -c 'x y'"));
    free(h);
    creport_free(r);
}

static void test_text_and_markdown_are_printable(void **state)
{
    (void)state;
    struct creport *r = hostile_report();
    for (int fmt = CREPORT_TEXT; fmt <= CREPORT_MARKDOWN; fmt++) {
        char *out = render(r, (enum creport_format)fmt);
        for (const char *p = out; *p; p++)
            if ((unsigned char)*p < 0x20 && *p != '\n')
                fail_msg("format %d writes the control byte 0x%02x: '%.30s'", fmt, *p,
                         p > out + 10 ? p - 10 : out);
        /* The names are still there, readable. */
        assert_non_null(strstr(out, "\\x1b]0;title\\x07"));
        assert_non_null(strstr(out, "base\\x1b[2J\\x07"));
        free(out);
    }
    /* HTML shows them as \xNN too (the page is text a terminal may show). */
    char *h = render(r, CREPORT_HTML);
    assert_null(strchr(h, '\x1b'));
    assert_null(strchr(h, '\x07'));
    assert_non_null(strstr(h, "base\\x1b[2J\\x07"));
    free(h);
    /* JSON escapes control bytes by itself (\u001B). */
    char *j = render(r, CREPORT_JSON);
    assert_null(strchr(j, '\x1b'));
    assert_non_null(strstr(j, "exp\\u001B]0;title\\u0007"));
    free(j);
    creport_free(r);
}

static void test_csv_has_no_formula(void **state)
{
    (void)state;
    struct creport *r = hostile_report();
    char *c = render(r, CREPORT_CSV);
    assert_no_formula(c);
    /* The hostile names are kept, as text. */
    assert_non_null(strstr(c, "\"'=HYPERLINK(\"\"http://evil/\"\",\"\"x\"\")\",'+cmd|/c calc,"));
    free(c);
    creport_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_password_in_any_format),
        cmocka_unit_test(test_text_and_markdown_are_printable),
        cmocka_unit_test(test_csv_has_no_formula),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    plot_shutdown(); /* fontconfig's caches (the HTML's figures), for LeakSanitizer */
    return failed;
}
