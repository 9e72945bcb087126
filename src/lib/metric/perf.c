#include "metric/perf.h"

#include <math.h>
#include <string.h>

/* end.perf.local or end.perf.remote of doc from a figure's path, or NULL. */
static const json_t *side_of(const json_t *doc, const char *path, const char **rest)
{
    static const char *const sides[] = {"end.perf.local.", "end.perf.remote."};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(sides[i]);
        if (!strncmp(path, sides[i], n)) {
            *rest = path + n;
            json_t *perf = json_object_get(json_object_get((json_t *)doc, "end"), "perf");
            return json_object_get(perf, i ? "remote" : "local");
        }
    }
    return NULL;
}

static bool num(const json_t *o, const char *key, double *out)
{
    const json_t *v = json_object_get(o, key);
    *out = json_number_value(v);
    return json_is_number(v) && isfinite(*out);
}

bool metric_perf_derived(const json_t *doc, const char *path, double *out)
{
    const char *rest;
    const json_t *side = side_of(doc, path, &rest);
    if (!side || strcmp(rest, "l1i_misses_per_kib"))
        return false;
    /* The ratios come from the CPU's counters when pinned (the threads' have none then). */
    const json_t *sys = json_object_get(side, "system");
    const json_t *hw =
        json_is_object(sys) && !json_is_number(json_object_get(side, "instructions")) ? sys : side;
    double misses, ins, ins_per_kib;
    if (!num(hw, "l1i_misses", &misses) || !num(hw, "instructions", &ins) || ins <= 0 ||
        !num(side, "instructions_per_kib", &ins_per_kib))
        return false;
    *out = misses / ins * ins_per_kib;
    return true;
}

const char *metric_perf_unavailable(const json_t *doc, const struct metric *m)
{
    const char *rest;
    const json_t *side = m ? side_of(doc, m->path, &rest) : NULL;
    /* Without --perf (test.perf) every run says "collected only with --perf": no news. */
    if (!json_is_object(side) ||
        !json_is_true(json_object_get(json_object_get((json_t *)doc, "test"), "perf")))
        return NULL;
    const char *counter = !strcmp(rest, "l1i_misses_per_kib") ? "l1i_misses" : "cycles";
    const json_t *why = json_object_get(json_object_get(side, "unavailable"), counter);
    const json_t *sys = json_object_get(side, "system");
    /* Pinned: the CPU's counters are the figures', and theirs the reason. */
    if (json_is_object(sys) && json_object_get(json_object_get(sys, "unavailable"), counter))
        why = json_object_get(json_object_get(sys, "unavailable"), counter);
    else if (json_is_object(sys))
        return NULL;
    return json_string_value(why);
}
