/*
 * The two builds `netab layout` compares, from their files: both symbol
 * tables read and their comparison built, so the CLI only parses, calls and
 * prints.
 *
 * Ownership: a struct layout_files belongs to the caller (layout_files_free);
 * its diff's names point into its own symbol tables.
 */
#ifndef NETAB_LAYOUT_LAYOUT_FILES_H
#define NETAB_LAYOUT_LAYOUT_FILES_H

#include <stddef.h>

#include "layout/layout_diff.h"
#include "layout/layout_hot.h"
#include "symbols/symtab.h"
#include "util/err.h"

struct layout_files {
    struct symtab old, new;
    struct layout_diff diff;
};

/*
 * Reads old_path and new_path (symtab_load) and compares them for line size
 * `line` with the hot set hot (NULL: nothing is hot). Returns 0; -ENOMEM
 * when memory ran out, reading or comparing; another negative errno when a
 * file is unreadable or no symbol file (a bad input, which the caller tells
 * apart from running out of memory), or -EINVAL for a line that is not a
 * power of two. err says which, naming the file. On failure f holds
 * nothing, yet layout_files_free(f) is still safe.
 */
NB_MUST_CHECK int layout_files_compare(const char *old_path, const char *new_path,
                                       const struct layout_hot *hot, unsigned line,
                                       struct layout_files *f, char *err, size_t errlen);

void layout_files_free(struct layout_files *f);

#endif
