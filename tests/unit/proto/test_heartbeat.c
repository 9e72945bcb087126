/* Unit tests for proto/heartbeat: when heartbeats go out and when a peer counts as gone. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "netab_assert.h"
#include "proto/frame.h"
#include "proto/heartbeat.h"
#include "util/clock.h"

#define MS 1000000ull

/* Frames waiting on fd (heartbeats the other end sent), without blocking. */
static int pending_heartbeats(int fd)
{
    int n = 0;
    char err[NB_ERRLEN];
    json_t *m;
    for (;;) {
        char c;
        if (recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 1)
            return n;
        assert_int_equal(frame_recv(fd, &m, clock_now_ns() + 100 * MS, err, sizeof(err)), 0);
        assert_true(heartbeat_is(m));
        json_decref(m);
        n++;
    }
}

/* One every tenth of the liveness timeout, gone after eight tenths of silence. */
static void test_schedule(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct heartbeat hb;
    char err[NB_ERRLEN] = "";
    uint64_t t0 = 1000 * MS;
    heartbeat_init(&hb, 5000, t0);
    assert_true(hb.on);
    /* The next deadline: the first heartbeat is due at once, the next one a tenth later. */
    ASSERT_EQ(heartbeat_next_ns(&hb), t0);
    assert_int_equal(heartbeat_tick(&hb, sv[0], "client", t0, err, sizeof(err)), 0);
    ASSERT_EQ(heartbeat_next_ns(&hb), t0 + 500 * MS);
    assert_int_equal(heartbeat_tick(&hb, sv[0], "client", t0 + 499 * MS, err, sizeof(err)), 0);
    assert_int_equal(pending_heartbeats(sv[1]), 1);
    assert_int_equal(heartbeat_tick(&hb, sv[0], "client", t0 + 500 * MS, err, sizeof(err)), 0);
    assert_int_equal(pending_heartbeats(sv[1]), 1);
    /* Silence up to 4 s is fine; a message restarts the clock. */
    assert_int_equal(heartbeat_tick(&hb, sv[0], "client", t0 + 4000 * MS, err, sizeof(err)), 0);
    heartbeat_seen(&hb, t0 + 4000 * MS);
    assert_int_equal(heartbeat_next_ns(&hb), t0 + 4500 * MS);
    assert_int_equal(heartbeat_tick(&hb, sv[0], "client", t0 + 8000 * MS, err, sizeof(err)), 0);
    /* The next send is due at 8.5 s, but the silence's limit comes first, just after 8 s. */
    ASSERT_EQ(heartbeat_next_ns(&hb), t0 + 8000 * MS + 1);
    assert_int_equal(heartbeat_tick(&hb, sv[0], "client", t0 + 8001 * MS, err, sizeof(err)),
                     -ETIMEDOUT);
    assert_non_null(strstr(err, "client vanished"));
    assert_non_null(strstr(err, "liveness timeout 5000 ms"));
    close(sv[0]);
    close(sv[1]);
}

/* Off (an older peer): never sends, never times out. */
static void test_off(void **state)
{
    (void)state;
    struct heartbeat hb;
    char err[NB_ERRLEN] = "";
    heartbeat_init(&hb, 0, 0);
    assert_false(hb.on);
    ASSERT_EQ(heartbeat_next_ns(&hb), UINT64_MAX);
    assert_int_equal(heartbeat_tick(&hb, -1, "server", UINT64_MAX / 2, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
