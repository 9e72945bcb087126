#include "measure/profile_sym.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure/profile_agg.h"
#include "util/textfile.h"

#define UNKNOWN "[unknown]"

void psym_init(struct psym *s)
{
    memset(s, 0, sizeof(*s));
    s->kallsyms = "/proc/kallsyms";
    s->proc_root = "/proc";
    s->debug_root = "/usr/lib/debug";
}

const struct symtab_sym *psym_find(const struct symtab *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct symtab_sym *s = &t->syms[lo - 1];
    /* Without a size (a map's last symbol), a function may not reach past 1 MiB. */
    uint64_t size = s->size ? s->size : 1u << 20;
    return addr - s->addr < size ? s : NULL;
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *t = NULL;
    if (!f)
        return NULL;
    if (textfile_read(f, (size_t)64 << 20, &t, len))
        t = NULL;
    fclose(f);
    return t;
}

/* kallsyms shows every address as 0 to whom kptr_restrict denies them. */
static void load_kernel(struct psym *s)
{
    s->kernel_tried = true;
    size_t len;
    char *t = read_text(s->kallsyms, &len);
    char err[256];
    if (t && !symtab_parse_map(s->kallsyms, t, len, &s->kernel, err, sizeof(err)))
        s->kernel_ok = s->kernel.n > 0 && s->kernel.syms[s->kernel.n - 1].addr != 0;
    free(t);
}

/* The C++ ABI's demangler (libstdc++): a well-kept one, as perf and binutils use. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

int psym_file_of(struct psym *s, const char *path, uint64_t ino)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        const struct psym_file *f = &s->files[i];
        /* A path of an unknown inode is the same file as the path of any. */
        if (!strcmp(f->path, path) && (!ino || !f->ino || f->ino == ino))
            return (int)i;
    }
    struct psym_file *n = realloc(s->files, (s->nfiles + 1) * sizeof(*n));
    if (!n)
        return -1;
    s->files = n;
    struct psym_file *f = &s->files[s->nfiles];
    memset(f, 0, sizeof(*f));
    if (!(f->path = strdup(path)))
        return -1;
    f->ino = ino;
    return (int)s->nfiles++;
}

/*
 * Whether the file at f's path is no longer the one mapped: another inode
 * (rebuilt and renamed over it) that changed after the mappings began to
 * be recorded. Its symbols would name another build's functions. (An
 * inode that differs on an overlay, where the kernel may report the lower
 * file's, while the file is older than that, is the same file.)
 */
static bool replaced(const struct psym *s, const struct psym_file *f)
{
    struct stat st;
    return f->ino && !stat(f->path, &st) && (uint64_t)st.st_ino != f->ino && s->since &&
           st.st_ctime >= s->since;
}

/*
 * Reads a file's symbols: from the debug file its build-id names
 * (DEBUG_ROOT/.build-id/xx/yyyy.debug, which a -dbgsym package installs
 * with every function) where there is one, else from the file itself;
 * none from a file replaced since it was mapped.
 */
static void file_load(struct psym *s, struct psym_file *f)
{
    f->tried = true;
    if (f->path[0] != '/' || replaced(s, f))
        return; /* [vdso], [anon:...], memfd:; or another build by now */
    f->build_id_len = symtab_elf_build_id(f->path, f->build_id, sizeof(f->build_id));
    char err[256];
    if (f->build_id_len) {
        char dbg[512];
        int at = snprintf(dbg, sizeof(dbg), "%s/.build-id/%02x/", s->debug_root, f->build_id[0]);
        for (size_t i = 1; i < f->build_id_len && at > 0 && (size_t)at + 8 < sizeof(dbg); i++)
            at += snprintf(dbg + at, sizeof(dbg) - (size_t)at, "%02x", f->build_id[i]);
        snprintf(dbg + at, sizeof(dbg) - (size_t)at, ".debug");
        if (symtab_load_elf(dbg, &f->tab, err, sizeof(err)) == 0) {
            f->ok = true;
            return;
        }
    }
    f->ok = symtab_load_elf(f->path, &f->tab, err, sizeof(err)) == 0;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* A C++ name demangled in place (the table owns its names); others as they are. */
static const char *demangled(struct symtab_sym *f)
{
    if (strncmp(f->name, "_Z", 2))
        return f->name;
    int status = -1;
    char *d = __cxa_demangle(f->name, NULL, NULL, &status);
    if (d && status == 0) {
        free(f->name);
        f->name = d;
    } else {
        free(d);
    }
    return f->name;
}

/* The mapping of p that holds ip, the latest learnt first. */
static const struct psym_map *map_at(const struct psym_proc *p, uint64_t ip)
{
    for (size_t i = p->n; i-- > 0;)
        if (ip >= p->maps[i].start && ip < p->maps[i].end)
            return &p->maps[i];
    return NULL;
}

/*
 * The mapping that holds ip in process pid: its recorded mappings, then
 * (a process still running whose start the records did not see) its
 * /proc/PID/maps, then those of the process it forked from. *comm: the
 * first name met, for an address no mapping holds.
 */
static const struct psym_map *find_map(struct psym *s, uint64_t ip, uint32_t pid, const char **comm)
{
    struct psym_proc *p = psym_proc_get(s, pid, true);
    for (int depth = 0; p && depth < 8; depth++) {
        const struct psym_map *m = map_at(p, ip);
        if (!m && !p->exited && !p->proc_read) {
            p->proc_read = true;
            psym_proc_read(s, p);
            m = map_at(p, ip);
        }
        if (!*comm && p->comm[0])
            *comm = p->comm;
        if (m)
            return m;
        p = p->ppid ? psym_proc_get(s, p->ppid, false) : NULL;
    }
    return NULL;
}

static void lookup_user(struct psym *s, uint64_t ip, uint32_t pid, const char **symbol,
                        const char **module)
{
    const char *comm = NULL;
    const struct psym_map *m = find_map(s, ip, pid, &comm);
    if (!m) {
        if (comm)
            *module = comm;
        return;
    }
    if (m->file < 0)
        return;
    struct psym_file *file = &s->files[m->file];
    *module = base_name(file->path);
    if (!file->tried)
        file_load(s, file);
    if (!file->ok)
        return;
    /* A shared object or PIE is linked at 0, with offsets equal to addresses; else as is. */
    struct symtab *t = &file->tab;
    struct symtab_sym *f = (struct symtab_sym *)psym_find(t, ip - m->start + m->offset);
    if (!f)
        f = (struct symtab_sym *)psym_find(t, ip);
    if (f)
        *symbol = demangled(f);
}

void psym_lookup(struct psym *s, uint64_t ip, uint32_t pid, const char **symbol,
                 const char **module)
{
    *symbol = UNKNOWN;
    *module = UNKNOWN;
    if (pagg_is_kernel(ip)) {
        *module = "[kernel]";
        if (!s->kernel_tried)
            load_kernel(s);
        const struct symtab_sym *f = s->kernel_ok ? psym_find(&s->kernel, ip) : NULL;
        if (f)
            *symbol = f->name;
        return;
    }
    lookup_user(s, ip, pid, symbol, module);
}

bool psym_kernel_range(struct psym *s, const char *name, uint64_t *lo, uint64_t *hi)
{
    if (!s->kernel_tried)
        load_kernel(s);
    for (size_t i = 0; s->kernel_ok && i < s->kernel.n; i++) {
        const struct symtab_sym *f = &s->kernel.syms[i];
        if (f->size && !strcmp(f->name, name)) {
            *lo = f->addr;
            *hi = f->addr + f->size;
            return true;
        }
    }
    return false;
}

void psym_free(struct psym *s)
{
    symtab_free(&s->kernel);
    for (size_t i = 0; i < s->nprocs; i++) {
        free(s->procs[i]->maps);
        free(s->procs[i]);
    }
    free(s->pidx);
    for (size_t i = 0; i < s->nfiles; i++) {
        free(s->files[i].path);
        symtab_free(&s->files[i].tab);
    }
    free(s->procs);
    free(s->files);
    memset(s, 0, sizeof(*s));
}
