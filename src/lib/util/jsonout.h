/* jsonout: the one way netab writes JSON.
 *
 * Every JSON document netab prints or stores is written here, so all of them
 * carry reals with the same precision: 17 significant digits, enough for a
 * reader to get back the exact double netab computed (a statistic re-checked
 * against scipy, a run copied between stores). Text output that shows one
 * JSON value among words uses jsonout_display() instead, which rounds to 10
 * significant digits for people. */
#ifndef NETAB_UTIL_JSONOUT_H
#define NETAB_UTIL_JSONOUT_H

#include <jansson.h>
#include <stdio.h>

/* The precision of every real in netab's JSON documents. */
#define JSONOUT_PRECISION 17

/* Writes doc indented by 2 with a final newline to f and checks the write
 * (including a flush of f). Returns 0, -EINVAL for a NULL doc (out of memory
 * while building it), or -EIO. Does not take the reference. */
int jsonout_write(FILE *f, const json_t *doc);

/* Returns v (any JSON value) as one compact line in malloc'd memory, or NULL
 * when v is NULL or memory ran out. For documents that are stored or sent. */
char *jsonout_compact(const json_t *v);

/* Returns v as compact text rounded to 10 significant digits, malloc'd, for
 * a value shown inside text output; NULL when v is NULL or memory ran out. */
char *jsonout_display(const json_t *v);

#endif
