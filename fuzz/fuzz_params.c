/*
 * A "start" message's parameters as the server decodes them
 * (params_from_json), and the checks it applies before accepting a test.
 * A decoded test must re-encode to an object that decodes to the same test,
 * its flows and threads (--flows) included.
 */
#include "fuzz.h"

#include <jansson.h>

#include "engine/params.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *obj = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!obj)
        return 0;
    struct test_params p;
    char err[NB_ERRLEN] = "";
    if (params_from_json(obj, &p, err, sizeof(err)) == 0) {
        FUZZ_CHECK(params_validate(&p, err, sizeof(err)) == 0, "decoded parameters are valid");
        FUZZ_CHECK(params_connections(&p) >= 1, "a test has connections");
        json_t *again = params_to_json(&p);
        struct test_params q;
        FUZZ_CHECK(again && params_from_json(again, &q, err, sizeof(err)) == 0,
                   "decoded parameters re-encode to valid parameters");
        FUZZ_CHECK(q.kind == p.kind && q.streams == p.streams && q.block == p.block &&
                       q.bytes == p.bytes,
                   "re-encoding keeps the test");
        /* A --flows test (issue 30) stays one: the server sizes its event loops from these. */
        FUZZ_CHECK(q.flows == p.flows && q.threads == p.threads, "re-encoding keeps the flows");
        FUZZ_CHECK(!p.flows || params_connections(&p) == (p.bidir ? 2 : 1) * p.flows,
                   "a flows test has a connection per flow and direction");
        json_decref(again);
    } else {
        FUZZ_CHECK(err[0] != '\0', "refused parameters have an error sentence");
    }
    json_decref(obj);
    return 0;
}
