/*
 * The sets of `netab stats`: an argument is FILE, or NAME=FILE to show the
 * set as NAME in the text, JSON, CSV and figures instead of the file name.
 */
#ifndef NETAB_CLI_STATS_SETS_H
#define NETAB_CLI_STATS_SETS_H

#include <stddef.h>

#include "util/err.h"

/* A NAME is 1 to 64 of [A-Za-z0-9_.-] and does not start with '-'. */
#define CLI_SET_NAME_MAX 64

/*
 * Splits arg into the name to show (name[0] == '\0': none, show the file)
 * and the file to read (*path, pointing into arg). arg is NAME=FILE when
 * the text before its first '=' is a NAME; a path with a '/' before its
 * '=' (./a=b, dir/x=1) never is. Where both readings name a file that
 * exists (a file "a=b" and a file "b"), arg is refused as ambiguous, with
 * the two ways to say either; where only the whole argument exists, it is
 * that file. FILE "-" is standard input. name holds CLI_SET_NAME_MAX + 1
 * bytes. Returns 0 or -EINVAL with a sentence in err.
 */
NB_MUST_CHECK int cli_stats_split_set(const char *arg, char *name, const char **path, char *err,
                                      size_t errlen);

#endif
