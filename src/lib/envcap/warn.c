/* env_warnings(): what in a snapshot makes benchmark numbers less trustworthy. */
#include "envcap/envcap.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Above this 1-minute load average, something else is competing for the CPUs. */
#define LOAD_WARN 0.5

static void add(json_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *w, const char *fmt, ...)
{
    char buf[1400];
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

/* Warnings about the clock: governor not "performance", turbo on. */
static void clock_warnings(json_t *w, const json_t *env)
{
    governor(w, json_object_get(env, "cpufreq"));
    if (json_is_true(json_object_get(json_object_get(env, "turbo"), "enabled")))
        add(w, "turbo/boost is on: the clock speed depends on temperature and on how many cores "
               "are busy");
}

/* Warnings about the machine's layout: SMT on, irqbalance running. */
static void topology_warnings(json_t *w, const json_t *env)
{
    json_t *smt = json_object_get(json_object_get(env, "cpu"), "smt_active");
    if (json_is_integer(smt) && json_integer_value(smt) == 1)
        add(w, "SMT (hyper-threading) is on (informational): sibling threads share a core");
    if (json_is_true(json_object_get(env, "irqbalance")))
        add(w, "irqbalance is running: it may move the NIC's interrupts between CPUs during a run");
}

/*
 * How a competing process is named: its comm with its command line, "netab
 * (netab server -p 5299)", so that a reader can tell whose it is; the comm
 * alone when the command line was not recorded (older snapshots, kernel
 * threads, a process gone before it was read).
 */
static void proc_name(const json_t *p, char *buf, size_t len)
{
    const char *comm = json_string_value(json_object_get(p, "comm"));
    const char *cmd = json_string_value(json_object_get(p, "cmdline"));
    if (cmd && *cmd)
        snprintf(buf, len, "%s (%s)", comm ? comm : "?", cmd);
    else
        snprintf(buf, len, "%s", comm ? comm : "?");
}

/* The 1-minute load average of env if it is above LOAD_WARN, else a negative number. */
static double high_load(const json_t *env)
{
    json_t *l1 = json_object_get(json_object_get(env, "load"), "avg1");
    return json_is_number(l1) && json_number_value(l1) > LOAD_WARN ? json_number_value(l1) : -1;
}

json_t *env_warnings(const json_t *env)
{
    json_t *w = json_array();
    if (!w || !json_is_object(env))
        return w;
    clock_warnings(w, env);
    double load = high_load(env);
    if (load >= 0)
        add(w, "1-minute load average is %.2f (above %.1f): other work is competing for the CPUs",
            load, LOAD_WARN);
    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(env, "noise_processes"), i, p)
    {
        char name[400];
        proc_name(p, name, sizeof(name));
        add(w, "another benchmark process is running: %s (pid %lld)", name,
            (long long)json_integer_value(json_object_get(p, "pid")));
    }
    topology_warnings(w, env);
    return w;
}

/* Tallies over the runs: counts[message] for setting warnings, counts[name] for processes. */
struct tally {
    bool by_name; /* processes named by their program name alone (comm) */
    size_t runs, load_runs, proc_runs;
    double load_max;
    json_t *settings; /* message -> runs that had it, in first-seen order */
    json_t *procs;    /* proc_name() -> occurrences over all runs, in first-seen order */
};

static int count_up(json_t *counts, const char *key)
{
    json_t *c = json_object_get(counts, key);
    json_int_t n = c ? json_integer_value(c) : 0;
    return json_object_set_new(counts, key, json_integer(n + 1));
}

/* Adds one run's snapshot to t. Returns 0 or -1 when out of memory. */
static int tally_add(struct tally *t, const json_t *env)
{
    t->runs++;
    double load = high_load(env);
    if (load >= 0) {
        t->load_runs++;
        t->load_max = load > t->load_max ? load : t->load_max;
    }
    json_t *procs = json_object_get(env, "noise_processes"), *p, *s;
    size_t i;
    t->proc_runs += json_array_size(procs) > 0;
    json_array_foreach(procs, i, p)
    {
        char name[400];
        const char *comm = json_string_value(json_object_get(p, "comm"));
        if (t->by_name)
            snprintf(name, sizeof(name), "%s", comm ? comm : "?");
        else
            proc_name(p, name, sizeof(name));
        if (count_up(t->procs, name))
            return -1;
    }
    json_t *w = json_array();
    if (!w)
        return -1;
    clock_warnings(w, env);
    topology_warnings(w, env);
    int e = 0;
    json_array_foreach(w, i, s) e |= count_up(t->settings, json_string_value(s));
    json_decref(w);
    return e;
}

/* The sentences of t: settings (with how many runs when not all), load, processes. */
static void tally_sentences(const struct tally *t, json_t *out)
{
    const char *k;
    json_t *v;
    json_object_foreach(t->settings, k, v)
    {
        size_t n = (size_t)json_integer_value(v);
        if (n < t->runs)
            add(out, "%s (in %zu of %zu runs)", k, n, t->runs);
        else
            add(out, "%s", k);
    }
    if (t->load_runs)
        add(out,
            "1-minute load average above %.1f in %zu of %zu runs (up to %.2f): other work was "
            "competing for the CPUs",
            LOAD_WARN, t->load_runs, t->runs, t->load_max);
    if (!t->proc_runs)
        return;
    /* By name the sentence stays one line of a mail: the list is cut sooner. */
    char list[1200] = "";
    size_t used = 0, room = t->by_name ? 40 : sizeof(list);
    json_object_foreach(t->procs, k, v)
    {
        int n = snprintf(list + used, sizeof(list) - used, "%s%s x%lld", used ? ", " : "", k,
                         (long long)json_integer_value(v));
        if (n < 0 || (size_t)n >= room - used - 8) {
            /* Out of room: say that the list goes on rather than cut a name. */
            list[used] = '\0';
            strcat(list, ", ...");
            break;
        }
        used += (size_t)n;
    }
    add(out, "competing %sprocesses in %zu of %zu runs: %s", t->by_name ? "" : "benchmark ",
        t->proc_runs, t->runs, list);
}

/* env_warnings_summary() (by_name false) and env_warnings_summary_by_name(). */
static json_t *summary(const json_t *const *envs, size_t n, bool by_name)
{
    struct tally t = {.by_name = by_name};
    t.settings = json_object();
    t.procs = json_object();
    json_t *out = json_array();
    int e = !t.settings || !t.procs || !out;
    for (size_t i = 0; !e && i < n; i++)
        if (json_is_object(envs[i]))
            e = tally_add(&t, envs[i]);
    if (!e)
        tally_sentences(&t, out);
    json_decref(t.settings);
    json_decref(t.procs);
    if (e) {
        json_decref(out);
        return NULL;
    }
    return out;
}

json_t *env_warnings_summary(const json_t *const *envs, size_t n)
{
    return summary(envs, n, false);
}

json_t *env_warnings_summary_by_name(const json_t *const *envs, size_t n)
{
    return summary(envs, n, true);
}
