/*
 * Names for sampled addresses: kernel addresses through /proc/kallsyms
 * (read once, when the first is asked for), user addresses through the
 * process's /proc/PID/maps and the mapped file's ELF symbols (each file
 * read once). What cannot be named gets "[unknown]" and, where known, the
 * module or file it lies in. Caller has ownership of the struct and frees
 * it with psym_free(); the strings it returns live as long as it does.
 */
#ifndef NETAB_MEASURE_PROFILE_SYM_H
#define NETAB_MEASURE_PROFILE_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"

struct psym_map {
    uint64_t start, end, offset;
    int file;         /* index into psym.files, -1 for an anonymous or special mapping */
    const char *name; /* the mapping's path or [vdso]-like name (owned by the process entry) */
};

struct psym_proc {
    uint32_t pid;
    struct psym_map *maps;
    size_t n;
    char *text; /* the maps file, which the names point into (owned) */
};

struct psym_file {
    char *path;
    struct symtab tab;
    bool ok;
};

/* A process's name, from the profile's COMM records: a user address of a process gone by the end.
 */
struct psym_comm {
    uint32_t pid;
    char comm[16];
};

struct psym {
    const char *kallsyms;  /* the file read for kernel symbols (tests point it elsewhere) */
    const char *proc_root; /* "/proc" (tests point it elsewhere) */
    bool kernel_tried, kernel_ok;
    struct symtab kernel;
    struct psym_proc *procs;
    size_t nprocs;
    struct psym_file *files;
    size_t nfiles;
    const struct psym_comm *comms; /* not owned; may be NULL */
    size_t ncomms;
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
 * The address range [*lo, *hi) of the kernel function called name, from
 * kallsyms (loaded here if not yet); false when there is none or kallsyms
 * hides the addresses.
 */
bool psym_kernel_range(struct psym *s, const char *name, uint64_t *lo, uint64_t *hi);

/* The function of a table that holds addr: the greatest address <= addr, within its size. Pure. */
const struct symtab_sym *psym_find(const struct symtab *t, uint64_t addr);

void psym_free(struct psym *s);

#endif
