/* Internal interface between the input front end and its format parsers. */
#ifndef NETAB_INPUT_PRIV_H
#define NETAB_INPUT_PRIV_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "input/input.h"

/* Appends v to out. Returns 0, -E2BIG (out->limit reached) or -ENOMEM. */
NB_MUST_CHECK int input_push(struct input_values *out, double v);

/*
 * The sentence in err for input_push()'s failure rc at name:line (line 0:
 * none): the cap reached and which, or out of memory. Returns rc.
 */
int input_push_error(const char *name, size_t line, const struct input_values *out, int rc,
                     char *err, size_t errlen);

/*
 * The sentence in err for a failure rc of reading name (-EFBIG: over
 * TEXTFILE_MAX; -EILSEQ: a NUL byte at offset nul_at; else -errno). Returns
 * a negative errno.
 */
int input_read_error(const char *name, int rc, size_t nul_at, char *err, size_t errlen);

/*
 * Sets out->limit from INPUT_VALUES_MAX, INPUT_VALUES_TOTAL_MAX and
 * o->values_before, before any value is pushed.
 */
void input_set_limit(const struct input_opts *o, struct input_values *out);

/*
 * Plain numbers from f, as they are read: buf (malloc'ed, cap bytes + 1)
 * holds the first have bytes of the input, already read and checked for NUL
 * bytes. Refuses more than max bytes in all. Takes ownership of buf.
 */
NB_MUST_CHECK int input_stream_plain(const char *name, FILE *f, char *buf, size_t have, size_t cap,
                                     size_t max, const struct input_opts *o,
                                     struct input_values *out, char *err, size_t errlen);

/*
 * One line p[0..eol-p-1] of plain numbers (without its '\n'), which a '\n'
 * or a NUL byte follows, so that strtod() stops at its end: column want's
 * number appended to out, or its failure word counted in out->fails
 * (input.h), nothing for a blank or comment-only line. Returns 0 or a
 * negative errno with "name:line: ..." in err.
 */
NB_MUST_CHECK int input_plain_line(const char *name, size_t line, const char *p, const char *eol,
                                   unsigned want, struct input_values *out, char *err,
                                   size_t errlen);

/*
 * Each parser reads buf[0..len-1] (NUL-terminated) and appends to out.
 * Return 0 or a negative errno with "name:line: ..." in err.
 */
NB_MUST_CHECK int input_parse_plain(const char *name, const char *buf, size_t len,
                                    const struct input_opts *o, struct input_values *out, char *err,
                                    size_t errlen);
NB_MUST_CHECK int input_parse_json(const char *name, const char *buf, size_t len,
                                   const struct input_opts *o, struct input_values *out, char *err,
                                   size_t errlen);
NB_MUST_CHECK int input_parse_iperf2(const char *name, const char *buf, size_t len,
                                     const struct input_opts *o, struct input_values *out,
                                     char *err, size_t errlen);

/*
 * The most one JSON document may weigh before it is parsed: each object or
 * array counts 6, any other value 1 (jansson holds about 230 and 40 bytes
 * for them), so that one document of 64 MiB takes at most about 250 MB.
 */
#define INPUT_JSON_COST_MAX ((size_t)6000000)

/*
 * Calls take(name, line, doc, ctx, err, errlen) for each JSON document in
 * buf[0..len-1]: one, or several concatenated (`iperf3 -J >> f`), separated
 * by blanks; line is where the document starts. A top-level array is read
 * one element at a time, each handed to take as an array of one, so that
 * only one document is held at a time. The document is borrowed. Returns
 * 0, take's error, -EINVAL with "name:line: invalid JSON: ..." or -E2BIG
 * for a document over INPUT_JSON_COST_MAX.
 */
typedef int (*input_json_take_fn)(const char *name, size_t line, json_t *doc, void *ctx, char *err,
                                  size_t errlen);
NB_MUST_CHECK int input_json_each(const char *name, const char *buf, size_t len,
                                  input_json_take_fn take, void *ctx, char *err, size_t errlen);

#endif
