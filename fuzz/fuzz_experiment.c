/*
 * Experiment files (YAML) as `netab experiment` and `netab campaign` read
 * them: experiment_load_buffer parses and validates the whole file, then
 * the matrix is expanded into cells as a campaign would.
 */
#include "fuzz.h"

#include "experiment/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct experiment *e = NULL;
    struct exp_errors errs = {0};
    int rc = experiment_load_buffer((const char *)data, size, &e, &errs);
    if (rc == 0) {
        FUZZ_CHECK(e != NULL, "a loaded experiment exists");
        struct exp_cell *cells = NULL;
        size_t n = 0;
        if (experiment_cells(e, &cells, &n) == 0)
            exp_cells_free(cells, n);
        experiment_free(e);
    } else {
        FUZZ_CHECK(e == NULL, "a refused experiment yields nothing");
        FUZZ_CHECK(rc == -ENOMEM || errs.n > 0, "a refused experiment says why");
    }
    exp_errors_free(&errs);
    return 0;
}
