/* Internal interface between the input front end and its format parsers. */
#ifndef NETAB_INPUT_PRIV_H
#define NETAB_INPUT_PRIV_H

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

#endif
