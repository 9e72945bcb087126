/*
 * The bytes of an iperf3 control connection as netab reads them: the
 * front door's cookie checks, then a sequence of state bytes and
 * length-framed JSON documents (iperf3_state_recv, iperf3_json_recv) read
 * from a socket the input was written into, until the first refusal.
 * Every refusal names its reason; nothing waits past the input's end.
 */
#include "fuzz.h"

#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "proto/iperf3_wire.h"
#include "util/clock.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= IPERF3_COOKIE_LEN) {
        bool valid = iperf3_cookie_valid(data);
        FUZZ_CHECK(!valid || iperf3_cookie_prefix(data, 4), "a valid cookie has a valid prefix");
    }
    for (int id = -2; id < 12; id++) {
        int i = iperf3_stream_index(id, 8);
        FUZZ_CHECK(i < 0 || iperf3_stream_id(i) == id, "stream ids and indexes agree");
    }
    if (size > 64 * 1024)
        return 0; /* one socket buffer's worth, written at once */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        abort();
    int big = 256 * 1024;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    if (size && write(sv[0], data, size) != (ssize_t)size)
        abort();
    close(sv[0]);
    uint64_t deadline = clock_now_ns() + 1000000000ull;
    char err[NB_ERRLEN];
    for (int steps = 0; steps < 64; steps++) {
        int st = 0;
        err[0] = '\0';
        if (iperf3_state_recv(sv[1], &st, deadline, err, sizeof(err))) {
            FUZZ_CHECK(err[0] != '\0', "a failed state read says why");
            break;
        }
        FUZZ_CHECK(st != IPERF3_ACCESS_DENIED && st != IPERF3_SERVER_ERROR,
                   "refusal states are errors");
        if (st != IPERF3_PARAM_EXCHANGE && st != IPERF3_EXCHANGE_RESULTS)
            continue;
        json_t *doc = NULL;
        if (iperf3_json_recv(sv[1], st == IPERF3_PARAM_EXCHANGE ? IPERF3_PARAMS_MAX : 65536,
                             st == IPERF3_PARAM_EXCHANGE, &doc, deadline, err, sizeof(err))) {
            FUZZ_CHECK(err[0] != '\0', "a refused document says why");
            break;
        }
        FUZZ_CHECK(json_is_object(doc), "a document is an object");
        json_decref(doc);
    }
    close(sv[1]);
    return 0;
}
