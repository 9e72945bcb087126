/* Small file readers shared by the envcap and cpuctl modules. Internal. */
#ifndef NETAB_ENVCAP_FSREAD_H
#define NETAB_ENVCAP_FSREAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Reads the file root/rel (rel starts without '/') into buf, at most len-1
 * bytes, NUL-terminated, with trailing whitespace removed. Returns the
 * length, or a negative errno.
 */
int fs_read(const char *root, const char *rel, char *buf, size_t len);

/* The contents of root/rel as a JSON string, or JSON null if unreadable. */
json_t *fs_json_str(const char *root, const char *rel);

/* The contents of root/rel as a JSON integer, or JSON null if unreadable or not a number. */
json_t *fs_json_int(const char *root, const char *rel);

/* Writes s (no newline added) to root/rel. Returns 0 or a negative errno. */
int fs_write(const char *root, const char *rel, const char *s);

/*
 * Parses a kernel CPU list ("0-3,8,10-11") into a bitmap of max bits.
 * Returns the number of CPUs set, or -EINVAL.
 */
int fs_parse_cpulist(const char *s, unsigned char *bits, int max);

/* Formats the first cpus set bits of a bitmap as a CPU list into buf. */
void fs_format_cpulist(const unsigned char *bits, int max, char *buf, size_t len);

/* Collapses runs of whitespace in s into single spaces, in place. */
void fs_squash_spaces(char *s);

#endif
