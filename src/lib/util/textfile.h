/*
 * Whole-file reads of text inputs with a size cap from the start, so that
 * `netab stats /dev/zero` or a binary file given by mistake is refused in a
 * moment instead of read without end.
 */
#ifndef NETAB_UTIL_TEXTFILE_H
#define NETAB_UTIL_TEXTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* The cap of every text input netab reads whole (documented in docs/stats.md). */
#define TEXTFILE_MAX ((size_t)64 << 20)

/*
 * Reads the rest of f, at most max bytes, into a NUL-terminated malloc'ed
 * buffer (caller frees *buf; *len excludes the NUL). Returns 0; -EFBIG when
 * f holds more than max bytes; -EILSEQ when it holds a NUL byte (a binary
 * file: *len is then the NUL's offset); or another -errno. On error *buf is
 * NULL.
 */
NB_MUST_CHECK int textfile_read(FILE *f, size_t max, char **buf, size_t *len);

/*
 * Like textfile_read() for an input whose first headlen bytes, head (free
 * of NUL bytes), were already read from f: the result holds head followed
 * by the rest of f, and max counts both.
 */
NB_MUST_CHECK int textfile_read_after(FILE *f, size_t max, const char *head, size_t headlen,
                                      char **buf, size_t *len);

/*
 * Reads the file at path ("-": standard input) whole, as textfile_read()
 * does. Returns 0 or a negative errno with "cannot read PATH: REASON" in
 * err: for a file over max "larger than N MiB, the most one document may
 * hold", for a NUL byte "a binary file (it holds a NUL byte), not WHAT"
 * (what: "a JSON document"), else the errno's text.
 */
NB_MUST_CHECK int textfile_load(const char *path, size_t max, const char *what, char **buf,
                                size_t *len, char *err, size_t errlen);

#endif
