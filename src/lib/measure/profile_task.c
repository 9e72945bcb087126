/*
 * The test's scope of a profile: per-task sampling events that follow the
 * test's threads, and the softirq functions that tell the kernel work done
 * for the test apart from other tasks' work (profile.h).
 *
 * Why per-task events, one per (thread, CPU), inherited: an event of one
 * task follows it to every CPU, and with inherit = 1 every thread the task
 * starts later gets an event of its own, enabled and disabled with its
 * parent's and writing into its ring. The kernel refuses to map the ring
 * of an inherited event that follows its task to every CPU (cpu = -1: all
 * its children would write into one buffer from every CPU at once), so the
 * events are per CPU, as `perf record -p` opens them, and the events of
 * one CPU share a ring (PERF_EVENT_IOC_SET_OUTPUT). perf_event_open(pid =
 * this process) follows only the thread whose id that is, not the threads
 * that already run (the in-process server's, the reader's), so each is
 * opened by its id from /proc/self/task. Per-thread events opened by the
 * data threads themselves as they start would need a hook in every kind
 * of thread and miss the threads netab starts outside them.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/perfctr.h"
#include "measure/profile_priv.h"

static const char *const softirq_fns[PROFILE_SOFTIRQ_FNS] = {"handle_softirqs", "__do_softirq"};

void profile_softirq_ranges(struct profile *p)
{
    for (int i = 0; i < PROFILE_SOFTIRQ_FNS; i++)
        if (!psym_kernel_range(&p->sym, softirq_fns[i], &p->softirq_lo[i], &p->softirq_hi[i]))
            p->softirq_lo[i] = p->softirq_hi[i] = 0;
}

bool profile_in_softirq(const struct profile *p, const uint64_t *u, uint64_t n)
{
    for (uint64_t k = 0; k < n; k++)
        for (int i = 0; i < PROFILE_SOFTIRQ_FNS; i++)
            if (u[k] >= p->softirq_lo[i] && u[k] < p->softirq_hi[i])
                return true;
    return false;
}

static int add_fd(struct profile_tasks *t, int fd)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        int *n = realloc(t->fd, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        t->fd = n;
        t->cap = cap;
    }
    t->fd[t->n++] = fd;
    return 0;
}

/*
 * The group's members with the leader fd of thread tid on the tasks' CPU
 * i, each after its leader in t->fd (so a leader is every grp.nev-th); one
 * of a thread that ended meanwhile is a -1 there.
 */
static int open_members(struct profile *p, int fd, int tid, int i)
{
    for (int k = 1; k < p->grp.nev; k++) {
        int m = profile_member_open(p, k, fd, tid, p->tasks.cpu[i], true);
        if (m < 0 && m != -ESRCH) {
            snprintf(p->why, sizeof(p->why), "cannot count %s with %s of thread %d on CPU %d: %s",
                     profile_event_name(p->grp.ev[k]), profile_event_name(p->ev), tid,
                     p->tasks.cpu[i], strerror(-m));
            return m;
        }
        if (add_fd(&p->tasks, m)) {
            if (m >= 0)
                close(m);
            snprintf(p->why, sizeof(p->why), "out of memory");
            return -ENOMEM;
        }
    }
    return 0;
}

/* One thread's event on the tasks' CPU i: the CPU's ring is the first one's. */
static int open_one(struct profile *p, int tid, int i)
{
    struct profile_tasks *t = &p->tasks;
    struct perf_event_attr a;
    profile_attr(p, true, &a);
    a.inherit = 1;
    long fd = syscall(SYS_perf_event_open, &a, tid, t->cpu[i], -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        char r[64];
        if (e == ESRCH) /* the thread ended since the listing: nothing of it to sample */
            return 0;
        perfctr_reason(e, profile_event_hw(p->ev), -1, r, sizeof(r));
        snprintf(p->why, sizeof(p->why), "cannot sample %s of thread %d on CPU %d: %s%s",
                 profile_event_name(p->ev), tid, t->cpu[i], r,
                 e == EACCES || e == EPERM
                     ? " (a process's own threads with kernel stacks need root or <= 1)"
                     : "");
        return -e;
    }
    if (add_fd(t, (int)fd)) {
        close((int)fd);
        snprintf(p->why, sizeof(p->why), "out of memory");
        return -ENOMEM;
    }
    if (!t->ring[i]) {
        if (!(t->ring[i] = profile_map(p, (int)fd))) {
            snprintf(p->why, sizeof(p->why), "cannot map the sample buffer of CPU %d: %s",
                     t->cpu[i], strerror(errno));
            return -ENOMEM;
        }
        t->ring_fd[i] = (int)fd;
    } else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, t->ring_fd[i])) {
        int e = errno;
        snprintf(p->why, sizeof(p->why), "cannot share the sample buffer of CPU %d: %s", t->cpu[i],
                 strerror(e));
        return -e;
    }
    return open_members(p, (int)fd, tid, i);
}

static int open_all(struct profile *p)
{
    struct profile_tasks *t = &p->tasks;
    for (int i = 0; i < t->ncpus; i++)
        t->ring_fd[i] = -1;
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        snprintf(p->why, sizeof(p->why), "cannot list this process's threads: %s", strerror(errno));
        return -errno;
    }
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        int tid = atoi(e->d_name);
        for (int i = 0; tid > 0 && !rc && i < t->ncpus; i++)
            rc = open_one(p, tid, i);
    }
    closedir(d);
    return rc;
}

void profile_tasks_ioctl(struct profile *p, unsigned long request)
{
    for (size_t i = 0; i < p->tasks.n; i++)
        ioctl(p->tasks.fd[i], request, 0);
}

void profile_tasks_close(struct profile *p)
{
    struct profile_tasks *t = &p->tasks;
    for (int i = 0; i < t->ncpus; i++) {
        if (t->ring[i])
            munmap(t->ring[i], p->ring_len);
        t->ring[i] = NULL;
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->fd[i] >= 0)
            close(t->fd[i]);
    free(t->fd);
    t->fd = NULL;
    t->n = t->cap = 0;
}

/*
 * A kernel before 6.12 refuses the group's counts in the samples of an
 * inherited event (PERF_SAMPLE_READ with inherit: EINVAL): the test's
 * threads are then sampled with the first event alone, and the note says
 * so, rather than no profile at all. The CPU-wide events keep no group
 * either, so that every sample has the same form.
 */
int profile_tasks_open(struct profile *p)
{
    int rc = open_all(p);
    if (rc != -EINVAL || p->grp.nev < 2)
        return rc;
    profile_tasks_close(p);
    p->why[0] = '\0';
    p->grp.nev = 1;
    p->agg.nval = 0;
    size_t at = strlen(p->note);
    snprintf(p->note + at, sizeof(p->note) - at,
             "%sonly %s sampled: this kernel refuses a group's counts in an inherited event's "
             "samples (Linux 6.12 has them)",
             at ? "; " : "", profile_event_name(p->ev));
    return open_all(p);
}
