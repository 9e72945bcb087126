/* Unit tests for engine/stream: the per-stream buffer a peer's parameters ask for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/stream.h"

static size_t rr_size(enum stream_role role, uint32_t req, uint32_t resp)
{
    struct test_params p;
    params_defaults(&p);
    p.kind = TEST_TCP_RR;
    p.req_size = req;
    p.resp_size = resp;
    struct stream s = {.role = role, .params = &p};
    return stream_buffer_size(&s);
}

/* Small messages: room for 64 of them per recv(), plus 64 KiB for response chunks. */
static void test_rr_small(void **state)
{
    (void)state;
    assert_int_equal(rr_size(ROLE_RR_SERVER, 1, 1), 64 + 65536);
    assert_int_equal(rr_size(ROLE_RR_CLIENT, 100, 200), 200 * 64 + 65536);
}

/*
 * The largest messages (1 MiB) once took 64 MiB per stream, touched by
 * memset: 8 GiB for one 128-stream test a peer may ask the server for.
 */
static void test_rr_large_is_bounded(void **state)
{
    (void)state;
    size_t mib = 1024 * 1024;
    size_t big = rr_size(ROLE_RR_SERVER, (uint32_t)mib, 1);
    ASSERT_GE(big, mib + 65536); /* a whole message still fits */
    ASSERT_LE(big, 2 * mib + 65536);
    ASSERT_LE(rr_size(ROLE_CRR_SERVER, 1, (uint32_t)mib), 2 * mib + 65536);
    ASSERT_GE(rr_size(ROLE_RR_CLIENT, 100000, 1), 100000 + 65536);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rr_small),
        cmocka_unit_test(test_rr_large_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
