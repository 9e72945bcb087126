#include "measure/profile.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "measure/perfctr.h"
#include "measure/profile_agg.h"
#include "measure/profile_priv.h"

#define RING_PAGES 64 /* 256 KiB per CPU: 20 ms of deep call chains at 999 Hz fit many times */
#define DRAIN_MS 20

static const char *const event_names[PROFILE_NEVENTS] = {
    "cpu-clock",        "cycles",     "instructions", "L1-icache-load-misses",
    "iTLB-load-misses", "task-clock", "page-faults",  "context-switches"};
static const char *const scope_names[] = {"test", "system"};

const char *profile_scope_name(enum profile_scope s)
{
    return s == PROFILE_SCOPE_SYSTEM ? scope_names[1] : scope_names[0];
}

int profile_scope_from_name(const char *name, enum profile_scope *s)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(name, scope_names[i])) {
            *s = i ? PROFILE_SCOPE_SYSTEM : PROFILE_SCOPE_TEST;
            return 0;
        }
    return -EINVAL;
}

const char *profile_event_name(enum profile_event e)
{
    return e < PROFILE_NEVENTS ? event_names[e] : "unknown";
}

int profile_event_from_name(const char *name, enum profile_event *e)
{
    for (int i = 0; i < PROFILE_NEVENTS; i++)
        if (!strcmp(name, event_names[i])) {
            *e = (enum profile_event)i;
            return 0;
        }
    return -EINVAL;
}

int profile_events_from_list(const char *list, enum profile_event *evs)
{
    int n = 0;
    for (const char *at = list;; at++) {
        size_t len = strcspn(at, ",");
        char name[32];
        if (!len || len >= sizeof(name) || n == PROFILE_MAX_EVENTS)
            return -EINVAL;
        memcpy(name, at, len);
        name[len] = '\0';
        if (profile_event_from_name(name, &evs[n]))
            return -EINVAL;
        for (int i = 0; i < n; i++)
            if (evs[i] == evs[n])
                return -EINVAL;
        n++;
        at += len;
        if (!*at)
            return n;
    }
}

void profile_attr(const struct profile *p, bool records, struct perf_event_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    profile_event_attr(p->ev, a);
    a->freq = 1;
    a->sample_freq = p->freq;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
    if (p->grp.nev > 1) { /* the group's counts with each sample (profile_group.c) */
        a->sample_type |= PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_READ;
        a->read_format = PERF_FORMAT_GROUP;
    }
    a->sample_max_stack = MAX_STACK;
    a->disabled = 1;
    a->exclude_hv = 1;
    a->wakeup_events = 0;
    /*
     * The records that name user code as it is mapped (executable mappings
     * only: mmap_data 0) and the processes' names, forks and exits: what
     * perf reads to name a process that is gone by the end
     * (profile_maps.c). Not build_id: with it set on netab's events, a
     * `perf record -C 0` running beside netab aborted here (kernel 6.18,
     * perf 6.1: "assertion failed at util/build-id.c", then a buffer
     * overflow), it seems because the kernel leaves the record's
     * PERF_RECORD_MISC_MMAP_BUILD_ID flag on for the other events it
     * writes the record to, which then read an inode as a build-id. The
     * inode tells a replaced file as well; build-ids come from the files.
     */
    a->comm = records;
    a->mmap = records;
    a->mmap2 = records;
    a->task = records;
}

void *profile_map(const struct profile *p, int fd)
{
    void *r = mmap(NULL, p->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return r == MAP_FAILED ? NULL : r;
}

/* The online CPUs, from /sys; falls back to 0..nprocs-1. */
static int online_cpus(int *cpu, int max)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    int n = 0;
    if (f) {
        int a, b;
        char sep;
        while (n < max && fscanf(f, "%d", &a) == 1) {
            b = a;
            if (fscanf(f, "%c", &sep) == 1 && sep == '-' && fscanf(f, "%d%c", &b, &sep) < 1)
                break;
            for (int c = a; c <= b && n < max; c++)
                cpu[n++] = c;
            if (sep != ',')
                break;
        }
        fclose(f);
    }
    if (n == 0) {
        long k = sysconf(_SC_NPROCESSORS_ONLN);
        for (int c = 0; c < k && n < max; c++)
            cpu[n++] = c;
    }
    return n;
}

/*
 * Whether a CPU-wide event's sample belongs to the profile: the idle task
 * outside softirq is counted apart, and in the test's scope so is every
 * other task's work but softirq (this process's samples come from its
 * per-task events).
 */
static bool keep_cpu_sample(struct profile *p, uint32_t pid, const uint64_t *chain, uint64_t nr)
{
    p->cpu_samples++;
    bool softirq = profile_in_softirq(p, chain, nr);
    if (pid == 0 && !softirq) {
        p->idle++;
        return false;
    }
    if (p->scope == PROFILE_SCOPE_SYSTEM)
        return true;
    if (p->tasks.n && pid == p->self)
        return false;
    if (!softirq) {
        p->other++;
        return false;
    }
    p->kernel_work++;
    return true;
}

/*
 * Reads one sample record at r (len bytes): ip, pid/tid, a group's stream
 * id and counts (profile_group.c), the call chain.
 */
static void take_sample(struct profile *p, const unsigned char *r, size_t len, bool cpu_wide)
{
    const uint64_t *u = (const uint64_t *)(const void *)r;
    size_t words = len / sizeof(uint64_t), at = 2;
    uint64_t d[PROFILE_MAX_EVENTS];
    if (words < 3)
        return;
    uint64_t ip = u[0];
    uint32_t pid = (uint32_t)(u[1] & 0xffffffffu);
    if (p->grp.nev > 1) {
        size_t took = profile_group_take(p, u + 2, words - 2, d);
        if (!took || words < 2 + took + 1)
            return;
        at += took;
    }
    uint64_t nr = u[at];
    const uint64_t *chain = u + at + 1;
    if (nr > words - at - 1)
        nr = 0;
    if (cpu_wide && !keep_cpu_sample(p, pid, chain, nr))
        return;
    /* The chain holds context markers (>= PERF_CONTEXT_MAX): skip them; [0] is ip itself. */
    uint64_t caller = 0;
    int real = 0;
    for (uint64_t i = 0; i < nr && real < 2; i++) {
        uint64_t a = chain[i];
        if (a >= (uint64_t)PERF_CONTEXT_MAX)
            continue;
        if (real++ == 1)
            caller = a;
    }
    pagg_add_vals(&p->agg, ip, caller, pid, p->grp.nev > 1 ? d : NULL);
}

/* A COMM record: pid, tid, then the name; kept for processes (pid == tid). */
static void take_comm(struct profile *p, const unsigned char *r, size_t len, uint16_t misc)
{
    uint32_t pid, tid;
    char comm[16];
    memcpy(&pid, r, 4);
    memcpy(&tid, r + 4, 4);
    if (pid != tid)
        return;
    size_t n = len - 8 < sizeof(comm) - 1 ? len - 8 : sizeof(comm) - 1;
    memcpy(comm, r + 8, n);
    comm[n] = '\0';
    psym_comm(&p->sym, pid, comm, misc & PERF_RECORD_MISC_COMM_EXEC);
}

/* An MMAP2 record: pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, path. */
static void take_mmap2(struct profile *p, const unsigned char *r, size_t len, uint16_t misc)
{
    if (len < 65)
        return;
    uint32_t pid;
    uint64_t addr, size, pgoff;
    memcpy(&pid, r, 4);
    memcpy(&addr, r + 8, 8);
    memcpy(&size, r + 16, 8);
    memcpy(&pgoff, r + 24, 8);
    uint64_t ino = 0;
    if (!(misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) /* else a build-id where the inode was */
        memcpy(&ino, r + 40, 8);
    char path[4096];
    size_t n = len - 64 < sizeof(path) - 1 ? len - 64 : sizeof(path) - 1;
    memcpy(path, r + 64, n);
    path[n] = '\0';
    (void)psym_add_mmap(&p->sym, pid, addr, size, pgoff, path, ino);
}

/* FORK and EXIT: pid, ppid, tid, ptid; a thread's (pid != tid, or pid == ppid) say nothing here. */
static void take_task(struct profile *p, const unsigned char *r, uint32_t type)
{
    uint32_t pid, ppid, tid;
    memcpy(&pid, r, 4);
    memcpy(&ppid, r + 4, 4);
    memcpy(&tid, r + 8, 4);
    if (type == PERF_RECORD_FORK && pid != ppid)
        psym_fork(&p->sym, pid, ppid);
    else if (type == PERF_RECORD_EXIT && pid == tid)
        psym_exit(&p->sym, pid);
}

/* One record of a ring, its body at rec. */
static void take_record(struct profile *p, const struct perf_event_header *h,
                        const unsigned char *rec, size_t body, bool cpu_wide)
{
    if (h->type == PERF_RECORD_SAMPLE)
        take_sample(p, rec, body, cpu_wide);
    else if (h->type == PERF_RECORD_LOST && body >= 16)
        p->lost += ((const uint64_t *)(const void *)rec)[1];
    else if (h->type == PERF_RECORD_COMM && body > 8)
        take_comm(p, rec, body, h->misc);
    else if (h->type == PERF_RECORD_MMAP2)
        take_mmap2(p, rec, body, h->misc);
    else if ((h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) && body >= 16)
        take_task(p, rec, h->type);
    else if (h->type == PERF_RECORD_THROTTLE)
        p->throttled++;
}

/* Consumes every complete record of one ring (a CPU-wide event's, or a CPU's per-task events'). */
static void drain_ring(struct profile *p, void *ring, bool cpu_wide)
{
    struct perf_event_mmap_page *meta = ring;
    unsigned char *data = (unsigned char *)ring + p->page;
    size_t size = p->ring_len - p->page;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    /* A sample's call chain, or an MMAP2 record's path (PATH_MAX) and its 64 bytes before. */
    unsigned char rec[4096 + 128] __attribute__((aligned(8)));
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        for (size_t k = 0; k < sizeof(h); k++)
            ((unsigned char *)&h)[k] = data[(tail + k) % size];
        if (h.size < sizeof(h) || tail + h.size > head)
            break;
        size_t body = h.size - sizeof(h);
        if (body <= sizeof(rec)) {
            for (size_t k = 0; k < body; k++)
                rec[k] = data[(tail + sizeof(h) + k) % size];
            take_record(p, &h, rec, body, cpu_wide);
        }
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct profile *p)
{
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->ncpus; i++)
        if (p->ring[i])
            drain_ring(p, p->ring[i], true);
    for (int i = 0; i < p->tasks.ncpus; i++)
        if (p->tasks.ring[i])
            drain_ring(p, p->tasks.ring[i], false);
    pthread_mutex_unlock(&p->lock);
}

static void *reader_main(void *arg)
{
    struct profile *p = arg;
    while (!atomic_load(&p->stop)) {
        struct timespec ts = {0, DRAIN_MS * 1000000L};
        nanosleep(&ts, NULL);
        drain_all(p);
    }
    return NULL;
}

/* Opens the event of one CPU and maps its ring; fills p->why on failure. */
static int open_cpu(struct profile *p, int i)
{
    struct perf_event_attr a;
    /* In the test's scope these only add other tasks' softirq work: kernel code, no records. */
    profile_attr(p, p->scope == PROFILE_SCOPE_SYSTEM, &a);
    long fd = syscall(SYS_perf_event_open, &a, -1, p->cpu[i], -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        char r[64];
        perfctr_reason(e, profile_event_hw(p->ev), p->cpu[i], r, sizeof(r));
        snprintf(p->why, sizeof(p->why), "cannot sample %s on CPU %d: %s",
                 profile_event_name(p->ev), p->cpu[i], r);
        return -e;
    }
    p->fd[i] = (int)fd;
    if (!(p->ring[i] = profile_map(p, (int)fd))) {
        int e = errno;
        snprintf(p->why, sizeof(p->why), "cannot map the sample buffer of CPU %d: %s", p->cpu[i],
                 strerror(e));
        return -e;
    }
    for (int k = 1; k < p->grp.nev; k++) {
        int m = profile_member_open(p, k, (int)fd, -1, p->cpu[i], false);
        if (m < 0) {
            snprintf(p->why, sizeof(p->why), "cannot count %s with %s on CPU %d: %s",
                     profile_event_name(p->grp.ev[k]), profile_event_name(p->ev), p->cpu[i],
                     strerror(-m));
            return m;
        }
        p->grp.cpu_member[i][k - 1] = m;
    }
    return 0;
}

/* The CPU-wide events. */
static void close_cpus(struct profile *p)
{
    for (int i = 0; i < p->ncpus; i++) {
        if (p->ring[i])
            munmap(p->ring[i], p->ring_len);
        if (p->fd[i] >= 0)
            close(p->fd[i]);
        for (int k = 1; k < p->grp.nev; k++)
            if (p->grp.cpu_member[i][k - 1] >= 0)
                close(p->grp.cpu_member[i][k - 1]);
        p->ring[i] = NULL;
        p->fd[i] = -1;
        for (int k = 1; k < p->grp.nev; k++)
            p->grp.cpu_member[i][k - 1] = -1;
    }
}

static void close_all(struct profile *p)
{
    close_cpus(p);
    profile_tasks_close(p);
}

/*
 * The CPU-wide events on p->cpu[]. In the test's scope they only add the
 * kernel work of other tasks and the idle share: without them the profile
 * still has the test's threads, and its note says what it lacks.
 */
/* Adds a sentence to the profile's note ("; " between two). */
static void add_note(struct profile *p, const char *text)
{
    size_t at = strlen(p->note);
    snprintf(p->note + at, sizeof(p->note) - at, "%s%s", at ? "; " : "", text);
}

static int open_cpus(struct profile *p)
{
    for (int i = 0; i < p->ncpus; i++)
        if (open_cpu(p, i)) {
            close_cpus(p);
            if (p->scope == PROFILE_SCOPE_SYSTEM)
                return -1;
            char n[160];
            snprintf(n, sizeof(n), "no softirq work of other tasks, no idle share: %.110s", p->why);
            add_note(p, n);
            p->why[0] = '\0';
            p->ncpus = 0;
            return 0;
        }
    return 0;
}

/*
 * Whether this machine can sample event ev: a sampling event of this
 * thread, opened and closed. False only where the PMU lacks it (no PMU in
 * a virtual machine), with the reason; a permission error is the open's.
 */
static bool pmu_has(struct profile *p, enum profile_event ev, char *why, size_t len)
{
    struct perf_event_attr a;
    enum profile_event was = p->ev;
    p->ev = ev;
    profile_attr(p, false, &a);
    p->ev = was;
    a.exclude_kernel = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    int e = errno;
    if (fd >= 0) {
        close((int)fd);
        return true;
    }
    if (e != ENOENT && e != EOPNOTSUPP && e != ENODEV && e != EINVAL)
        return true;
    perfctr_reason(e, true, -1, why, len);
    return false;
}

/*
 * The events the profile samples and counts: evs[0], or cpu-clock where the
 * PMU lacks it (the note says so, in one line, and the rest of a list of
 * hardware events goes with it); the events after the first that the
 * machine has count in its group (p->grp), the others are named in the note.
 */
static enum profile_event choose_event(struct profile *p, const enum profile_event *evs, int nev)
{
    char list[128] = "", lacks[128] = "", why[64], n[256];
    for (int i = 0; i < nev; i++) {
        size_t at = strlen(list);
        snprintf(list + at, sizeof(list) - at, "%s%s", i ? "," : "", profile_event_name(evs[i]));
    }
    p->grp.nev = 1;
    if (profile_event_hw(evs[0]) && !pmu_has(p, evs[0], why, sizeof(why))) {
        snprintf(n, sizeof(n), "%.90s: %s; sampled cpu-clock instead", list, why);
        add_note(p, n);
        p->grp.ev[0] = PROFILE_CPU_CLOCK;
        return PROFILE_CPU_CLOCK;
    }
    p->grp.ev[0] = evs[0];
    for (int i = 1; i < nev; i++) {
        if (profile_event_hw(evs[i]) && !pmu_has(p, evs[i], why, sizeof(why))) {
            size_t at = strlen(lacks);
            snprintf(lacks + at, sizeof(lacks) - at, "%s%s", at ? "," : "",
                     profile_event_name(evs[i]));
            continue;
        }
        p->grp.ev[p->grp.nev++] = evs[i];
    }
    if (lacks[0]) {
        snprintf(n, sizeof(n), "%.90s: not counted (%s)", lacks, why);
        add_note(p, n);
    }
    return evs[0];
}

struct profile *profile_open(const enum profile_event *evs, int nev, unsigned freq,
                             enum profile_scope scope, const int *cpus, int ncpus)
{
    struct profile *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->scope = scope;
    p->self = (uint32_t)getpid();
    p->freq = freq ? freq : PROFILE_DEFAULT_FREQ;
    p->grp.nev = 1;
    p->ev = nev > 0 ? choose_event(p, evs, nev) : PROFILE_CPU_CLOCK; /* after freq: a probe */
    p->agg.nval = p->grp.nev > 1 ? p->grp.nev : 0;
    pthread_mutex_init(&p->lock, NULL);
    psym_init(&p->sym);
    p->sym.since = time(NULL);
    p->page = (size_t)sysconf(_SC_PAGESIZE);
    p->ring_len = p->page * (1 + RING_PAGES);
    if (ncpus > 0) {
        p->ncpus = ncpus < PROFILE_MAX_CPUS ? ncpus : PROFILE_MAX_CPUS;
        memcpy(p->cpu, cpus, (size_t)p->ncpus * sizeof(int));
    } else {
        p->ncpus = online_cpus(p->cpu, PROFILE_MAX_CPUS);
    }
    for (int i = 0; i < p->ncpus; i++) {
        p->fd[i] = -1;
        for (int k = 0; k < PROFILE_MAX_EVENTS - 1; k++)
            p->grp.cpu_member[i][k] = -1;
    }
    if (scope == PROFILE_SCOPE_TEST) {
        p->tasks.ncpus = online_cpus(p->tasks.cpu, PROFILE_MAX_CPUS);
        if (profile_tasks_open(p)) {
            close_all(p);
            return p;
        }
    }
    if (open_cpus(p)) {
        close_all(p);
        return p;
    }
    /* Before the window: telling softirq work apart costs the samples nothing. */
    if (p->ncpus)
        profile_softirq_ranges(p);
    /* Every process's mappings as they are now, for those that exit during the window (perf
     * synthesizes the same records); the test's scope names only this process, still here. */
    if (scope == PROFILE_SCOPE_SYSTEM)
        psym_snapshot(&p->sym);
    if (pthread_create(&p->reader, NULL, reader_main, p)) {
        snprintf(p->why, sizeof(p->why), "cannot start the sample reader thread");
        close_all(p);
        return p;
    }
    p->reader_running = true;
    return p;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This process's CPU time, every thread's (ended ones included). */
static uint64_t process_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void profile_enable(struct profile *p)
{
    if (!p || p->why[0] || p->enabled_ns)
        return;
    p->enabled_ns = now_ns();
    p->cpu_time0_ns = process_ns();
    profile_tasks_ioctl(p, PERF_EVENT_IOC_ENABLE);
    for (int i = 0; i < p->ncpus; i++)
        ioctl(p->fd[i], PERF_EVENT_IOC_ENABLE, 0);
}

void profile_disable(struct profile *p)
{
    if (!p || p->why[0])
        return;
    for (int i = 0; i < p->ncpus; i++)
        ioctl(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
    profile_tasks_ioctl(p, PERF_EVENT_IOC_DISABLE);
    if (p->enabled_ns && !p->sampled_ns) {
        p->sampled_ns = now_ns() - p->enabled_ns;
        p->cpu_time_ns = process_ns() - p->cpu_time0_ns;
    }
    if (p->reader_running) {
        atomic_store(&p->stop, true);
        pthread_join(p->reader, NULL);
        p->reader_running = false;
    }
    drain_all(p);
    for (int i = 0; p->grp.nev > 1 && i < p->ncpus; i++)
        profile_group_read(p, p->fd[i]);
    for (size_t i = 0; p->grp.nev > 1 && i < p->tasks.n; i += (size_t)p->grp.nev)
        profile_group_read(p, p->tasks.fd[i]);
    close_all(p);
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    if (p->reader_running) {
        atomic_store(&p->stop, true);
        pthread_join(p->reader, NULL);
    }
    close_all(p);
    pagg_free(&p->agg);
    profile_group_free(p);
    psym_free(&p->sym);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
