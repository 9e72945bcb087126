/*
 * Function symbol tables for code-layout comparison (netab layout,
 * docs/layout.md). One table type, filled either from an ELF file's .symtab
 * (or, when that is stripped, its .dynsym) through libelf, or from a
 * System.map, /proc/kallsyms snapshot or `nm -n [-S]` listing.
 *
 * Ownership: a struct symtab and every string in it belong to the caller and
 * are released with symtab_free(). Errors follow libnetab's convention: 0 or
 * a negative errno with a sentence in (err, errlen).
 */
#ifndef NETAB_LAYOUT_SYMTAB_H
#define NETAB_LAYOUT_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* One function (code) symbol. */
struct symtab_sym {
    char *name;          /* owned */
    const char *section; /* ELF section name (owned by the table), or NULL for text maps */
    uint64_t addr;       /* run-time address, or offset in its section for relocatable files */
    uint64_t size;       /* bytes; 0 when unknown; for SYMTAB_MAP the gap to the next symbol */
    /*
     * For a size that is a gap (SYMTAB_MAP): the alignment of the next
     * symbol's address (its lowest set bit, at most 4096), which bounds the
     * padding the gap may hold; 0 for exact sizes and for the last symbol.
     */
    uint64_t next_align;
};

/* Where the symbols of a table came from. */
enum symtab_source {
    SYMTAB_ELF_SYMTAB, /* ELF .symtab: every function, exact sizes */
    SYMTAB_ELF_DYNSYM, /* ELF .dynsym of a stripped file: exported functions only */
    SYMTAB_MAP_SIZED,  /* `nm -n -S` text: exact sizes where nm printed them */
    SYMTAB_MAP,        /* System.map, kallsyms, `nm -n`: sizes inferred from the next symbol */
};

struct symtab {
    struct symtab_sym *syms; /* sorted by address, then name */
    size_t n, cap;
    enum symtab_source source;
    bool relocatable; /* ELF ET_REL (a module .ko, an object file): addresses are offsets */
    char **sections;  /* section names the symbols point to (owned) */
    size_t nsections;
};

/* The source as a short phrase for humans and JSON ("ELF .symtab", "System.map", ...). */
const char *symtab_source_name(enum symtab_source s);

/*
 * Reads the function symbols of path into out (zero-initialised by the
 * callee), detecting the format: an ELF file (by its magic number) is read
 * with libelf, anything else must be a text map. Returns 0; -ENOENT etc.
 * when the file cannot be read; -EINVAL when it is not a usable symbol file
 * (not ELF nor text, stripped, truncated, a garbage line, no function
 * symbols), always explained in err, which names the file. On failure out
 * holds nothing.
 */
NB_MUST_CHECK int symtab_load(const char *path, struct symtab *out, char *err, size_t errlen);

/*
 * Reads an ELF file (see symtab_load). Functions are the defined symbols in
 * executable sections (the ones nm letters t, T, W, i), except section,
 * file and TLS symbols and ARM/AArch64 mapping symbols ($x, $a, $t, $d).
 */
NB_MUST_CHECK int symtab_load_elf(const char *path, struct symtab *out, char *err, size_t errlen);

/*
 * The GNU build-id (NT_GNU_BUILD_ID note) of an ELF file, at most max bytes
 * into id: its length, or 0 when the file cannot be read or has none.
 */
size_t symtab_elf_build_id(const char *path, unsigned char *id, size_t max);

/*
 * Parses a text map held in text[0..len) (path only names it in messages).
 * Accepted lines: "ADDR TYPE NAME", "ADDR SIZE TYPE NAME" (nm -S), either
 * with a trailing "[module]" (kallsyms), and nm's address-less "U NAME" /
 * "w NAME" lines for undefined symbols, which are skipped. Blank lines are
 * skipped; any other line is an error naming its line number. Functions are
 * symbols of type t/T and, when their address lies within the t/T range,
 * W/w/i (weak and indirect symbols can also be data). Without any size
 * column a function's size is the distance to the next higher address in
 * the map (so it includes alignment padding); the last symbol's is 0. Such
 * a symbol's next_align is the alignment of that next address, so that a
 * reader can tell how much of the gap may be padding (docs/layout.md,
 * "Sizes").
 */
NB_MUST_CHECK int symtab_parse_map(const char *path, const char *text, size_t len,
                                   struct symtab *out, char *err, size_t errlen);

/* Appends a symbol (name copied). Returns 0 or -ENOMEM. */
NB_MUST_CHECK int symtab_add(struct symtab *t, const char *name, size_t namelen,
                             const char *section, uint64_t addr, uint64_t size);

/* Sorts the symbols by address, then name (stable for equal keys). */
void symtab_sort(struct symtab *t);

/* Frees everything and zeroes t; safe on a zeroed table. */
void symtab_free(struct symtab *t);

#endif
