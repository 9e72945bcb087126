#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int input_parse_plain(const char *name, const char *buf, size_t len, const struct input_opts *o,
                      struct input_values *out, char *err, size_t errlen)
{
    unsigned want = o->column ? o->column : 1;
    const char *p = buf, *end = buf + len;
    snprintf(out->metric, sizeof(out->metric), "column %u", want);
    for (size_t line = 1; p < end; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *hash = memchr(p, '#', (size_t)(eol - p));
        const char *stop = hash ? hash : eol;
        /* Find the wanted whitespace-separated token. */
        unsigned col = 0;
        const char *tok = NULL, *tok_end = NULL, *q = p;
        while (q < stop) {
            while (q < stop && is_space(*q))
                q++;
            if (q >= stop)
                break;
            const char *t = q;
            while (q < stop && !is_space(*q))
                q++;
            if (++col == want) {
                tok = t;
                tok_end = q;
                break;
            }
        }
        if (col == 0) {
            p = eol + 1; /* blank or comment-only line */
            continue;
        }
        if (!tok)
            return err_set(err, errlen, EINVAL, "%s:%zu: no column %u (the line has %u)", name,
                           line, want, col);
        int tl = (int)(tok_end - tok);
        char *num_end;
        errno = 0;
        double v = strtod(tok, &num_end);
        if (num_end != tok_end || tok == tok_end)
            return err_set(err, errlen, EINVAL, "%s:%zu: '%.*s' is not a number", name, line,
                           tl > 40 ? 40 : tl, tok);
        if (!isfinite(v))
            return err_set(err, errlen, EINVAL, "%s:%zu: '%.*s' is not a finite number", name, line,
                           tl > 40 ? 40 : tl, tok);
        int rc = input_push(out, v);
        if (rc)
            return err_set(err, errlen, rc, "%s:%zu: out of memory", name, line);
        p = eol + 1;
    }
    return 0;
}
