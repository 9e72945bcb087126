/*
 * What netab bisect says when the DUT never came back (bisect/report.h):
 * the resume command, and what resuming does with the run that lost it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bisect/report.h"
#include "netab_assert.h"

static void test_lost_text(void **state)
{
    (void)state;
    static struct bisect_result res;
    struct bisect_step steps[1] = {{.decision = BISECT_LOST}};
    char text[512];
    res.session = 7;
    res.dut_lost = true;
    /* Lost before any step (at the references): they are measured again. */
    bisect_lost_text(&res, "/tmp/s.db", text, sizeof(text));
    assert_string_equal(text, "the DUT never came back; the bisection stops. Bring it back (a "
                              "working kernel), then: netab bisect resume --db /tmp/s.db --id 7 "
                              "(what was cut short is measured again)");
    res.steps = steps;
    res.nsteps = 1;
    bisect_lost_text(&res, "/tmp/s.db", text, sizeof(text));
    assert_non_null(strstr(text, "(the commit whose run lost it is then skipped)"));
    steps[0].lost_on_good = true;
    bisect_lost_text(&res, "/tmp/s.db", text, sizeof(text));
    assert_non_null(strstr(text, "(what was cut short is measured again)"));
    /* A PostgreSQL store is named without its password, as every message names it. */
    bisect_lost_text(&res, "postgresql://alice:s3cret@db.lab/netab", text, sizeof(text));
    assert_non_null(strstr(text, "resume --db postgresql://alice@db.lab/netab --id 7"));
    assert_null(strstr(text, "s3cret"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
