#include "measure/taskstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure/procfile.h"

pid_t taskstat_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

int taskstat_parse_schedstat(const char *text, uint64_t *cpu_ns)
{
    return sscanf(text, "%" SCNu64, cpu_ns) == 1 ? 0 : -EINVAL;
}

/* The number after "key:" at the start of a line of text. */
static int line_value(const char *text, const char *key, uint64_t *v)
{
    size_t n = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, key, n) && p[n] == ':')
            return sscanf(p + n + 1, "%" SCNu64, v) == 1 ? 0 : -EINVAL;
    }
    return -EINVAL;
}

int taskstat_parse_status(const char *text, uint64_t *vcsw, uint64_t *ivcsw)
{
    if (line_value(text, "voluntary_ctxt_switches", vcsw) ||
        line_value(text, "nonvoluntary_ctxt_switches", ivcsw))
        return -EINVAL;
    return 0;
}

int taskstat_parse_stat(const char *text, uint64_t *minflt, uint64_t *majflt)
{
    /* The name in parentheses may hold spaces and ')': fields start after the last ')'. */
    const char *p = strrchr(text, ')');
    if (!p)
        return -EINVAL;
    /* Fields 3..12: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt. */
    char state;
    long long skip[5];
    unsigned flags;
    uint64_t cmin;
    if (sscanf(p + 1, " %c %lld %lld %lld %lld %lld %u %" SCNu64 " %" SCNu64 " %" SCNu64, &state,
               &skip[0], &skip[1], &skip[2], &skip[3], &skip[4], &flags, minflt, &cmin,
               majflt) != 10)
        return -EINVAL;
    return 0;
}

int taskstat_parse_sched(const char *text, uint64_t *migrations)
{
    const char *p = strstr(text, "\nse.nr_migrations");
    if (!p || !(p = strchr(p, ':')))
        return -EINVAL;
    return sscanf(p + 1, "%" SCNu64, migrations) == 1 ? 0 : -EINVAL;
}

/* Reads dir/name and parses it with one of the parsers above. */
static int read_file(const char *dir, const char *name, char **text)
{
    char path[96];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return procfile_read(path, text);
}

int taskstat_read(const char *dir, struct taskstat *t)
{
    memset(t, 0, sizeof(*t));
    char *ss = NULL, *st = NULL, *sp = NULL, *sc = NULL;
    int rc = read_file(dir, "schedstat", &ss);
    if (!rc)
        rc = read_file(dir, "status", &st);
    if (!rc)
        rc = read_file(dir, "stat", &sp);
    if (!rc && (taskstat_parse_schedstat(ss, &t->cpu_ns) ||
                taskstat_parse_status(st, &t->vcsw, &t->ivcsw) ||
                taskstat_parse_stat(sp, &t->minflt, &t->majflt)))
        rc = -EINVAL;
    if (!rc && !read_file(dir, "sched", &sc))
        t->have_migrations = taskstat_parse_sched(sc, &t->migrations) == 0;
    free(ss);
    free(st);
    free(sp);
    free(sc);
    /*
     * A thread that exits while its files are read: the directory may still
     * open but a read then fails with ESRCH. Either way it is gone: one errno.
     */
    if (rc == -ESRCH)
        rc = -ENOENT;
    if (rc)
        memset(t, 0, sizeof(*t));
    return rc;
}

int taskstat_self(struct taskstat *t)
{
    int rc = taskstat_read("/proc/thread-self", t);
    /* schedstat lags a running thread by up to a tick; its own clock does not. */
    struct timespec ts;
    if (!rc && !clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        t->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return rc;
}

int taskstat_thread(pid_t tid, struct taskstat *t)
{
    char dir[48];
    snprintf(dir, sizeof(dir), "/proc/self/task/%d", (int)tid);
    return taskstat_read(dir, t);
}

static uint64_t grew(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

void taskstat_add_delta(struct taskstat *acc, const struct taskstat *a, const struct taskstat *b)
{
    acc->cpu_ns += grew(a->cpu_ns, b->cpu_ns);
    acc->vcsw += grew(a->vcsw, b->vcsw);
    acc->ivcsw += grew(a->ivcsw, b->ivcsw);
    acc->minflt += grew(a->minflt, b->minflt);
    acc->majflt += grew(a->majflt, b->majflt);
    acc->migrations += grew(a->migrations, b->migrations);
}
