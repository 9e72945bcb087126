/* env_warnings(): what in a snapshot makes benchmark numbers less trustworthy. */
#include "envcap/envcap.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Above this 1-minute load average, something else is competing for the CPUs. */
#define LOAD_WARN 0.5

static void add(json_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *w, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(w, json_string(buf));
}

static void governor(json_t *w, const json_t *cpufreq)
{
    const char *g = json_string_value(json_object_get(cpufreq, "governor"));
    if (g) {
        if (strcmp(g, "performance"))
            add(w,
                "CPU frequency governor is \"%s\", not \"performance\": clock speed changes with "
                "load, which adds noise",
                g);
        return;
    }
    /* Not uniform: name the CPUs whose governor is known and not "performance". */
    json_t *per = json_object_get(cpufreq, "per_cpu"), *o;
    size_t i;
    char list[256] = "";
    size_t used = 0;
    json_array_foreach(per, i, o)
    {
        const char *pg = json_string_value(json_object_get(o, "governor"));
        if (pg && strcmp(pg, "performance") && used < sizeof(list)) {
            int n = snprintf(list + used, sizeof(list) - used, "%s%lld:%s", used ? ", " : "",
                             (long long)json_integer_value(json_object_get(o, "cpu")), pg);
            if (n > 0)
                used += (size_t)n;
        }
    }
    if (used)
        add(w, "CPU frequency governor is not \"performance\" on every CPU (%s)", list);
}

json_t *env_warnings(const json_t *env)
{
    json_t *w = json_array();
    if (!w || !json_is_object(env))
        return w;

    governor(w, json_object_get(env, "cpufreq"));

    if (json_is_true(json_object_get(json_object_get(env, "turbo"), "enabled")))
        add(w, "turbo/boost is on: the clock speed depends on temperature and on how many cores "
               "are busy");

    json_t *l1 = json_object_get(json_object_get(env, "load"), "avg1");
    if (json_is_number(l1) && json_number_value(l1) > LOAD_WARN)
        add(w, "1-minute load average is %.2f (above %.1f): other work is competing for the CPUs",
            json_number_value(l1), LOAD_WARN);

    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(env, "noise_processes"), i, p)
    {
        add(w, "another benchmark process is running: %s (pid %lld)",
            json_string_value(json_object_get(p, "comm")),
            (long long)json_integer_value(json_object_get(p, "pid")));
    }

    json_t *smt = json_object_get(json_object_get(env, "cpu"), "smt_active");
    if (json_is_integer(smt) && json_integer_value(smt) == 1)
        add(w, "SMT (hyper-threading) is on (informational): sibling threads share a core");

    if (json_is_true(json_object_get(env, "irqbalance")))
        add(w, "irqbalance is running: it may move the NIC's interrupts between CPUs during a run");
    return w;
}
