#include "input/input.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"
#include "util/textfile.h"

const struct opt_choice input_format_choices[] = {
    {"plain", INPUT_PLAIN},   {"netab", INPUT_NETAB}, {"iperf3", INPUT_IPERF3},
    {"iperf2", INPUT_IPERF2}, {"auto", INPUT_AUTO},   {NULL, 0},
};

const char *input_format_name(enum input_format f)
{
    for (const struct opt_choice *c = input_format_choices; c->word; c++)
        if (c->value == (int)f)
            return c->word;
    return "?";
}

/* Whether s ends with tail. */
static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

const char *input_display_unit(const char *format, const char *metric, double *scale)
{
    *scale = 1;
    if (!format || !metric || !strcmp(format, "plain"))
        return "";
    bool iperf2 = !strcmp(format, "iperf2");
    /* iperf2's bandwidth and the JSON formats' bits_per_second are bits per second. */
    if ((iperf2 && !strcmp(metric, "bandwidth")) || ends_with(metric, "bits_per_second")) {
        *scale = 1e-6;
        return "Mbit/s";
    }
    if ((iperf2 && !strcmp(metric, "jitter")) || ends_with(metric, "jitter_ms"))
        return "ms";
    if ((iperf2 && !strcmp(metric, "loss")) || ends_with(metric, "lost_percent"))
        return "%";
    if ((iperf2 && !strcmp(metric, "transfer")) || ends_with(metric, ".bytes"))
        return "bytes";
    return "";
}

void input_set_limit(const struct input_opts *o, struct input_values *out)
{
    size_t before = o->values_before, left = 0;
    if (before < INPUT_VALUES_TOTAL_MAX)
        left = INPUT_VALUES_TOTAL_MAX - before;
    out->at_total = left < INPUT_VALUES_MAX;
    out->limit = out->at_total ? left : INPUT_VALUES_MAX;
}

int input_push(struct input_values *out, double v)
{
    size_t limit = out->limit || out->at_total ? out->limit : INPUT_VALUES_MAX;
    if (out->n >= limit)
        return -E2BIG;
    if (out->n == out->cap) {
        /* Doubling, but never past the cap: the array is at most 8 bytes a value it may hold. */
        size_t cap = out->cap ? out->cap * 2 : 1024;
        cap = cap > limit ? limit : cap;
        double *p = realloc(out->v, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        out->v = p;
        out->cap = cap;
    }
    out->v[out->n++] = v;
    return 0;
}

int input_push_error(const char *name, size_t line, const struct input_values *out, int rc,
                     char *err, size_t errlen)
{
    char where[NB_ERRLEN];
    if (line)
        snprintf(where, sizeof(where), "%s:%zu", name, line);
    else
        snprintf(where, sizeof(where), "%s", name);
    if (rc != -E2BIG)
        return err_set(err, errlen, -rc, "%s: out of memory", where);
    if (out->at_total)
        return err_set(err, errlen, E2BIG,
                       "%s: more than %zu values in all inputs together, the most netab reads "
                       "(%zu in the inputs before this one)",
                       where, INPUT_VALUES_TOTAL_MAX, INPUT_VALUES_TOTAL_MAX - out->limit);
    return err_set(err, errlen, E2BIG, "%s: more than %zu values, the most one input may hold",
                   where, INPUT_VALUES_MAX);
}

void input_values_free(struct input_values *out)
{
    free(out->v);
    memset(out, 0, sizeof(*out));
}

/* True if s occurs in buf[0..len-1]. */
static int contains(const char *buf, size_t len, const char *s)
{
    return memmem(buf, len, s, strlen(s)) != NULL;
}

/*
 * Guesses the format from the content. JSON starts with '{', or with '['
 * followed by '{', '[' or ']'; iperf2 lines also start with '[' but carry an
 * id ("[  3]", "[SUM]") and its reports say "bits/sec". Everything else is
 * taken for plain numbers, whose parser then reports any line that is not.
 */
static enum input_format detect(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", buf[i]))
        i++;
    if (i < len && buf[i] == '{')
        return INPUT_NETAB;
    if (i < len && buf[i] == '[') {
        size_t j = i + 1;
        while (j < len && strchr(" \t\r\n", buf[j]))
            j++;
        if (j >= len || buf[j] == '{' || buf[j] == '[' || buf[j] == ']')
            return INPUT_NETAB;
    }
    size_t head = len < 65536 ? len : 65536;
    if (contains(buf, head, "bits/sec") || contains(buf, head, "Client connecting to") ||
        contains(buf, head, "Server listening on"))
        return INPUT_IPERF2;
    return INPUT_PLAIN;
}

int input_parse_buffer(const char *name, const char *buf, size_t len, const struct input_opts *o,
                       struct input_values *out, char *err, size_t errlen)
{
    if (memchr(buf, '\0', len))
        return err_set(err, errlen, EINVAL, "%s: contains NUL bytes; not a text file", name);
    enum input_format f = o->format != INPUT_AUTO ? o->format : detect(buf, len);
    out->format = f;
    input_set_limit(o, out);
    switch (f) {
    case INPUT_PLAIN:
        return input_parse_plain(name, buf, len, o, out, err, errlen);
    case INPUT_NETAB:
    case INPUT_IPERF3:
        return input_parse_json(name, buf, len, o, out, err, errlen);
    case INPUT_IPERF2:
        return input_parse_iperf2(name, buf, len, o, out, err, errlen);
    case INPUT_AUTO:
        break;
    }
    return err_set(err, errlen, EINVAL, "%s: unknown input format", name);
}

/* The sentence for textfile_read()'s (or the plain stream's) failure rc on name. */
int input_read_error(const char *name, int rc, size_t nul_at, char *err, size_t errlen)
{
    if (rc == -EFBIG)
        return err_set(err, errlen, EFBIG, "%s is larger than %zu MiB, the most one input may hold",
                       name, TEXTFILE_MAX >> 20);
    if (rc == -EILSEQ)
        return err_set(err, errlen, EINVAL,
                       "%s is a binary file (a NUL byte at offset %zu), not numbers or JSON", name,
                       nul_at);
    return err_set(err, errlen, -rc, "cannot read %s: %s", name, strerror(-rc));
}

/*
 * Reads up to cap bytes of f into buf: fewer only at the end of the input.
 * Returns 0 with *got set, -EILSEQ with *got the offset of a NUL byte, or
 * -errno.
 */
static int read_head(FILE *f, char *buf, size_t cap, size_t *got)
{
    size_t n = 0;
    while (n < cap) {
        size_t k = fread(buf + n, 1, cap - n, f);
        if (!k) {
            if (ferror(f))
                return errno ? -errno : -EIO;
            break;
        }
        n += k;
    }
    *got = n;
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        *got = (size_t)(nul - buf);
        return -EILSEQ;
    }
    return 0;
}

/* True if buf[0..len-1] holds nothing but blanks: the format cannot be told from it. */
static bool all_blank(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr(" \t\r\n", buf[i]))
            return false;
    return true;
}

/*
 * Reads f into out: the first 64 KiB tell the format; plain numbers are
 * then parsed as they are read (input_stream_plain), any other format is
 * read whole first, with head as its beginning.
 */
static int read_stream(const char *name, FILE *f, const struct input_opts *o,
                       struct input_values *out, char *err, size_t errlen)
{
    size_t cap = (size_t)64 << 10, got = 0;
    char *head = malloc(cap + 1);
    if (!head)
        return err_set(err, errlen, ENOMEM, "%s: out of memory", name);
    int rc = read_head(f, head, cap, &got);
    if (rc) {
        free(head);
        return input_read_error(name, rc, got, err, errlen);
    }
    enum input_format fmt = o->format;
    bool more = got == cap;
    if (fmt == INPUT_AUTO && !(more && all_blank(head, got)))
        fmt = detect(head, got);
    if (fmt == INPUT_PLAIN) {
        out->format = INPUT_PLAIN;
        input_set_limit(o, out);
        return input_stream_plain(name, f, head, got, cap, TEXTFILE_MAX, o, out, err, errlen);
    }
    char *buf = head;
    size_t len = got;
    head[got] = '\0';
    if (more) {
        rc = textfile_read_after(f, TEXTFILE_MAX, head, got, &buf, &len);
        free(head);
        if (rc)
            return input_read_error(name, rc, len, err, errlen);
    }
    rc = input_parse_buffer(name, buf, len, o, out, err, errlen);
    free(buf);
    return rc;
}

int input_read_path(const char *path, const struct input_opts *o, struct input_values *out,
                    char *err, size_t errlen)
{
    int is_stdin = !strcmp(path, "-");
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    if (!f)
        return err_set(err, errlen, errno, "cannot open %s: %s", path, strerror(errno));
    int rc = read_stream(name, f, o, out, err, errlen);
    if (!is_stdin)
        fclose(f);
    return rc;
}

int input_read_set(const char *path, const char *name, const struct input_opts *o,
                   struct input_values *out, char *err, size_t errlen)
{
    int e = input_read_path(path, o, out, err, errlen);
    if (!e && out->n < 2)
        e = err_set(err, errlen, EINVAL, "%s: %s; at least two values are needed", name,
                    out->n ? "only one value" : "no values");
    if (e)
        input_values_free(out); /* a bad value mid-file leaves those before it */
    return e;
}
