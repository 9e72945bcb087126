/*
 * The comparison behind `netab layout`: pairs the functions of two symbol
 * tables by name and works out, for each, where it starts within its cache
 * line and how many lines it spans in either build, plus the bloat-o-meter
 * style size changes and the hot set's share of the moves.
 *
 * Ownership: a struct layout_diff belongs to the caller (layout_diff_free);
 * its names point into the two symbol tables and the hot set, which must
 * outlive it.
 */
#ifndef NETAB_LAYOUT_LAYOUT_DIFF_H
#define NETAB_LAYOUT_LAYOUT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/layout_hot.h"
#include "symbols/symtab.h"

/* A function of either build; in_old/in_new say which. */
struct layout_fn {
    const char *name;
    const char *section; /* the new build's section, else the old one's; NULL for maps */
    bool in_old, in_new, hot;
    uint64_t old_addr, old_size, new_addr, new_size;
    /*
     * The most padding each side's size may hold: 0 for an exact size
     * (ELF st_size, nm -S); for a gap to the next symbol (System.map, plain
     * nm) one less than the smaller of that symbol's address alignment and
     * the line size, at most the gap less one byte (layout_fn_delta()).
     */
    uint64_t old_pad, new_pad;
};

struct layout_diff {
    unsigned line; /* cache line size in bytes, a power of two */
    /* Common functions by old address, then added ones by new address, then removed ones. */
    struct layout_fn *fns;
    size_t n;
    size_t common, added, removed;
    size_t offset_changed, lines_changed; /* among common functions */
    size_t hot_common, hot_offset_changed, hot_lines_changed, hot_added, hot_removed;
    const struct layout_fn *first;     /* the common function with the lowest old address */
    const struct layout_fn *first_hot; /* the hot one among them; NULL when none is hot */
    /* Sizes, bloat-o-meter style: totals over each build, growth and shrinkage. */
    uint64_t old_total, new_total;
    size_t grow, shrink; /* common functions that grew / shrank */
    int64_t up, down;    /* sum of positive / negative deltas, added and removed included */
    /* Indices into fns of every function whose size changed, biggest |delta| first. */
    size_t *by_delta;
    size_t ndelta;
    size_t padding_only; /* common functions whose gap changed within the padding only */
    /* The hot set's patterns that match no function of either build (a user's set only). */
    const char **unmatched;
    size_t nunmatched;
};

/* Offset of addr within its line. */
static inline unsigned layout_offset(uint64_t addr, unsigned line)
{
    return (unsigned)(addr & (line - 1));
}

/* Number of lines [addr, addr + size) touches; 0 for an unknown (zero) size. */
static inline uint64_t layout_lines(uint64_t addr, uint64_t size, unsigned line)
{
    return size ? (layout_offset(addr, line) + size + line - 1) / line : 0;
}

/*
 * Size change of f (new minus old; a missing side counts as 0). Each side's
 * size may lie anywhere in [size - pad, size]; when the two ranges overlap
 * (a gap that grew only because the next symbol is aligned further away)
 * the change is 0: padding is not growth.
 */
int64_t layout_fn_delta(const struct layout_fn *f);

/* The change of the sizes as the files give them (gaps included), new minus old. */
int64_t layout_fn_gap_delta(const struct layout_fn *f);

/* Whether a common function's gap changed but layout_fn_delta() is 0 (padding only). */
bool layout_fn_padding_only(const struct layout_fn *f);

/* Whether a common function starts at a different offset within its line. */
bool layout_fn_offset_changed(const struct layout_fn *f, unsigned line);

/* Whether a common function spans a different number of lines. */
bool layout_fn_lines_changed(const struct layout_fn *f, unsigned line);

/*
 * Compares old with new for line size `line` (a power of two); hot may be
 * NULL (nothing is hot). Functions are paired by name; a name that occurs
 * several times in a build (static functions of different files) pairs its
 * k-th occurrence in address order with the other build's k-th. Returns 0,
 * -EINVAL for a line that is not a power of two, or -ENOMEM.
 */
int layout_diff_build(const struct symtab *old, const struct symtab *new,
                      const struct layout_hot *hot, unsigned line, struct layout_diff *out);

void layout_diff_free(struct layout_diff *d);

#endif
