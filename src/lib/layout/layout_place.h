/*
 * Where one function lies in one build: its address, the offset within its
 * cache line and the lines it spans, looked up by name in a symbol table.
 * For the campaign report, which places the hot functions of a
 * differential profile in each variant's build (docs/profile.md).
 */
#ifndef NETAB_LAYOUT_LAYOUT_PLACE_H
#define NETAB_LAYOUT_LAYOUT_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"

struct layout_place {
    const char *name; /* the symbol found (points into the table); NULL: none */
    uint64_t addr, size;
    unsigned offset; /* of addr within its line */
    uint64_t lines;  /* lines [addr, addr + size) touches; 0 with an unknown size */
    size_t count;    /* functions in the table that the name matched */
};

/*
 * Looks name up in t for `line`-byte lines (a power of two): the function
 * of exactly that name, else GCC's clones of the name's base (the part
 * before its first '.': "ip_rcv_core.isra.0" and "ip_rcv_core.constprop.0"
 * are one function built twice), never a ".cold" part unless name is one.
 * Where several match (static functions of different files), the lowest
 * address is shown and count says how many. Returns true when found; out
 * is zeroed otherwise.
 */
bool layout_place_find(const struct symtab *t, const char *name, unsigned line,
                       struct layout_place *out);

#endif
