#include "creport/campaign_report_steal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

/* The larger steal_pct of a result's two ends; -1 when neither end has one. */
static double run_steal(const json_t *result)
{
    const json_t *cpu = json_object_get(json_object_get(result, "end"), "cpu");
    const char *ends[] = {"local", "remote"};
    double most = -1;
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_object_get(json_object_get(cpu, ends[i]), "steal_pct");
        double s = json_is_number(v) ? json_number_value(v) : NAN;
        if (isfinite(s) && s > most)
            most = s;
    }
    return most;
}

int creport_steal_warning(struct creport *r, const struct store_run *runs, size_t nruns)
{
    size_t measured = 0, over = 0;
    double most = 0;
    for (size_t k = 0; k < nruns; k++) {
        json_t *doc = runs[k].result_json ? json_loads(runs[k].result_json, 0, NULL) : NULL;
        double s = run_steal(doc);
        json_decref(doc);
        if (s < 0)
            continue;
        measured++;
        if (s > CREPORT_STEAL_WARN_PCT) {
            over++;
            most = s > most ? s : most;
        }
    }
    if (!over)
        return 0;
    char b[320];
    snprintf(b, sizeof(b),
             "the hypervisor took CPU time (steal) above %g%% in %zu of %zu runs (up to %.1f%%): "
             "while a vCPU waits neither end runs, so throughput dips and latency grows at random",
             CREPORT_STEAL_WARN_PCT, over, measured, most);
    return json_array_append_new(r->env_warnings, json_string(b)) ? -ENOMEM : 0;
}
