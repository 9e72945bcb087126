/*
 * `netab import` inputs: input_runs_parse() on iperf3 -J and iperf2 text
 * (format detected), and input_run_document() on every run it returns:
 * each run has a finite throughput, and a refused input has a sentence.
 */
#include "fuzz.h"

#include <math.h>

#include "input/input_runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fuzz_strdup(data, size);
    struct input_run *runs = NULL;
    size_t n = 0;
    char err[NB_ERRLEN] = "";
    int rc = input_runs_parse("fuzz", buf, size, INPUT_AUTO, &runs, &n, err, sizeof(err));
    if (rc == 0) {
        FUZZ_CHECK(n > 0, "an accepted input has a run");
        for (size_t i = 0; i < n; i++) {
            FUZZ_CHECK(isfinite(runs[i].receiver_bps), "every run has a finite throughput");
            json_t *doc = input_run_document(&runs[i], "fuzz", buf);
            FUZZ_CHECK(doc != NULL, "every run becomes a document");
            json_decref(doc);
        }
    } else {
        FUZZ_CHECK(err[0] != '\0', "a refused input has an error sentence");
    }
    input_runs_free(runs, n);
    free(buf);
    return 0;
}
