/*
 * Names for sampled addresses: kernel addresses through /proc/kallsyms
 * (read once, when the first is asked for), user addresses through the
 * process's executable mappings (kept from the profile's MMAP2, COMM,
 * FORK and EXIT records as they happened, so that a process that exited
 * is named too, and from /proc/PID/maps) and the mapped file's ELF
 * symbols (each file read once, from its build-id's debug file where one
 * is installed; C++ names demangled). What cannot be named gets
 * "[unknown]" and, where known, the module, file or process it lies in. Caller has ownership of the
 * struct and frees it with psym_free(); the strings it returns live as long as it does.
 */
#ifndef NETAB_MEASURE_PROFILE_SYM_H
#define NETAB_MEASURE_PROFILE_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "symbols/symtab.h"

#define PSYM_BUILD_ID_MAX 20
#define PSYM_MAX_MAPS (1u << 16)  /* mappings kept from the records: 2 MiB at most */
#define PSYM_MAX_PROCS (1u << 16) /* processes: 6 MiB at most */

struct psym_map {
    uint64_t start, end, offset;
    int file; /* index into psym.files (a path or a [vdso]-like name), -1 for none */
};

/*
 * A process: its executable mappings in the order they were learnt (the
 * latest that holds an address names it), from a /proc/PID/maps text and
 * the profile's MMAP2 records as they happened.
 */
struct psym_proc {
    uint32_t pid, ppid; /* ppid: the process it forked from (its mappings until it execs), or 0 */
    struct psym_map *maps;
    size_t n, cap;
    bool exited;    /* an EXIT record: /proc/PID is no longer its */
    bool snap;      /* /proc/PID/maps read before the window (psym_snapshot) */
    bool proc_read; /* /proc/PID/maps read (or tried) when the profile is named */
    char comm[16];  /* its name from a COMM record or /proc, "" when unknown */
};

/* A mapped file: its symbols read (once) when the first address in it is named. */
struct psym_file {
    char *path;
    uint64_t ino; /* the mapped file's inode (MMAP2 record), 0 when unknown */
    unsigned char build_id[PSYM_BUILD_ID_MAX]; /* the file's note, read with its symbols */
    size_t build_id_len;
    struct symtab tab;
    bool tried, ok;
};

struct psym {
    const char *kallsyms;   /* the file read for kernel symbols (tests point it elsewhere) */
    const char *proc_root;  /* "/proc" (tests point it elsewhere) */
    const char *debug_root; /* "/usr/lib/debug": .build-id/xx/yyyy.debug files */
    time_t since; /* when the mappings began to be recorded: a file changed later may be another */
    bool kernel_tried, kernel_ok;
    struct symtab kernel;
    struct psym_proc **procs; /* each allocated on its own: a comm returned stays put */
    size_t nprocs;
    uint32_t *pidx; /* pid -> position in procs + 1 (open addressing), pcap slots */
    size_t pcap;
    struct psym_file *files;
    size_t nfiles;
    size_t nmaps;    /* mappings kept over every process */
    uint64_t unkept; /* mappings past PSYM_MAX_MAPS, or out of memory */
};

/* An empty symboliser reading /proc/kallsyms and /proc. */
void psym_init(struct psym *s);

/*
 * The function at ip (of process pid for a user address): *symbol and
 * *module point to strings owned by s (module: "[kernel]", a file's base
 * name, or "[unknown]").
 */
void psym_lookup(struct psym *s, uint64_t ip, uint32_t pid, const char **symbol,
                 const char **module);

/*
 * Takes text as process pid's /proc/PID/maps instead of reading it (the
 * fuzz harness and the tests). Lines that are not executable mappings, or
 * not of the maps format, are skipped. Returns 0, or -ENOMEM.
 */
NB_MUST_CHECK int psym_add_maps(struct psym *s, uint32_t pid, const char *text);

/*
 * An executable mapping of process pid as an MMAP2 record tells it: len
 * bytes at start of path from offset pgoff, the file's inode ino (0:
 * unknown). Past PSYM_MAX_MAPS it is only counted (unkept). Returns 0, or
 * -ENOMEM.
 */
int psym_add_mmap(struct psym *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                  const char *path, uint64_t ino);

/* Process pid's name (a COMM record); exec: it replaced its program, whose mappings are gone. */
void psym_comm(struct psym *s, uint32_t pid, const char *comm, bool exec);

/* Process pid forked from ppid (a FORK record): it has ppid's mappings until it execs. */
void psym_fork(struct psym *s, uint32_t pid, uint32_t ppid);

/* Process pid exited (an EXIT record): its /proc/PID, if any, is another's from now on. */
void psym_exit(struct psym *s, uint32_t pid);

/*
 * Reads the executable mappings and name of every process in proc_root
 * now (before a system-wide window: a process that exits during it then
 * has its mappings, as perf's synthesized records give them). Returns the
 * number of processes read.
 */
size_t psym_snapshot(struct psym *s);

/*
 * The address range [*lo, *hi) of the kernel function called name, from
 * kallsyms (loaded here if not yet); false when there is none or kallsyms
 * hides the addresses.
 */
bool psym_kernel_range(struct psym *s, const char *name, uint64_t *lo, uint64_t *hi);

/* The function of a table that holds addr: the greatest address <= addr, within its size. Pure. */
const struct symtab_sym *psym_find(const struct symtab *t, uint64_t addr);

void psym_free(struct psym *s);

/* Within the symboliser (profile_maps.c, profile_sym.c): */

/* Process pid's entry, made (empty) when create and there is none; NULL otherwise or out of memory.
 */
struct psym_proc *psym_proc_get(struct psym *s, uint32_t pid, bool create);

/* Adds the executable mappings of the process's /proc/PID/maps, and its name where it has none. */
void psym_proc_read(struct psym *s, struct psym_proc *p);

/* The file entry of path (and inode, when known), made if new; -1 when out of memory. */
int psym_file_of(struct psym *s, const char *path, uint64_t ino);

#endif
