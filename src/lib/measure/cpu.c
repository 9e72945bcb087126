/*
 * CPU utilisation from /proc/stat and getrusage().
 *
 * The system-wide figures matter most for network benchmarks: much of the
 * cost of moving packets is paid in softirq context, often on a CPU other
 * than the one running netab, and never shows up in the process's rusage.
 */
#include "measure/cpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The aggregate line's fields we keep, in /proc/stat order (proc(5)). */
enum { F_USER, F_NICE, F_SYSTEM, F_IDLE, F_IOWAIT, F_IRQ, F_SOFTIRQ, F_STEAL, F_COUNT };

/* Every kernel since 2.4 reports at least user, nice, system and idle. */
#define F_REQUIRED 4

/* Finds the line starting with "cpu " (the aggregate, not "cpu0 ") in text. */
static const char *find_cpu_line(const char *text)
{
    const char *p = text;
    while (p && *p) {
        if (!strncmp(p, "cpu", 3) && (p[3] == ' ' || p[3] == '\t'))
            return p + 3;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

int cpu_parse_proc_stat(const char *text, struct cpu_sample *s)
{
    uint64_t f[F_COUNT] = {0};
    const char *p;
    int n = 0;

    if (!text || !s)
        return -EINVAL;
    p = find_cpu_line(text);
    if (!p)
        return -EINVAL;
    while (n < F_COUNT) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            break; /* end of line, or something that is not a counter */
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno == ERANGE)
            return -EINVAL;
        f[n++] = v;
        p = end;
    }
    /* A field glued to junk ("123abc") means the line is not what we think it is. */
    if (n < F_REQUIRED || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0'))
        return -EINVAL;
    s->user = f[F_USER];
    s->nice = f[F_NICE];
    s->system = f[F_SYSTEM];
    s->idle = f[F_IDLE];
    s->iowait = f[F_IOWAIT];
    s->irq = f[F_IRQ];
    s->softirq = f[F_SOFTIRQ];
    s->steal = f[F_STEAL];
    return 0;
}

static uint64_t timeval_us(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/*
 * Reads /proc/stat line by line rather than whole: on large machines the file
 * is tens of KiB (one line per CPU plus the interrupt counts) and the line we
 * need is the first.
 */
int cpu_sample_take(struct cpu_sample *s, char *err, size_t errlen)
{
    struct rusage ru;
    struct timespec ts;
    char *line = NULL;
    size_t cap = 0;
    int rc = -EINVAL;

    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return err_set(err, errlen, errno, "cannot open /proc/stat: %s", strerror(errno));
    while (getline(&line, &cap, f) >= 0) {
        if (!strncmp(line, "cpu ", 4)) {
            rc = cpu_parse_proc_stat(line, s);
            break;
        }
    }
    free(line);
    fclose(f);
    if (rc)
        return err_set(err, errlen, EINVAL,
                       "/proc/stat has no readable aggregate \"cpu\" line, so CPU use "
                       "cannot be measured");

    if (getrusage(RUSAGE_SELF, &ru))
        return err_set(err, errlen, errno, "getrusage failed: %s", strerror(errno));
    s->proc_user_us = timeval_us(ru.ru_utime);
    s->proc_system_us = timeval_us(ru.ru_stime);

    if (clock_gettime(CLOCK_MONOTONIC, &ts))
        return err_set(err, errlen, errno, "clock_gettime failed: %s", strerror(errno));
    s->mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

    long n = sysconf(_SC_NPROCESSORS_ONLN);
    s->online_cpus = n > 0 ? (int)n : 1;
    return 0;
}

/*
 * Counters can go backwards when a CPU goes offline (its ticks leave the
 * aggregate), so a negative delta counts as zero rather than wrapping.
 */
static uint64_t delta(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void cpu_usage_between(const struct cpu_sample *a, const struct cpu_sample *b,
                       struct cpu_usage *out)
{
    uint64_t user = delta(a->user, b->user);
    uint64_t nice = delta(a->nice, b->nice);
    uint64_t system = delta(a->system, b->system);
    uint64_t idle = delta(a->idle, b->idle);
    uint64_t iowait = delta(a->iowait, b->iowait);
    uint64_t irq = delta(a->irq, b->irq);
    uint64_t softirq = delta(a->softirq, b->softirq);
    uint64_t steal = delta(a->steal, b->steal);
    /* guest and guest_nice are not added: the kernel already counts them in user and nice. */
    uint64_t all = user + nice + system + idle + iowait + irq + softirq + steal;

    memset(out, 0, sizeof(*out));
    out->total_pct = pct(all - idle - iowait, all);
    out->user_pct = pct(user + nice, all);
    out->system_pct = pct(system, all);
    out->softirq_pct = pct(softirq, all);
    out->irq_pct = pct(irq, all);
    out->steal_pct = pct(steal, all);

    out->online_cpus =
        b->online_cpus > 0 ? b->online_cpus : (a->online_cpus > 0 ? a->online_cpus : 1);
    out->seconds = (double)delta(a->mono_ns, b->mono_ns) / 1e9;
    out->busy_us = out->total_pct / 100.0 * out->seconds * out->online_cpus * 1e6;

    uint64_t proc_a = a->proc_user_us + a->proc_system_us;
    uint64_t proc_b = b->proc_user_us + b->proc_system_us;
    out->proc_us = (double)delta(proc_a, proc_b);
    double window_us = out->seconds * 1e6;
    out->proc_pct = window_us > 0 ? out->proc_us / window_us * 100.0 : 0.0;
}

double cpu_service_demand_us_per_kib(const struct cpu_usage *u, uint64_t bytes)
{
    return bytes ? u->busy_us / ((double)bytes / 1024.0) : 0.0;
}

double cpu_service_demand_us_per_tran(const struct cpu_usage *u, uint64_t transactions)
{
    return transactions ? u->busy_us / (double)transactions : 0.0;
}
