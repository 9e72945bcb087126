/*
 * Per-thread figures the kernel keeps anyway, read from /proc without a
 * perf event: CPU time (schedstat, ns), voluntary and involuntary context
 * switches (status), minor and major page faults (stat) and CPU
 * migrations (sched, where the kernel has CONFIG_SCHED_DEBUG).
 *
 * Reading them costs the reader a few file reads and the measured threads
 * nothing: unlike a perf event attached to a task, nothing rides on the
 * thread's context switches. This is netab's default source of the
 * software figures of `end.perf.*`; perf events are opt-in (--perf).
 */
#ifndef NETAB_MEASURE_TASKSTAT_H
#define NETAB_MEASURE_TASKSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct taskstat {
    uint64_t cpu_ns;      /* time on a CPU, ns (schedstat's first field) */
    uint64_t vcsw, ivcsw; /* voluntary and involuntary context switches */
    uint64_t minflt, majflt;
    uint64_t migrations;
    bool have_migrations; /* false where the kernel has no /proc/.../sched */
};

/*
 * Reads the figures of the thread whose /proc directory is dir
 * ("/proc/thread-self", "/proc/self/task/1234"). Returns 0, -ENOENT when
 * the thread is gone (also when it exits while its files are read), or
 * another -errno when a file cannot be read or parsed (t is then zeroed). Only
 * the migration count may be missing; have_migrations says so.
 */
NB_MUST_CHECK int taskstat_read(const char *dir, struct taskstat *t);

/*
 * The calling thread's figures: taskstat_read("/proc/thread-self"), with
 * the CPU time from the thread's own clock (CLOCK_THREAD_CPUTIME_ID):
 * schedstat is updated only at scheduler ticks while a thread runs.
 */
NB_MUST_CHECK int taskstat_self(struct taskstat *t);

/*
 * Thread tid of this process: taskstat_read("/proc/self/task/TID"). A
 * running thread's cpu_ns may lag by up to a scheduler tick; a caller that
 * holds its pthread_t can take the exact time from pthread_getcpuclockid().
 */
NB_MUST_CHECK int taskstat_thread(pid_t tid, struct taskstat *t);

/* acc += b - a, counter by counter (a counter that went back counts 0). Pure. */
void taskstat_add_delta(struct taskstat *acc, const struct taskstat *a, const struct taskstat *b);

/*
 * Parsers of the three files, pure, for the readers above and the tests:
 * each returns 0 or -EINVAL when the text lacks the figure.
 */
NB_MUST_CHECK int taskstat_parse_schedstat(const char *text, uint64_t *cpu_ns);
NB_MUST_CHECK int taskstat_parse_status(const char *text, uint64_t *vcsw, uint64_t *ivcsw);
NB_MUST_CHECK int taskstat_parse_stat(const char *text, uint64_t *minflt, uint64_t *majflt);
NB_MUST_CHECK int taskstat_parse_sched(const char *text, uint64_t *migrations);

/* The calling thread's id (gettid). */
pid_t taskstat_gettid(void);

#endif
