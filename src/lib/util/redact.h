/*
 * Passwords out of database URLs, for everything netab prints or stores
 * (docs/store.md, "PostgreSQL: a team store"; a --db URL may carry one).
 */
#ifndef NETAB_UTIL_REDACT_H
#define NETAB_UTIL_REDACT_H

#include <stddef.h>

/*
 * target with any password removed: "postgresql://u:secret@h/db" ->
 * "postgresql://u@h/db", and a password=... parameter of the query dropped.
 * Anything not a URL is copied unchanged. Returns a malloc'd string (NULL
 * when out of memory).
 */
char *redact_url(const char *target);

/*
 * text with the password of every postgresql:// or postgres:// URL in it
 * removed as redact_url() does (a URL ends at white space, a quote or a
 * backslash): for command lines and documents that may quote one. Returns a
 * malloc'd string, NULL for NULL text or when out of memory.
 */
char *redact_text(const char *text);

/*
 * The command line of words argv[0..n-1] as a user can paste it into a
 * shell: each word's passwords removed (redact_text()), then single-quoted
 * ('...' with ' as '\'') unless it consists only of letters, digits and
 * -_./=:,+%@. Words are joined by one space. Every command line netab shows
 * (the HTML report's commands to reproduce) is written by this function, so
 * that what is shown is safe to mail and means what was run. Returns a
 * malloc'd string, NULL when out of memory.
 */
char *redact_command(const char *const *argv, size_t n);

#endif
