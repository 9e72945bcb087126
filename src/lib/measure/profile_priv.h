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

/*
 * A group of events (--profile=cycles,instructions,...): the first, the
 * leader, samples; the others count in its group, scheduled with it, and
 * each of the leader's samples reads the whole group (PERF_SAMPLE_READ,
 * PERF_FORMAT_GROUP). What each count grew by since the same event
 * instance's previous sample (its stream id) is that sample's, as `perf
 * record -e '{cycles,instructions}:S'` counts them.
 */
struct profile_group {
    int nev; /* the events, the leader's included; 1: no group */
    enum profile_event ev[PROFILE_MAX_EVENTS];
    int cpu_member[PROFILE_MAX_CPUS][PROFILE_MAX_EVENTS - 1]; /* the CPU-wide leaders' members */
    /* Each event instance's counts at its previous sample, by stream id (open addressing). */
    uint64_t *sid, *last; /* cap ids, cap * PROFILE_MAX_EVENTS counts */
    size_t cap, used;
    /* Each event's count read from the kernel's counters at the end (every group summed), and
     * the sum of the samples' shares of it (every sample read, kept or not). */
    uint64_t counted[PROFILE_MAX_EVENTS], sampled[PROFILE_MAX_EVENTS];
};

struct profile {
    enum profile_event ev;
    struct profile_group grp;
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

/* The type and config of event e in a. */
void profile_event_attr(enum profile_event e, struct perf_event_attr *a);

/* True for an event of the CPU's PMU. */
bool profile_event_hw(enum profile_event e);

/*
 * Opens member k (1..grp.nev) of the group whose leader is fd leader, for
 * pid on cpu (as perf_event_open(2) takes them); inherit as the leader's.
 * Returns the descriptor, or -errno.
 */
int profile_member_open(const struct profile *p, int k, int leader, int pid, int cpu, bool inherit);

/*
 * A group sample's read (u[0] the stream id, then the read: nr and nr
 * counts; words of them at most): each event's growth since that stream's
 * previous sample into d[], and into the sampled totals. Returns the words
 * it took, or 0 when the record is not a group's.
 */
size_t profile_group_take(struct profile *p, const uint64_t *u, size_t words, uint64_t *d);

/* Adds the group of leader fd's counts, read from the kernel, to the counted totals. */
void profile_group_read(struct profile *p, int fd);

/* The group's member of the run document ({"events", "counted", "sampled", "attributed"}). */
json_t *profile_group_json(const struct profile *p, const uint64_t *attributed);

/*
 * A function's figures from its group counts c[0..grp.nev) into o: "counts",
 * "shares_pct" (of attributed[]), "ipc" (instructions per cycle) and
 * "l1i_mpki" (L1-icache misses per 1,000 instructions), null where the
 * group lacks the events.
 */
void profile_group_fn_json(const struct profile *p, const uint64_t *c, const uint64_t *attributed,
                           json_t *o);

void profile_group_free(struct profile *p);

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
    uint64_t counts[PROFILE_MAX_EVENTS]; /* a group's counts (profile_group) */
    json_t *callers;                     /* {symbol: samples} */
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
