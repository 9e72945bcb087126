#include "creport/campaign_report_steal.h"

#include "creport/campaign_report_env.h"
#include "metric/steal.h"

int creport_steal_warning(struct creport *r, const struct store_run *runs, size_t nruns)
{
    struct metric_steal s = {0};
    for (size_t k = 0; k < nruns; k++) {
        json_t *doc = runs[k].result_json ? json_loads(runs[k].result_json, 0, NULL) : NULL;
        metric_steal_add(&s, metric_steal_pct(doc));
        json_decref(doc);
    }
    char b[320];
    if (!metric_steal_sentence(&s, b, sizeof(b)))
        return 0;
    return creport_env_warn(r, b);
}
