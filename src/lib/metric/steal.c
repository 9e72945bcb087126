#include "metric/steal.h"

#include <math.h>
#include <stdio.h>

double metric_steal_pct(const json_t *result)
{
    const json_t *cpu = json_object_get(json_object_get(result, "end"), "cpu");
    static const char *const ends[] = {"local", "remote"};
    double most = NAN;
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = json_object_get(json_object_get(cpu, ends[i]), "steal_pct");
        double s = json_is_number(v) ? json_number_value(v) : NAN;
        if (isfinite(s) && !(most >= s))
            most = s;
    }
    return most;
}

void metric_steal_add(struct metric_steal *s, double pct)
{
    if (!isfinite(pct))
        return;
    s->runs++;
    if (pct > METRIC_STEAL_WARN_PCT) {
        s->over++;
        s->most = pct > s->most ? pct : s->most;
    }
}

bool metric_steal_sentence(const struct metric_steal *s, char *buf, size_t len)
{
    if (!s->over)
        return false;
    snprintf(buf, len,
             "the hypervisor took CPU time (steal) above %g%% in %zu of %zu runs (up to %.1f%%): "
             "while a vCPU waits neither end runs, so throughput dips and latency grows at random",
             METRIC_STEAL_WARN_PCT, s->over, s->runs, s->most);
    return true;
}
