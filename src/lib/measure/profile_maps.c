/*
 * The processes a profile names user addresses in (profile_sym.h): each
 * one's executable mappings as the profile's MMAP2, COMM, FORK and EXIT
 * records told them while sampling, and /proc/PID/maps where they did not
 * (a process that was running before the profile opened and still is).
 *
 * Why the records: a process that exits during the window has no
 * /proc/PID/maps left when the profile is named, and the pid may by then
 * be another process's. perf names such samples from the same records.
 * The records of different CPUs' rings are read in no common order; the
 * ones that matter here come in order within a ring (a process's exec
 * COMM before the mappings of its new program, on the CPU it execs on).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/profile_sym.h"
#include "util/textfile.h"

#define UNKNOWN "[unknown]"

/* The slot of pid in the index (open addressing, 0 = empty, else the entry's position + 1). */
static size_t slot_of(const struct psym *s, uint32_t pid)
{
    size_t j = (size_t)(pid * 0x9e3779b1u) & (s->pcap - 1);
    while (s->pidx[j] && s->procs[s->pidx[j] - 1]->pid != pid)
        j = (j + 1) & (s->pcap - 1);
    return j;
}

/* Keeps the index at most half full; false when out of memory. */
static bool index_room(struct psym *s)
{
    if ((s->nprocs + 1) * 2 <= s->pcap)
        return true;
    size_t cap = s->pcap ? 2 * s->pcap : 256;
    uint32_t *n = calloc(cap, sizeof(*n));
    if (!n)
        return false;
    free(s->pidx);
    s->pidx = n;
    s->pcap = cap;
    for (size_t i = 0; i < s->nprocs; i++)
        s->pidx[slot_of(s, s->procs[i]->pid)] = (uint32_t)i + 1;
    return true;
}

struct psym_proc *psym_proc_get(struct psym *s, uint32_t pid, bool create)
{
    if (s->pcap) {
        size_t j = slot_of(s, pid);
        if (s->pidx[j])
            return s->procs[s->pidx[j] - 1];
    }
    if (!create || s->nprocs >= PSYM_MAX_PROCS || !index_room(s))
        return NULL;
    /* Each entry on its own: the names lookups return (comm) stay where they are. */
    struct psym_proc **n = realloc(s->procs, (s->nprocs + 1) * sizeof(*n));
    if (!n)
        return NULL;
    s->procs = n;
    struct psym_proc *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    s->procs[s->nprocs] = p;
    p->pid = pid;
    s->pidx[slot_of(s, pid)] = (uint32_t)++s->nprocs;
    return p;
}

static int add_map(struct psym *s, struct psym_proc *p, uint64_t lo, uint64_t hi, uint64_t off,
                   int file)
{
    if (s->nmaps >= PSYM_MAX_MAPS) {
        s->unkept++;
        return 0;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        struct psym_map *m = realloc(p->maps, cap * sizeof(*m));
        if (!m) {
            s->unkept++;
            return -ENOMEM;
        }
        p->maps = m;
        p->cap = cap;
    }
    p->maps[p->n++] = (struct psym_map){lo, hi, off, file};
    s->nmaps++;
    return 0;
}

/* Adds the executable mappings of a maps text (changed in place: lines cut at their ends). */
static int parse_maps(struct psym *s, struct psym_proc *p, char *text)
{
    int rc = 0;
    for (char *line = text; !rc && line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        unsigned long long lo, hi, off;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &name_at) >= 4 &&
            perms[2] == 'x') {
            const char *name = name_at ? line + name_at : "";
            int file = name[0] ? psym_file_of(s, name, 0) : -1;
            rc = add_map(s, p, lo, hi, off, file);
        }
        line = next;
    }
    return rc;
}

int psym_add_maps(struct psym *s, uint32_t pid, const char *text)
{
    struct psym_proc *p = psym_proc_get(s, pid, true);
    char *copy = strdup(text);
    int rc = p && copy ? parse_maps(s, p, copy) : -ENOMEM;
    if (p)
        p->proc_read = true;
    free(copy);
    return rc;
}

static char *read_proc(const struct psym *s, uint32_t pid, const char *what)
{
    char path[96], *t = NULL;
    size_t len;
    snprintf(path, sizeof(path), "%s/%" PRIu32 "/%s", s->proc_root, pid, what);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    if (textfile_read(f, (size_t)64 << 20, &t, &len))
        t = NULL;
    fclose(f);
    return t;
}

void psym_proc_read(struct psym *s, struct psym_proc *p)
{
    char *t = read_proc(s, p->pid, "maps");
    if (t)
        (void)parse_maps(s, p, t);
    free(t);
    if (!p->comm[0] && (t = read_proc(s, p->pid, "comm"))) {
        t[strcspn(t, "\n")] = '\0';
        snprintf(p->comm, sizeof(p->comm), "%s", t);
        free(t);
    }
}

int psym_add_mmap(struct psym *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                  const char *path, uint64_t ino)
{
    struct psym_proc *p = psym_proc_get(s, pid, true);
    if (!p)
        return -ENOMEM;
    /* The same mapping again (one record per event that follows the task): kept once. */
    for (size_t i = p->n; i-- > 0 && i + 4 >= p->n;)
        if (p->maps[i].start == start && p->maps[i].end == start + len)
            return 0;
    int file = psym_file_of(s, path[0] ? path : UNKNOWN, ino);
    return add_map(s, p, start, start + len, pgoff, file);
}

void psym_comm(struct psym *s, uint32_t pid, const char *comm, bool exec)
{
    struct psym_proc *p = psym_proc_get(s, pid, true);
    if (!p)
        return;
    snprintf(p->comm, sizeof(p->comm), "%s", comm);
    if (exec) {
        s->nmaps -= p->n;
        p->n = 0;
        p->ppid = 0;
    }
}

void psym_fork(struct psym *s, uint32_t pid, uint32_t ppid)
{
    struct psym_proc *p = psym_proc_get(s, pid, true);
    if (p && pid != ppid && !p->n)
        p->ppid = ppid;
}

void psym_exit(struct psym *s, uint32_t pid)
{
    struct psym_proc *p = psym_proc_get(s, pid, true);
    if (p)
        p->exited = true;
}

size_t psym_snapshot(struct psym *s)
{
    char path[64];
    snprintf(path, sizeof(path), "%s", s->proc_root);
    DIR *d = opendir(path);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end;
        unsigned long pid = strtoul(e->d_name, &end, 10);
        if (*end || !pid || pid > UINT32_MAX)
            continue;
        struct psym_proc *p = psym_proc_get(s, (uint32_t)pid, true);
        if (p && !p->snap) {
            p->snap = true;
            psym_proc_read(s, p);
            n++;
        }
    }
    if (d)
        closedir(d);
    return n;
}
