/*
 * `netab stats` inputs: input_parse_buffer, the function behind every file
 * `netab stats` and `netab compare --from` read, with the format forced to
 * FUZZ_FORMAT (one harness per format, built from this file) so each
 * parser gets the whole budget of its harness. INPUT_AUTO tests detection.
 */
#include "fuzz.h"

#include <math.h>

#include "input/input.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT INPUT_AUTO
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fuzz_strdup(data, size);
    struct input_opts o = {.format = FUZZ_FORMAT};
    struct input_values v = {0};
    char err[NB_ERRLEN] = "";
    int rc = input_parse_buffer("fuzz", buf, size, &o, &v, err, sizeof(err));
    if (rc == 0) {
        for (size_t i = 0; i < v.n; i++)
            FUZZ_CHECK(isfinite(v.v[i]), "every value read is a finite number");
    } else {
        FUZZ_CHECK(err[0] != '\0', "a refused input has an error sentence");
    }
    input_values_free(&v);
    free(buf);
    return 0;
}
