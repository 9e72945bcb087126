/* The state of a profile, shared by profile.c (sampling) and profile_json.c (its document). */
#ifndef NETAB_MEASURE_PROFILE_PRIV_H
#define NETAB_MEASURE_PROFILE_PRIV_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/profile.h"
#include "measure/profile_agg.h"
#include "measure/profile_sym.h"

#define MAX_STACK 32
#define PROFILE_SOFTIRQ_FNS 2 /* handle_softirqs, __do_softirq: every softirq runs in one */

/* The per-task events of the test's scope: one per (thread, CPU), one ring per CPU. */
struct profile_tasks {
    int *fd; /* n descriptors, each inherited by the threads its thread starts */
    size_t n, cap;
    int ncpus;
    int cpu[PROFILE_MAX_CPUS];
    int ring_fd[PROFILE_MAX_CPUS]; /* the event whose ring the CPU's other events write to */
    void *ring[PROFILE_MAX_CPUS];
};

struct profile {
    enum profile_event ev;
    enum profile_scope scope;
    unsigned freq;
    uint32_t self; /* this process's id: the test's threads in the test's scope */
    int ncpus;     /* the CPU-wide events (in the test's scope: the test's CPUs) */
    int cpu[PROFILE_MAX_CPUS];
    int fd[PROFILE_MAX_CPUS];
    void *ring[PROFILE_MAX_CPUS];
    struct profile_tasks tasks;
    size_t ring_len, page;
    char why[256];  /* non-empty: no profile, and why */
    char note[256]; /* what the profile lacks (CPU-wide events, a PMU), and why; at most 255 */
    uint64_t softirq_lo[PROFILE_SOFTIRQ_FNS], softirq_hi[PROFILE_SOFTIRQ_FNS];
    /* The CPU-wide events' samples: all, the idle task's outside softirq, and (test's scope)
     * other tasks' softirq work kept and other tasks' other work left out. */
    uint64_t cpu_samples, idle, kernel_work, other;
    uint64_t cpu_time0_ns,
        cpu_time_ns; /* this process's CPU time at enabling, and over the window */
    /* The kernel's symbols (loaded at opening for the softirq functions) and the processes'
     * mappings, names, forks and exits, from the records as the reader takes them. */
    struct psym sym;
    pthread_t reader;
    bool reader_running;
    atomic_bool stop;
    pthread_mutex_t lock; /* agg and lost, between the reader and a final drain */
    struct pagg agg;
    uint64_t lost, throttled;
    uint64_t enabled_ns, sampled_ns;
};

struct perf_event_attr;

/*
 * The sampling event's attributes (disabled, with call chains); records:
 * with the MMAP2, COMM, FORK and EXIT records that name user code.
 */
void profile_attr(const struct profile *p, bool records, struct perf_event_attr *a);

/* Maps an event's ring buffer (ring_len bytes); NULL when it cannot. */
void *profile_map(const struct profile *p, int fd);

/*
 * The test's scope: opens a disabled per-task event for each thread of
 * this process on each online CPU, inherited by the threads each starts,
 * the events of a CPU writing to one ring. Returns 0, or a negative errno
 * with p->why set (profile_task.c).
 */
int profile_tasks_open(struct profile *p);

/* Enables or disables every per-task event (and so the events the threads inherited). */
void profile_tasks_ioctl(struct profile *p, unsigned long request);

void profile_tasks_close(struct profile *p);

/* The kernel's softirq functions' address ranges, for telling softirq work (profile_task.c). */
void profile_softirq_ranges(struct profile *p);

/* True when a kernel call chain u[0..n) passes through a softirq function. */
bool profile_in_softirq(const struct profile *p, const uint64_t *u, uint64_t n);

/* A function's counts while the document is made (profile_json.c). */
struct profile_fn {
    const char *symbol, *module; /* owned by the symboliser */
    uint64_t self;
    json_t *callers; /* {symbol: samples} */
};

/*
 * The full profile of fns[0..n) (sorted, most samples first):
 * {"functions": {module: {symbol: samples}}, "omitted_functions",
 * "omitted_samples"}, the functions listed while the rows' estimated size
 * in an indented document (name + 24 bytes a row, module name + 24 a
 * module) stays within PROFILE_FULL_BYTES; the first row over the budget
 * and every one after it are only counted, so no omitted function has
 * more samples than a listed one. The budget keeps a server's result
 * within one control frame and a stored run small (docs/profile.md).
 * Names are cut to 255 bytes on a UTF-8 boundary; cut names that meet add
 * up; a name jansson refuses (not UTF-8) is counted as omitted. New
 * reference, NULL when out of memory.
 */
json_t *profile_full_json(const struct profile_fn *fns, size_t n);

#endif
