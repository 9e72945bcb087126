/*
 * ELF symbol tables through libelf (elfutils). The file is read with
 * ELF_C_READ, so libelf checks every offset against the file's real size and
 * a truncated or corrupt file fails with an error instead of a fault.
 */
#include "symbols/symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the reader needs to know about each section. */
struct elf_ctx {
    const char *path;
    Elf *elf;
    size_t nsec;
    GElf_Shdr *shdrs; /* nsec entries */
    size_t shstrndx;
    uint64_t file_size;
    struct symtab *out;
    char *err;
    size_t errlen;
};

static int elf_fail(struct elf_ctx *c, const char *what)
{
    return err_set(c->err, c->errlen, EINVAL, "%s: %s (%s): truncated or corrupt ELF file?",
                   c->path, what, elf_errmsg(-1));
}

static int elf_cut(struct elf_ctx *c, const char *what)
{
    return err_set(c->err, c->errlen, EINVAL,
                   "%s: %s lie beyond its end (%" PRIu64 " bytes): truncated or corrupt ELF file?",
                   c->path, what, c->file_size);
}

/*
 * Reads every section header. libelf silently reports no sections when the
 * section header table lies beyond the end of a truncated file, which would
 * read as "stripped"; the explicit bounds checks tell the two apart.
 */
static int read_sections(struct elf_ctx *c, const GElf_Ehdr *eh)
{
    if (eh->e_shoff == 0)
        return elf_cut(c, "it has no section headers, which would");
    if (eh->e_shoff > c->file_size ||
        (uint64_t)eh->e_shnum * eh->e_shentsize > c->file_size - eh->e_shoff)
        return elf_cut(c, "its section headers");
    if (elf_getshdrnum(c->elf, &c->nsec) || elf_getshdrstrndx(c->elf, &c->shstrndx))
        return elf_fail(c, "cannot read the section headers");
    c->shdrs = calloc(c->nsec ? c->nsec : 1, sizeof(*c->shdrs));
    if (!c->shdrs)
        return err_set(c->err, c->errlen, ENOMEM, "out of memory reading %s", c->path);
    for (size_t i = 1; i < c->nsec; i++) {
        Elf_Scn *scn = elf_getscn(c->elf, i);
        if (!scn || !gelf_getshdr(scn, &c->shdrs[i]))
            return elf_fail(c, "cannot read a section header");
        const GElf_Shdr *sh = &c->shdrs[i];
        if (sh->sh_type != SHT_NOBITS &&
            (sh->sh_offset > c->file_size || sh->sh_size > c->file_size - sh->sh_offset))
            return elf_cut(c, "the contents of some sections");
    }
    return 0;
}

/* The index of the first section of this type, or 0. */
static size_t find_section(const struct elf_ctx *c, GElf_Word type)
{
    for (size_t i = 1; i < c->nsec; i++)
        if (c->shdrs[i].sh_type == type)
            return i;
    return 0;
}

/* The extended section index table that belongs to symbol table symidx, or NULL. */
static Elf_Data *find_shndx(const struct elf_ctx *c, size_t symidx)
{
    for (size_t i = 1; i < c->nsec; i++)
        if (c->shdrs[i].sh_type == SHT_SYMTAB_SHNDX && c->shdrs[i].sh_link == symidx)
            return elf_getdata(elf_getscn(c->elf, i), NULL);
    return NULL;
}

/* The table's copy of section idx's name, added on first use (NULL if unnamed). */
static const char *section_name(struct elf_ctx *c, size_t idx, const char **cache)
{
    if (cache[idx])
        return cache[idx];
    const char *name = elf_strptr(c->elf, c->shstrndx, c->shdrs[idx].sh_name);
    if (!name)
        return NULL;
    struct symtab *t = c->out;
    char **v = realloc(t->sections, (t->nsections + 1) * sizeof(*v));
    if (!v)
        return NULL;
    t->sections = v;
    if (!(v[t->nsections] = strdup(name)))
        return NULL;
    cache[idx] = v[t->nsections++];
    return cache[idx];
}

/* Whether sym (in section shndx) is a function by the rule in symtab.h. */
static bool is_function(const struct elf_ctx *c, const GElf_Sym *sym, size_t shndx,
                        const char *name)
{
    int type = GELF_ST_TYPE(sym->st_info);
    if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
        return false;
    if (shndx == SHN_UNDEF || shndx >= c->nsec || !*name)
        return false;
    /* Mapping symbols mark code/data boundaries on ARM; nm hides them too. */
    if (name[0] == '$')
        return false;
    GElf_Xword need = SHF_ALLOC | SHF_EXECINSTR;
    return (c->shdrs[shndx].sh_flags & need) == need;
}

/* Adds the functions of symbol table section symidx. Returns 0 or -errno (err set). */
static int read_symbols(struct elf_ctx *c, size_t symidx)
{
    Elf_Data *data = elf_getdata(elf_getscn(c->elf, symidx), NULL);
    if (!data)
        return elf_fail(c, "cannot read the symbol table");
    Elf_Data *xdata = find_shndx(c, symidx);
    GElf_Shdr *sh = &c->shdrs[symidx];
    size_t n = sh->sh_entsize ? data->d_size / sh->sh_entsize : 0;
    const char **cache = calloc(c->nsec ? c->nsec : 1, sizeof(*cache));
    if (!cache)
        return err_set(c->err, c->errlen, ENOMEM, "out of memory reading %s", c->path);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++) {
        GElf_Sym sym;
        Elf32_Word xndx = 0;
        if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx)) {
            rc = elf_fail(c, "cannot read a symbol");
            break;
        }
        size_t shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
        const char *name = elf_strptr(c->elf, sh->sh_link, sym.st_name);
        if (!name) {
            rc = elf_fail(c, "a symbol's name lies outside the string table");
            break;
        }
        if (!is_function(c, &sym, shndx, name))
            continue;
        const char *sec = section_name(c, shndx, cache);
        if (!sec || symtab_add(c->out, name, strlen(name), sec, sym.st_value, sym.st_size))
            rc = err_set(c->err, c->errlen, ENOMEM, "out of memory reading %s", c->path);
    }
    free(cache);
    return rc;
}

/* Picks .symtab, or .dynsym when stripped, and reads it; explains a file with neither. */
static int read_functions(struct elf_ctx *c)
{
    size_t symidx = find_section(c, SHT_SYMTAB);
    c->out->source = SYMTAB_ELF_SYMTAB;
    if (!symidx) {
        symidx = find_section(c, SHT_DYNSYM);
        c->out->source = SYMTAB_ELF_DYNSYM;
    }
    int rc = symidx ? read_symbols(c, symidx) : 0;
    if (rc)
        return rc;
    if (c->out->n)
        return 0;
    if (c->out->source == SYMTAB_ELF_DYNSYM || !symidx)
        return err_set(c->err, c->errlen, EINVAL,
                       "%s has no symbol table: it was stripped (no .symtab%s); use the "
                       "unstripped build (vmlinux, the .ko before 'strip', a -dbg file) or "
                       "its System.map",
                       c->path, symidx ? ", and .dynsym names no function defined in it" : "");
    return err_set(c->err, c->errlen, EINVAL, "%s has a symbol table but no function symbols",
                   c->path);
}

int symtab_load_elf(const char *path, struct symtab *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct elf_ctx c = {.path = path, .out = out, .err = err, .errlen = errlen};
    if (elf_version(EV_CURRENT) == EV_NONE)
        return err_set(err, errlen, EINVAL, "libelf is unusable: %s", elf_errmsg(-1));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, errlen, errno, "cannot open %s: %s", path, strerror(errno));
    int rc = 0;
    struct stat st;
    if (fstat(fd, &st)) {
        rc = err_set(err, errlen, errno, "cannot stat %s: %s", path, strerror(errno));
        goto out;
    }
    c.file_size = (uint64_t)st.st_size;
    c.elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!c.elf || elf_kind(c.elf) != ELF_K_ELF) {
        rc = elf_fail(&c, "not a readable ELF file");
        goto out;
    }
    GElf_Ehdr eh;
    if (!gelf_getehdr(c.elf, &eh)) {
        rc = elf_fail(&c, "cannot read the ELF header");
        goto out;
    }
    out->relocatable = eh.e_type == ET_REL;
    rc = read_sections(&c, &eh);
    if (!rc)
        rc = read_functions(&c);
    if (!rc)
        symtab_sort(out);
out:
    free(c.shdrs);
    if (c.elf)
        elf_end(c.elf);
    close(fd);
    if (rc)
        symtab_free(out);
    return rc;
}

/* The GNU build-id note of an open ELF file: its length, 0 when there is none. */
static size_t elf_build_id(Elf *elf, unsigned char *id, size_t max)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_at, desc_at;
        while (d && (off = gelf_getnote(d, off, &nh, &name_at, &desc_at)) > 0) {
            if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
                memcmp((const char *)d->d_buf + name_at, "GNU", 4) || nh.n_descsz == 0)
                continue;
            size_t n = nh.n_descsz < max ? nh.n_descsz : max;
            memcpy(id, (const char *)d->d_buf + desc_at, n);
            return n;
        }
    }
    return 0;
}

size_t symtab_elf_build_id(const char *path, unsigned char *id, size_t max)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    size_t n = elf && elf_kind(elf) == ELF_K_ELF ? elf_build_id(elf, id, max) : 0;
    if (elf)
        elf_end(elf);
    close(fd);
    return n;
}
