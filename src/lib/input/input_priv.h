/* Internal interface between the input front end and its format parsers. */
#ifndef NETAB_INPUT_PRIV_H
#define NETAB_INPUT_PRIV_H

#include <jansson.h>
#include <stddef.h>

#include "input/input.h"

/* Appends v to out. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int input_push(struct input_values *out, double v);

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
 * Calls take(name, line, doc, ctx, err, errlen) for each JSON document in
 * buf[0..len-1]: one, or several concatenated (`iperf3 -J >> f`), separated
 * by blanks; line is where the document starts. The document is borrowed.
 * Returns 0, take's error, or -EINVAL with "name:line: invalid JSON: ...".
 */
typedef int (*input_json_take_fn)(const char *name, size_t line, json_t *doc, void *ctx, char *err,
                                  size_t errlen);
NB_MUST_CHECK int input_json_each(const char *name, const char *buf, size_t len,
                                  input_json_take_fn take, void *ctx, char *err, size_t errlen);

#endif
