#include "measure/percpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/procfile.h"

/* Parses the counters after "cpuN"; fewer than four fields is malformed. */
static int parse_fields(const char *p, struct percpu_ticks *t)
{
    uint64_t f[8] = {0};
    int n = 0;
    while (n < 8) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            break;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno == ERANGE)
            return -EINVAL;
        f[n++] = v;
        p = end;
    }
    if (n < 4 || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0'))
        return -EINVAL;
    t->user = f[0];
    t->nice = f[1];
    t->system = f[2];
    t->idle = f[3];
    t->iowait = f[4];
    t->irq = f[5];
    t->softirq = f[6];
    t->steal = f[7];
    return 0;
}

int percpu_parse(const char *text, struct percpu_sample *s)
{
    memset(s, 0, sizeof(*s));
    int cap = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, "cpu", 3) || p[3] < '0' || p[3] > '9')
            continue;
        char *end;
        long cpu = strtol(p + 3, &end, 10);
        if (cpu < 0 || cpu >= PERCPU_MAX || (*end != ' ' && *end != '\t'))
            goto bad;
        if (s->n == cap) {
            int nc = cap ? cap * 2 : 16;
            struct percpu_ticks *c = realloc(s->cpus, (size_t)nc * sizeof(*c));
            if (!c) {
                percpu_sample_free(s);
                return -ENOMEM;
            }
            s->cpus = c;
            cap = nc;
        }
        struct percpu_ticks *t = &s->cpus[s->n];
        t->cpu = (int)cpu;
        if (parse_fields(end, t))
            goto bad;
        s->n++;
    }
    if (s->n)
        return 0;
bad:
    percpu_sample_free(s);
    return -EINVAL;
}

int percpu_take(struct percpu_sample *s)
{
    char *text;
    memset(s, 0, sizeof(*s));
    int rc = procfile_read("/proc/stat", &text);
    if (rc)
        return rc;
    rc = percpu_parse(text, s);
    free(text);
    return rc;
}

void percpu_sample_free(struct percpu_sample *s)
{
    free(s->cpus);
    s->cpus = NULL;
    s->n = 0;
}

/* A CPU that went offline and came back restarts its counters: never wrap. */
static uint64_t delta(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const struct percpu_ticks *find(const struct percpu_sample *s, int cpu, int hint)
{
    if (hint < s->n && s->cpus[hint].cpu == cpu)
        return &s->cpus[hint];
    for (int i = 0; i < s->n; i++)
        if (s->cpus[i].cpu == cpu)
            return &s->cpus[i];
    return NULL;
}

int percpu_between(const struct percpu_sample *a, const struct percpu_sample *b, double seconds,
                   struct percpu_usage **out, int *n)
{
    *out = calloc((size_t)(b->n ? b->n : 1), sizeof(**out));
    *n = 0;
    if (!*out)
        return -ENOMEM;
    for (int i = 0; i < b->n; i++) {
        const struct percpu_ticks *y = &b->cpus[i], *x = find(a, y->cpu, i);
        if (!x)
            continue; /* came online during the window: no baseline */
        uint64_t user = delta(x->user, y->user) + delta(x->nice, y->nice);
        uint64_t system = delta(x->system, y->system), idle = delta(x->idle, y->idle);
        uint64_t iowait = delta(x->iowait, y->iowait), irq = delta(x->irq, y->irq);
        uint64_t softirq = delta(x->softirq, y->softirq), steal = delta(x->steal, y->steal);
        uint64_t all = user + system + idle + iowait + irq + softirq + steal;
        struct percpu_usage *u = &(*out)[(*n)++];
        u->cpu = y->cpu;
        u->total_pct = pct(all - idle - iowait, all);
        u->user_pct = pct(user, all);
        u->system_pct = pct(system, all);
        u->softirq_pct = pct(softirq, all);
        u->irq_pct = pct(irq, all);
        u->busy_us = u->total_pct / 100.0 * seconds * 1e6;
    }
    return 0;
}
