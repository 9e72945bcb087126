/*
 * An iperf3 client's parameter document as netab's server reads it
 * (iperf3_json_parse, then iperf3_params_from_json against the server's
 * default limits). An accepted test is valid (UDP datagrams from iperf3's
 * 16 bytes on, not netab's 24), within the limits, and the
 * document netab's own iperf3 client would send for it reads back as the
 * same test.
 */
#include "fuzz.h"

#include <jansson.h>

#include "proto/iperf3_doc.h"
#include "proto/iperf3_wire.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > IPERF3_PARAMS_MAX)
        return 0; /* the server refuses longer documents before reading them */
    json_t *doc = NULL;
    char err[NB_ERRLEN] = "";
    if (iperf3_json_parse((const char *)data, size, true, &doc, err, sizeof(err))) {
        FUZZ_CHECK(err[0] != '\0', "a refused document has an error sentence");
        return 0;
    }
    struct iperf3_limits lim = {.max_streams = 128, .max_duration = 3600};
    struct test_params p;
    struct iperf3_request req;
    params_defaults(&p);
    err[0] = '\0';
    if (iperf3_params_from_json(doc, &lim, &p, &req, err, sizeof(err)) == 0) {
        /* Valid with iperf3's shorter UDP header: datagrams from IPERF3_UDP_MIN_LEN bytes. */
        FUZZ_CHECK(params_validate_udp_min(&p, IPERF3_UDP_MIN_LEN, err, sizeof(err)) == 0,
                   "accepted parameters are valid");
        FUZZ_CHECK(p.kind != TEST_UDP_STREAM || p.block >= IPERF3_UDP_MIN_LEN,
                   "no UDP datagram shorter than iperf3's header");
        FUZZ_CHECK(params_connections(&p) <= lim.max_streams, "within --max-streams");
        FUZZ_CHECK(p.bytes || p.duration_s + p.omit_s <= lim.max_duration, "within --max-duration");
        FUZZ_CHECK(p.kind == TEST_TCP_STREAM || p.kind == TEST_UDP_STREAM, "a stream test");
        json_t *again = iperf3_params_to_json(&p);
        struct test_params q;
        struct iperf3_request r2;
        params_defaults(&q);
        FUZZ_CHECK(again && iperf3_params_from_json(again, &lim, &q, &r2, err, sizeof(err)) == 0,
                   "netab's own document for the test is accepted");
        FUZZ_CHECK(q.kind == p.kind && q.streams == p.streams && q.block == p.block &&
                       q.bytes == p.bytes && q.reverse == p.reverse && q.bidir == p.bidir,
                   "re-encoding keeps the test");
        json_decref(again);
    } else {
        FUZZ_CHECK(err[0] != '\0', "refused parameters have an error sentence");
    }
    json_decref(doc);
    return 0;
}
