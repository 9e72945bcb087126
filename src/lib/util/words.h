/*
 * Splitting an option string such as "-l 128K -C 'bbr'" into words the way a
 * POSIX shell would, without expanding anything: no variables, globs or
 * command substitution, so a variant's options mean exactly what they say.
 */
#ifndef NETAB_UTIL_WORDS_H
#define NETAB_UTIL_WORDS_H

#include <stddef.h>

#include "util/err.h"

struct words {
    char **w; /* NULL-terminated array of n owned strings */
    size_t n;
};

/*
 * Splits s at unquoted blanks (space, tab, newline). Single quotes keep
 * everything literally; double quotes keep everything but a backslash before
 * one of $ ` " \ or newline; outside quotes a backslash keeps the next
 * character. "" and '' make an empty word. Returns 0, -EINVAL (unterminated
 * quote, trailing backslash; explained in err) or -ENOMEM. The caller owns
 * out and frees it with words_free(); on failure out holds nothing.
 */
NB_MUST_CHECK int words_split(const char *s, struct words *out, char *err, size_t errlen);

/* Appends a copy of word. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int words_push(struct words *ws, const char *word);

/* Frees every word and zeroes ws; safe on a zeroed struct. */
void words_free(struct words *ws);

/*
 * Writes word into buf quoted for /bin/sh ('...' with ' as '\'') so that the
 * shell reads it back as one literal word. Returns the length it needs
 * (excluding the NUL), like snprintf.
 */
size_t words_shell_quote(const char *word, char *buf, size_t len);

#endif
