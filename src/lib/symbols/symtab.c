/* The symbol table type shared by the ELF and text-map readers, and format detection. */
#include "symbols/symtab.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/textfile.h"

/* A text map larger than this is not a symbol map (vmlinux's has ~200k lines, ~10 MiB). */
#define MAP_MAX_BYTES (512u << 20)

const char *symtab_source_name(enum symtab_source s)
{
    switch (s) {
    case SYMTAB_ELF_SYMTAB:
        return "ELF .symtab";
    case SYMTAB_ELF_DYNSYM:
        return "ELF .dynsym";
    case SYMTAB_MAP_SIZED:
        return "nm -S map";
    case SYMTAB_MAP:
        return "System.map";
    }
    return "?";
}

int symtab_add(struct symtab *t, const char *name, size_t namelen, const char *section,
               uint64_t addr, uint64_t size)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        struct symtab_sym *v = realloc(t->syms, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        t->syms = v;
        t->cap = cap;
    }
    char *copy = strndup(name, namelen);
    if (!copy)
        return -ENOMEM;
    t->syms[t->n++] = (struct symtab_sym){copy, section, addr, size, 0};
    return 0;
}

static int sym_cmp(const void *a, const void *b)
{
    const struct symtab_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return strcmp(x->name, y->name);
}

void symtab_sort(struct symtab *t)
{
    if (t->n > 1)
        qsort(t->syms, t->n, sizeof(t->syms[0]), sym_cmp);
}

void symtab_free(struct symtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->syms[i].name);
    for (size_t i = 0; i < t->nsections; i++)
        free(t->sections[i]);
    free(t->syms);
    free(t->sections);
    memset(t, 0, sizeof(*t));
}

int symtab_load(const char *path, struct symtab *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, errlen, errno, "cannot open %s: %s", path, strerror(errno));
    char magic[4];
    ssize_t r = pread(fd, magic, sizeof(magic), 0);
    if (r == (ssize_t)sizeof(magic) && !memcmp(magic, "\177ELF", 4)) {
        close(fd);
        return symtab_load_elf(path, out, err, errlen);
    }
    /* Read to end of file rather than trust st_size: /proc/kallsyms reports 0. */
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int e = errno;
        close(fd);
        return err_set(err, errlen, e, "cannot read %s: %s", path, strerror(e));
    }
    char *text = NULL;
    size_t len = 0;
    int rc = textfile_read(f, MAP_MAX_BYTES, &text, &len);
    fclose(f);
    if (rc == -EFBIG)
        return err_set(err, errlen, EINVAL,
                       "%s is neither an ELF file nor a symbol map (text larger than %u MiB)", path,
                       MAP_MAX_BYTES >> 20);
    if (rc == -EILSEQ)
        return err_set(err, errlen, EINVAL,
                       "%s is neither an ELF file nor a symbol map (it holds binary data)", path);
    if (rc)
        return err_set(err, errlen, rc, "cannot read %s: %s", path, strerror(-rc));
    rc = symtab_parse_map(path, text, len, out, err, errlen);
    free(text);
    return rc;
}
