/*
 * Every file netab writes (figures, exports, pid and port files, saved CPU
 * settings) goes through here: it is written to a new temporary file in the
 * target's directory (O_EXCL, never through a symbolic link) and renamed
 * into place only once every byte was written, flushed, synced and closed
 * (streams such as /dev/stdout or a FIFO are written straight into).
 * So a full disk or a failed write leaves the old file (or none) rather
 * than a truncated one under its final name, and a symbolic link at the
 * target is replaced itself instead of having its target overwritten (netab
 * often runs as root, and a link planted in a shared directory must not
 * turn a figure into a write to any file on the system).
 */
#ifndef NETAB_UTIL_OUTFILE_H
#define NETAB_UTIL_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* One file being written: write into f, then outfile_commit() or outfile_abort(). */
struct outfile {
    FILE *f;
    char *path; /* the final name, as given */
    char *tmp;  /* the temporary file beside it; NULL: a stream, written straight into */
};

/*
 * Starts writing path. What is at path now may be nothing, a regular file
 * or a symbolic link to one or to nothing (the link is replaced, not
 * followed). A stream is written straight into instead, as there is no
 * file to leave half-written: a FIFO, socket or character device named as
 * such, a FIFO, socket or terminal behind a link, or a regular file behind
 * one of /proc's links (/dev/stdout redirected by a shell: appended to). A
 * directory, a block device, or another device behind a link is refused
 * before anything is created, with a sentence naming the path and what it
 * is. A new file gets the mode of the regular file it replaces, else 0666
 * less the umask (as fopen(path, "w") would). Returns 0 or a negative
 * errno with "cannot write PATH: REASON" in err.
 */
NB_MUST_CHECK int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen);

/*
 * Flushes, syncs and closes the temporary file and renames it to the final
 * name; on any failure the temporary file is removed and the final name is
 * left as it was. Returns 0 or a negative errno with a sentence in err.
 * The struct is released either way.
 */
NB_MUST_CHECK int outfile_commit(struct outfile *o, char *err, size_t errlen);

/* Closes and removes the temporary file; the final name is left as it was. */
void outfile_abort(struct outfile *o);

/* Writes len bytes of data as the whole file path, by the steps above. */
NB_MUST_CHECK int outfile_write(const char *path, const void *data, size_t len, char *err,
                                size_t errlen);

/*
 * Opens path for appending (a log): created 0644 when absent, never through
 * a symbolic link to a regular file, since a log's lines cannot be renamed
 * into place and a planted link must not make root append to any file. A
 * link to a stream (/dev/stderr, a FIFO, a terminal) is followed. A
 * directory or a block device is refused. Returns the stream, or NULL with
 * "cannot append to PATH: REASON" in err.
 */
FILE *outfile_append(const char *path, char *err, size_t errlen);

#endif
