#include "report/steal.h"

#include "report/env.h"
#include "metric/steal.h"

int creport_steal_warning(struct creport *r, const struct creport_rundoc *runs, size_t nruns)
{
    struct metric_steal s = {0};
    for (size_t k = 0; k < nruns; k++)
        metric_steal_add(&s, runs[k].steal_pct);
    char b[320];
    if (!metric_steal_sentence(&s, b, sizeof(b)))
        return 0;
    return creport_env_warn(r, b);
}
