#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool input_is_failure_word(const char *tok, size_t len)
{
    if (len == 0 || len > INPUT_FAIL_WORD_MAX)
        return false;
    size_t lead = (tok[0] == '-' || tok[0] == '_') ? 1 : 0;
    if (lead >= len || !isalpha((unsigned char)tok[lead]))
        return false;
    for (size_t i = lead; i < len; i++) {
        unsigned char c = (unsigned char)tok[i];
        if (!isalnum(c) && c != '_' && c != '-' && c != '.' && c != ':')
            return false;
    }
    return true;
}

/* True if tok[0..len-1] reads whole as a number (strtod, finite or not). */
static bool is_number(const char *tok, size_t len)
{
    char *end;
    (void)strtod(tok, &end);
    return len && end == tok + len;
}

/*
 * The next whitespace-separated token of q[0..stop-q-1]: its start, with
 * its end in *end; NULL when only blanks are left.
 */
static const char *next_token(const char *q, const char *stop, const char **end)
{
    while (q < stop && is_space(*q))
        q++;
    if (q >= stop)
        return NULL;
    const char *t = q;
    while (q < stop && !is_space(*q))
        q++;
    *end = q;
    return t;
}

/*
 * True if a token of p[0..stop-p-1] other than the one at skip is a
 * number; *several says whether the line holds more than one token. A row
 * of a table whose wanted column failed holds numbers elsewhere; a header
 * holds words only.
 */
static bool row_has_number(const char *p, const char *stop, const char *skip, bool *several)
{
    size_t ntok = 0;
    bool num = false;
    for (const char *q = p, *t; (t = next_token(q, stop, &q));) {
        ntok++;
        /* The token ends at a blank, a '#' or the line's end, where strtod() stops too. */
        if (t != skip && !num)
            num = is_number(t, (size_t)(q - t));
    }
    *several = ntok > 1;
    return num;
}

/*
 * Counts the failure word tok[0..len-1] in out->fails. Returns 0 or
 * -EINVAL with "name:line: ..." when it would be one word too many.
 */
static int count_failure(const char *name, size_t line, const char *tok, size_t len,
                         struct input_values *out, char *err, size_t errlen)
{
    struct input_failures *f = &out->fails;
    for (size_t i = 0; i < f->nwords; i++)
        if (strlen(f->words[i].word) == len && !memcmp(f->words[i].word, tok, len)) {
            f->words[i].count++;
            f->n++;
            f->last = i;
            return 0;
        }
    if (f->nwords == INPUT_FAIL_WORDS_MAX)
        return err_set(err, errlen, EINVAL,
                       "%s:%zu: '%.*s' is not a number, and no more than %d different words "
                       "are taken for failed runs: is this a file of numbers?",
                       name, line, (int)len, tok, INPUT_FAIL_WORDS_MAX);
    memcpy(f->words[f->nwords].word, tok, len);
    f->words[f->nwords].word[len] = '\0';
    f->last = f->nwords;
    f->words[f->nwords++].count = 1;
    f->n++;
    return 0;
}

/*
 * The wanted token tok[0..len-1] of the line p..stop, which is not a
 * number: a failed run when it is a failure word alone on its line or in a
 * row that holds a number elsewhere; otherwise an error (a header's words,
 * a misspelt number). Returns 0 or -EINVAL with "name:line: ..." in err.
 */
static int not_number(const char *name, size_t line, const char *p, const char *stop,
                      const char *tok, size_t len, struct input_values *out, char *err,
                      size_t errlen)
{
    int tl = len > 40 ? 40 : (int)len;
    if (!input_is_failure_word(tok, len))
        return err_set(err, errlen, EINVAL, "%s:%zu: '%.*s' is not a number", name, line, tl, tok);
    bool several;
    bool num = row_has_number(p, stop, tok, &several);
    if (several && !num)
        return err_set(err, errlen, EINVAL,
                       "%s:%zu: '%.*s' is not a number, and the line holds no number: a header? "
                       "(make it a '#' comment)",
                       name, line, tl, tok);
    return count_failure(name, line, tok, len, out, err, errlen);
}

/* One line of plain numbers (input_priv.h). */
int input_plain_line(const char *name, size_t line, const char *p, const char *eol, unsigned want,
                     struct input_values *out, char *err, size_t errlen)
{
    const char *hash = memchr(p, '#', (size_t)(eol - p));
    const char *stop = hash ? hash : eol;
    /* Find the wanted whitespace-separated token. */
    unsigned col = 0;
    const char *tok = NULL, *tok_end = NULL;
    for (const char *q = p, *t; (t = next_token(q, stop, &q));) {
        if (++col == want) {
            tok = t;
            tok_end = q;
            break;
        }
    }
    if (col == 0)
        return 0; /* blank or comment-only line */
    if (!tok)
        return err_set(err, errlen, EINVAL, "%s:%zu: no column %u (the line has %u)", name, line,
                       want, col);
    int tl = (int)(tok_end - tok);
    char *num_end;
    errno = 0;
    double v = strtod(tok, &num_end);
    if (num_end != tok_end || tok == tok_end)
        return not_number(name, line, p, stop, tok, (size_t)tl, out, err, errlen);
    if (!isfinite(v))
        return err_set(err, errlen, EINVAL, "%s:%zu: '%.*s' is not a finite number", name, line,
                       tl > 40 ? 40 : tl, tok);
    int rc = input_push(out, v);
    return rc ? input_push_error(name, line, out, rc, err, errlen) : 0;
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
        int rc = input_plain_line(name, line, p, eol, want, out, err, errlen);
        if (rc)
            return rc;
        p = eol + 1;
    }
    return 0;
}

/*
 * Parses the complete lines of buf[0..*have-1] (the last one too when eof)
 * and moves what is left of an unfinished line to the front. Returns 0 or
 * input_plain_line()'s error.
 */
static int stream_lines(const char *name, char *buf, size_t *have, bool eof, size_t *line,
                        unsigned want, struct input_values *out, char *err, size_t errlen)
{
    char *p = buf, *end = buf + *have;
    while (p < end) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol && !eof)
            break;
        if (!eol)
            eol = end;
        int rc = input_plain_line(name, *line, p, eol, want, out, err, errlen);
        if (rc)
            return rc;
        (*line)++;
        p = eol < end ? eol + 1 : end;
    }
    *have = (size_t)(end - p);
    memmove(buf, p, *have);
    return 0;
}

int input_stream_plain(const char *name, FILE *f, char *buf, size_t have, size_t cap, size_t max,
                       const struct input_opts *o, struct input_values *out, char *err,
                       size_t errlen)
{
    unsigned want = o->column ? o->column : 1;
    snprintf(out->metric, sizeof(out->metric), "column %u", want);
    size_t line = 1, total = have;
    bool eof = false;
    int rc = 0;
    while (!rc) {
        if (total > max) {
            rc = input_read_error(name, -EFBIG, 0, err, errlen);
            break;
        }
        if ((rc = stream_lines(name, buf, &have, eof, &line, want, out, err, errlen)) || eof)
            break;
        if (have == cap) {
            /* One line fills the buffer: make room (the byte cap bounds it). */
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                rc = err_set(err, errlen, ENOMEM, "%s:%zu: out of memory", name, line);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + have, 1, cap - have, f);
        const char *nul = got ? memchr(buf + have, '\0', got) : NULL;
        if (nul) {
            rc = input_read_error(name, -EILSEQ, total + (size_t)(nul - (buf + have)), err, errlen);
            break;
        }
        if (!got && ferror(f))
            rc = input_read_error(name, errno ? -errno : -EIO, 0, err, errlen);
        eof = got == 0;
        have += got;
        total += got;
        buf[have] = '\0'; /* the last line may end here, without '\n' */
    }
    free(buf);
    return rc;
}
