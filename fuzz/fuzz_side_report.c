/*
 * The server's "result" message as the client decodes it
 * (side_report_from_json): a JSON object from the network, whose first
 * byte here picks the number of streams the client expects. A --flows test's
 * report carries "flows" (an array per figure) instead of "streams".
 */
#include "fuzz.h"

#include <jansson.h>

#include "engine/side_report.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int expected = 1 + data[0] % 8;
    json_error_t jerr;
    json_t *obj = json_loadb((const char *)data + 1, size - 1, JSON_REJECT_DUPLICATES, &jerr);
    if (!obj)
        return 0;
    struct side_report r = {0};
    char err[NB_ERRLEN] = "";
    if (side_report_from_json(obj, expected, &r, err, sizeof(err)) == 0) {
        FUZZ_CHECK(r.n == expected, "a decoded report has the expected streams");
        /* A --flows test's report (per-figure arrays) is read as one, and only that. */
        FUZZ_CHECK(r.flows == (json_object_get(obj, "flows") != NULL),
                   "a report is read as flows exactly when it has \"flows\"");
    } else {
        FUZZ_CHECK(err[0] != '\0', "a refused report has an error sentence");
    }
    side_report_free(&r);
    json_decref(obj);
    return 0;
}
