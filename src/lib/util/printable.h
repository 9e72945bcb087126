/*
 * Text from outside made printable before it reaches a terminal or a report:
 * a peer's error message, software and version strings, host names, names
 * read from imported files, hook output. Such text may hold terminal escape
 * sequences (ESC [2J clears the screen, OSC sets the window title, BEL
 * rings, CR overwrites the line shown); written as \xNN they are harmless
 * and still readable.
 *
 * What is escaped: the C0 control bytes 0x00-0x1f, DEL (0x7f) and the C1
 * controls U+0080-U+009F in their UTF-8 form (0xc2 0x80-0x9f, each byte as
 * \xNN), which some terminals obey as well. Every other byte, UTF-8 text
 * included, is copied unchanged. The server's log (proto/server.c) and every
 * client message that quotes a peer use these functions.
 */
#ifndef NETAB_UTIL_PRINTABLE_H
#define NETAB_UTIL_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

/* True if s (NULL: none) holds a byte that printable_copy() would escape. */
bool printable_needed(const char *s);

/*
 * Writes src (NULL: "") into dst (cap bytes, NUL-terminated when cap > 0)
 * with the bytes above as \xNN; an escape that does not fit whole is left
 * out. Returns the length the whole text needs, without the NUL, like
 * snprintf.
 */
size_t printable_copy(char *dst, size_t cap, const char *src);

/* src made printable as a malloc'd string; NULL when out of memory. */
char *printable_dup(const char *src);

/*
 * Writes len bytes of buf to f made printable; with keep_newlines, LF is
 * written as it is (for multi-line text such as a report, whose lines are
 * its own). Returns 0, or -EIO when writing failed.
 */
int printable_write(FILE *f, const char *buf, size_t len, bool keep_newlines);

/*
 * vfprintf() into f with the formatted text made printable (newlines kept),
 * for messages that may quote outside text (a server's error, a file name).
 * Text past 4 KiB is cut. Returns 0, or -EIO when writing failed.
 */
int printable_vfprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
