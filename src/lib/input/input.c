#include "input/input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"
#include "util/textfile.h"

static const char *const format_names[] = {"auto", "plain", "netab", "iperf3", "iperf2"};

int input_parse_format(const char *s, enum input_format *out)
{
    for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
        if (!strcmp(s, format_names[i])) {
            *out = (enum input_format)i;
            return 0;
        }
    return -EINVAL;
}

const char *input_format_name(enum input_format f)
{
    return (unsigned)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f] : "?";
}

int input_push(struct input_values *out, double v)
{
    if (out->n == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 1024;
        double *p = realloc(out->v, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        out->v = p;
        out->cap = cap;
    }
    out->v[out->n++] = v;
    return 0;
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

int input_read_path(const char *path, const struct input_opts *o, struct input_values *out,
                    char *err, size_t errlen)
{
    int is_stdin = !strcmp(path, "-");
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    if (!f)
        return err_set(err, errlen, errno, "cannot open %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0;
    int rc = textfile_read(f, TEXTFILE_MAX, &buf, &len);
    if (!is_stdin)
        fclose(f);
    if (rc == -EFBIG)
        return err_set(err, errlen, rc, "%s is larger than %zu MiB, the most one input may hold",
                       name, TEXTFILE_MAX >> 20);
    if (rc == -EILSEQ)
        return err_set(err, errlen, EINVAL,
                       "%s is a binary file (a NUL byte at offset %zu), not numbers or JSON", name,
                       len);
    if (rc)
        return err_set(err, errlen, rc, "cannot read %s: %s", name, strerror(-rc));
    rc = input_parse_buffer(name, buf, len, o, out, err, errlen);
    free(buf);
    return rc;
}
