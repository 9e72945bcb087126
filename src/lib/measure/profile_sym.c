#include "measure/profile_sym.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/profile_agg.h"
#include "util/textfile.h"

#define UNKNOWN "[unknown]"

void psym_init(struct psym *s)
{
    memset(s, 0, sizeof(*s));
    s->kallsyms = "/proc/kallsyms";
    s->proc_root = "/proc";
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

/* Parses /proc/PID/maps text into executable mappings; names point into text. */
static void parse_maps(struct psym *s, struct psym_proc *p);

/* A new process entry holding text (owned from here on), its maps parsed. */
static struct psym_proc *proc_new(struct psym *s, uint32_t pid, char *text)
{
    struct psym_proc *n = realloc(s->procs, (s->nprocs + 1) * sizeof(*n));
    if (!n) {
        free(text);
        return NULL;
    }
    s->procs = n;
    struct psym_proc *p = &s->procs[s->nprocs++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->text = text;
    if (p->text)
        parse_maps(s, p);
    return p;
}

static struct psym_proc *proc_of(struct psym *s, uint32_t pid)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].pid == pid)
            return &s->procs[i];
    char path[64];
    size_t len;
    snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", s->proc_root, pid);
    return proc_new(s, pid, read_text(path, &len));
}

int psym_add_maps(struct psym *s, uint32_t pid, const char *text)
{
    char *copy = strdup(text);
    return copy && proc_new(s, pid, copy) ? 0 : -ENOMEM;
}

static int file_of(struct psym *s, const char *path)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (!strcmp(s->files[i].path, path))
            return (int)i;
    struct psym_file *n = realloc(s->files, (s->nfiles + 1) * sizeof(*n));
    if (!n)
        return -1;
    s->files = n;
    struct psym_file *f = &s->files[s->nfiles];
    memset(f, 0, sizeof(*f));
    if (!(f->path = strdup(path)))
        return -1;
    char err[256];
    f->ok = symtab_load_elf(path, &f->tab, err, sizeof(err)) == 0;
    return (int)s->nfiles++;
}

static void parse_maps(struct psym *s, struct psym_proc *p)
{
    for (char *line = p->text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        unsigned long long lo, hi, off;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &name_at) >= 4 &&
            perms[2] == 'x') {
            struct psym_map *m = realloc(p->maps, (p->n + 1) * sizeof(*m));
            if (!m)
                return;
            p->maps = m;
            const char *name = name_at ? line + name_at : "";
            m[p->n++] = (struct psym_map){lo, hi, off, name[0] == '/' ? file_of(s, name) : -1,
                                          name[0] ? name : UNKNOWN};
        }
        line = next;
    }
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static void lookup_user(struct psym *s, uint64_t ip, uint32_t pid, const char **symbol,
                        const char **module)
{
    /* The latest name the process took, where its maps are gone. */
    for (size_t i = s->ncomms; i-- > 0;)
        if (s->comms[i].pid == pid) {
            *module = s->comms[i].comm;
            break;
        }
    struct psym_proc *p = proc_of(s, pid);
    for (size_t i = 0; p && i < p->n; i++) {
        const struct psym_map *m = &p->maps[i];
        if (ip < m->start || ip >= m->end)
            continue;
        *module = base_name(m->name);
        if (m->file < 0 || !s->files[m->file].ok)
            return;
        /* A shared object or PIE is linked at 0, with offsets equal to addresses; else as is. */
        const struct symtab *t = &s->files[m->file].tab;
        const struct symtab_sym *f = psym_find(t, ip - m->start + m->offset);
        if (!f)
            f = psym_find(t, ip);
        if (f)
            *symbol = f->name;
        return;
    }
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
        free(s->procs[i].maps);
        free(s->procs[i].text);
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        free(s->files[i].path);
        symtab_free(&s->files[i].tab);
    }
    free(s->procs);
    free(s->files);
    memset(s, 0, sizeof(*s));
}
