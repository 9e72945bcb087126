/*
 * --sections in every format (src/lib/report/select.c):
 * the format names, which sections the HTML page and the CSV table refuse,
 * and the JSON document cut to the named sections.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "report/report.h"

static void test_format_parse(void **state)
{
    (void)state;
    enum creport_format f = CREPORT_TEXT;
    char err[256];
    assert_int_equal(creport_format_parse("md", &f, err, sizeof(err)), 0);
    assert_int_equal(f, CREPORT_MARKDOWN);
    assert_int_equal(creport_format_parse("html", &f, err, sizeof(err)), 0);
    assert_int_equal(f, CREPORT_HTML);
    assert_int_equal(creport_format_parse("pdf", &f, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--format: 'pdf' is not text, markdown, csv, json, html or ktap");
    assert_int_equal(creport_format_parse("ktap", &f, err, sizeof(err)), 0);
    assert_int_equal(f, CREPORT_KTAP);
}

static void test_sections_check(void **state)
{
    (void)state;
    char err[512];
    /* Every format takes the default, --full and the headline. */
    for (int f = CREPORT_TEXT; f <= CREPORT_HTML; f++) {
        assert_int_equal(creport_sections_check(f, 0, err, sizeof(err)), 0);
        assert_int_equal(creport_sections_check(f, CREPORT_SEC_ALL, err, sizeof(err)), 0);
        assert_int_equal(creport_sections_check(f, CREPORT_SEC_HEADLINE, err, sizeof(err)), 0);
    }
    assert_int_equal(creport_sections_check(CREPORT_JSON, CREPORT_SEC_COUNTERS, err, sizeof(err)),
                     0);
    assert_int_equal(creport_sections_check(CREPORT_HTML,
                                            CREPORT_SEC_HEADLINE | CREPORT_SEC_COUNTERS, err,
                                            sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "--sections counters: the HTML page has no such section"));
    assert_int_equal(creport_sections_check(CREPORT_CSV, CREPORT_SEC_TABLES | CREPORT_SEC_EFFECTS,
                                            err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "--sections effects: the CSV is one table"));
    /* KTAP has only its tests: any section is refused, the default and --full are not. */
    assert_int_equal(creport_sections_check(CREPORT_KTAP, 0, err, sizeof(err)), 0);
    assert_int_equal(creport_sections_check(CREPORT_KTAP, CREPORT_SEC_ALL, err, sizeof(err)), 0);
    assert_int_equal(creport_sections_check(CREPORT_KTAP, CREPORT_SEC_VERDICT, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "--sections verdict: KTAP has only the tests"));
}

static void test_json_select(void **state)
{
    (void)state;
    json_t *doc =
        json_pack("{s:i, s:{s:i}, s:[], s:[], s:[], s:{}, s:[], s:[], s:i, s:{}, s:[]}",
                  "report_version", 1, "experiment", "id", 7, "variants", "cells", "headline",
                  "summary", "results", "effects", "exit_status", 1, "runs", "future_member");
    assert_non_null(doc);
    json_t *full = json_deep_copy(doc);
    assert_int_equal(creport_json_select(doc, CREPORT_SEC_ALL), 0);
    assert_true(json_equal(doc, full));
    assert_int_equal(creport_json_select(doc, CREPORT_SEC_HEADLINE | CREPORT_SEC_EFFECTS), 0);
    const char *kept[] = {"report_version", "experiment", "variants",     "cells",
                          "headline",       "effects",    "future_member"};
    assert_int_equal(json_object_size(doc), sizeof(kept) / sizeof(*kept));
    for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++)
        assert_non_null(json_object_get(doc, kept[i]));
    json_decref(doc);
    json_decref(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_sections_check),
        cmocka_unit_test(test_json_select),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
