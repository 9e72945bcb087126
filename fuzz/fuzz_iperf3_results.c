/*
 * An iperf3 server's results document as netab's iperf3 client reads it:
 * the first byte picks the test (streams 1..8, TCP or UDP, direction), the
 * rest is the document (iperf3_json_parse without duplicate checks, as for
 * results), decoded into the run's remote side (iperf3_peer_remote_side)
 * and rendered as netab's JSON (run_json_build).
 */
#include "fuzz.h"

#include <jansson.h>

#include "engine/run_result.h"
#include "proto/iperf3_peer.h"
#include "proto/iperf3_wire.h"
#include "runout/run_json.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct test_params p;
    params_defaults(&p);
    p.streams = 1 + data[0] % 8;
    p.kind = data[0] & 0x08 ? TEST_UDP_STREAM : TEST_TCP_STREAM;
    p.reverse = (data[0] & 0x30) == 0x10;
    p.bidir = (data[0] & 0x30) == 0x20;
    int n = params_connections(&p);
    bool sends[16];
    for (int i = 0; i < n; i++)
        sends[i] = p.reverse || (p.bidir && i >= p.streams);
    json_t *doc = NULL;
    char err[NB_ERRLEN] = "";
    if (iperf3_json_parse((const char *)data + 1, size - 1, false, &doc, err, sizeof(err))) {
        FUZZ_CHECK(err[0] != '\0', "a refused document has an error sentence");
        return 0;
    }
    struct run_result res;
    run_result_init(&res);
    res.params = p;
    err[0] = '\0';
    if (iperf3_peer_remote_side(doc, &p, sends, &res, err, sizeof(err)) == 0) {
        FUZZ_CHECK(res.have_remote && res.remote.n == n, "the remote side has every stream");
        FUZZ_CHECK(res.peer && json_object_get(res.peer, "cpu_process"), "the peer is described");
        for (int i = 0; i < n; i++)
            FUZZ_CHECK(res.remote.streams[i].sender == sends[i], "directions are the test's");
        json_t *out = run_json_build(&res);
        FUZZ_CHECK(out != NULL, "the run renders");
        json_decref(out);
    } else {
        FUZZ_CHECK(err[0] != '\0', "refused results have an error sentence");
    }
    run_result_free(&res);
    json_decref(doc);
    return 0;
}
