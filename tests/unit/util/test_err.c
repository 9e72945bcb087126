/* Unit tests for util/err: err_set()'s return value and message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/err.h"

static void positive_and_negative_codes(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    assert_int_equal(err_set(err, sizeof(err), ENOENT, "no %s", "file"), -ENOENT);
    assert_string_equal(err, "no file");
    assert_int_equal(err_set(err, sizeof(err), -EPROTO, "bad %d", 7), -EPROTO);
    assert_string_equal(err, "bad 7");
}

/* errno read after a call that did not set it is 0: the result must still be a failure. */
static void zero_is_never_success(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    assert_int_equal(err_set(err, sizeof(err), 0, "went wrong"), -EIO);
    assert_string_equal(err, "went wrong");
    assert_int_equal(err_set(NULL, 0, 0, "nobody reads this"), -EIO);
}

/* The message is cut to the buffer, always terminated. */
static void message_fits_the_buffer(void **state)
{
    (void)state;
    char err[8];
    memset(err, 'x', sizeof(err));
    assert_int_equal(err_set(err, sizeof(err), EINVAL, "%s", "a long sentence"), -EINVAL);
    assert_string_equal(err, "a long ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(positive_and_negative_codes),
        cmocka_unit_test(zero_is_never_success),
        cmocka_unit_test(message_fits_the_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
