#include "input/input_sets.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* True if s[0..len-1] is a NAME (see the header). */
static bool is_name(const char *s, size_t len)
{
    if (len == 0 || len > INPUT_SET_NAME_MAX || s[0] == '-')
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

static bool exists(const char *path)
{
    return !strcmp(path, "-") || access(path, F_OK) == 0;
}

int input_set_split(const char *arg, char *name, const char **path, char *err, size_t errlen)
{
    name[0] = '\0';
    *path = arg;
    const char *eq = strchr(arg, '=');
    if (!eq || memchr(arg, '/', (size_t)(eq - arg)))
        return 0;
    size_t nlen = (size_t)(eq - arg);
    /* NAME=FILE with a bad NAME would otherwise be "cannot open" a file of that whole name. */
    if (!is_name(arg, nlen))
        return exists(arg) ? 0
                           : err_set(err, errlen, EINVAL,
                                     "'%s': '%.*s' is not a set name (NAME=FILE: a NAME is 1 to "
                                     "%d of letters, digits, '_', '.' and '-', and does not "
                                     "start with '-'), nor is '%s' a file",
                                     arg, (int)nlen, arg, INPUT_SET_NAME_MAX, arg);
    const char *file = eq + 1;
    bool whole = exists(arg), part = *file && exists(file);
    if (whole && part)
        return err_set(err, errlen, EINVAL,
                       "'%s' is both a file and the set %.*s from the file %s; write ./%s for the "
                       "file or %.*s=./%s for the named set",
                       arg, (int)nlen, arg, file, arg, (int)nlen, arg, file);
    if (whole)
        return 0; /* a file whose name holds '=' */
    if (!*file)
        return err_set(err, errlen, EINVAL, "'%s' names the set %.*s but no file after '='", arg,
                       (int)nlen, arg);
    memcpy(name, arg, nlen);
    name[nlen] = '\0';
    *path = file;
    return 0;
}

void input_sets_column(struct input_sets *s, unsigned column)
{
    s->last_column = column;
    s->ncolumn_opts++;
    s->column_after_last_set = true;
}

void input_sets_add(struct input_sets *s, const char *arg)
{
    s->v[s->n++] = (struct input_set){.arg = arg, .column = s->last_column};
    s->column_after_last_set = false;
}

int input_sets_resolve(struct input_sets *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->n; i++)
        if (input_set_split(s->v[i].arg, s->v[i].name, &s->v[i].path, err, errlen))
            return -EINVAL;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; s->v[i].name[0] && j < s->n; j++) {
            const char *other = s->v[j].name[0] ? s->v[j].name : s->v[j].path;
            if (j != i && !strcmp(s->v[i].name, other))
                return err_set(err, errlen, EINVAL,
                               "two sets would be shown as '%s'; name them apart", s->v[i].name);
        }
    if (s->ncolumn_opts == 1)
        for (size_t i = 0; i < s->n; i++)
            s->v[i].column = s->last_column;
    if (s->ncolumn_opts > 1 && s->column_after_last_set)
        return err_set(err, errlen, EINVAL,
                       "--column %u follows the last file; with several --column options each "
                       "applies to the files after it",
                       s->last_column);
    return 0;
}

void input_sets_shown(const struct input_sets *s, size_t i, char *b, size_t n)
{
    const struct input_set *set = &s->v[i];
    const char *shown = set->name[0] ? set->name : strcmp(set->path, "-") ? set->path : "<stdin>";
    if (s->ncolumn_opts > 1 && !set->name[0])
        snprintf(b, n, "%s:%u", shown, set->column ? set->column : 1);
    else
        snprintf(b, n, "%s", shown);
}

int input_sets_read(const struct input_sets *s, size_t i, const struct input_opts *o,
                    const char *shown, size_t *total, struct input_values *out, char *err,
                    size_t errlen)
{
    struct input_opts io = *o;
    io.column = s->v[i].column;
    io.values_before = *total;
    int rc = input_read_set(s->v[i].path, shown, &io, out, err, errlen);
    if (!rc)
        *total += out->n;
    return rc;
}
