/* Whole small files from /proc and /sys, read in one go. */
#ifndef NETAB_MEASURE_PROCFILE_H
#define NETAB_MEASURE_PROCFILE_H

#include <stddef.h>

#include "util/err.h"

/*
 * Reads the file at path (up to 4 MiB; procfs files report size 0, so it
 * reads until end of file) into a NUL-terminated buffer. Caller has
 * ownership of *text (free()). Returns 0 or -errno (-EFBIG when the file is
 * larger than the cap).
 */
NB_MUST_CHECK int procfile_read(const char *path, char **text);

#endif
