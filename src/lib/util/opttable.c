#include "util/opttable.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"
#include "util/names.h"
#include "util/optmatch.h"
#include "util/optval.h"

/* The table, --help and the end of getopt's long options. */
#define MAX_OPTS (OPT_TABLE_MAX + 2)
#define HELP_COLUMN 23

/* Option codes above the letters, so a table entry is found from getopt's answer. */
#define CODE_BASE 256

static size_t count(const struct opt *opts)
{
    size_t n = 0;
    while (opts[n].name)
        n++;
    return n;
}

/*
 * getopt_long's tables for opts: longs[] (with --help, ended by a zero
 * entry) and the short string ("+:h..." or ":h..."). Returns the number of
 * options, or -1 when the table has more than OPT_TABLE_MAX.
 */
static int build(const struct opt_table *t, struct option *longs, char *shorts)
{
    size_t n = count(t->opts), k = 0;
    if (n > OPT_TABLE_MAX)
        return -1;
    if (t->in_order || t->operand)
        shorts[k++] = t->operand ? '-' : '+';
    shorts[k++] = ':';
    shorts[k++] = 'h';
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = &t->opts[i];
        int has = !o->arg ? no_argument : o->arg[0] == '[' ? optional_argument : required_argument;
        if (*o->name) /* else a heading or a short option only */
            longs[m++] = (struct option){o->name, has, NULL, CODE_BASE + (int)i};
        if (o->letter) {
            shorts[k++] = o->letter;
            if (has != no_argument)
                shorts[k++] = ':';
            if (has == optional_argument)
                shorts[k++] = ':';
        }
    }
    shorts[k] = '\0';
    longs[m] = (struct option){"help", no_argument, NULL, 'h'};
    longs[m + 1] = (struct option){NULL, 0, NULL, 0};
    return (int)n;
}

/* The table entry of getopt's answer c, or NULL. */
static const struct opt *entry_of(const struct opt_table *t, int n, int c)
{
    if (c >= CODE_BASE && c < CODE_BASE + n)
        return &t->opts[c - CODE_BASE];
    for (int i = 0; c > 0 && c < CODE_BASE && i < n; i++)
        if (t->opts[i].letter == c)
            return &t->opts[i];
    return NULL;
}

/*
 * The message for optmatch_next()'s ':' (a missing value) or '?' (an unknown
 * option, named as typed, with a hint from longs).
 */
static enum opt_parsed refuse(int c, char *const *argv, const struct option *longs, char *err,
                              size_t errlen)
{
    char hint[256];
    const char *arg = argv[optind - 1];
    if (c == ':')
        snprintf(err, errlen, "option '%s' needs a value", arg);
    else if (optopt)
        snprintf(err, errlen, "unknown option '-%c'", optopt);
    else
        snprintf(err, errlen, "unknown option '%s'%s", arg,
                 optmatch_hint(arg, longs, hint, sizeof(hint)));
    return OPT_ERROR;
}

enum opt_parsed opt_table_parse(const struct opt_table *t, int argc, char *const *argv, void *args,
                                char *err, size_t errlen)
{
    struct option longs[MAX_OPTS + 2];
    char shorts[3 * MAX_OPTS + 4]; /* "+:h" and up to 3 bytes a letter ("x::"), NUL */
    int n = build(t, longs, shorts);
    if (n < 0) {
        snprintf(err, errlen, "too many options in the table (a bug)");
        return OPT_ERROR;
    }
    struct opt_given *given = t->given ? (void *)((char *)args + t->given - 1) : NULL;
    if (given)
        memset(given, 0, sizeof(*given));
    opterr = 0;
    /*
     * 0, not 1: glibc then resets getopt completely; with 1 a parse that
     * stopped inside a cluster such as "-hR" leaves a pointer into the old
     * argv behind, which the next parse would read.
     */
    optind = 0;
    int c;
    while ((c = optmatch_next(argc, argv, shorts, longs)) != -1) {
        const struct opt *o = entry_of(t, n, c);
        /* A setter's own buffer, as large as before the table moved here: the same messages. */
        char why[NB_ERRLEN * 2];
        int rc = 0;
        if (o)
            rc = o->set((char *)args + o->offset, o->arg ? optarg : NULL, o, why, sizeof(why));
        else if (c == 1 && t->operand)
            rc = t->operand(args, optarg, NULL, why, sizeof(why));
        else if (c == 'h')
            return OPT_HELP;
        else
            return refuse(c, argv, longs, err, errlen);
        if (rc) {
            snprintf(err, errlen, "%s", why);
            return OPT_ERROR;
        }
        if (o && given)
            given->row[o - t->opts] = true;
    }
    return OPT_GO_ON;
}

bool opt_given(const struct opt_table *t, const void *args, const char *name)
{
    if (!t->given)
        return false;
    const struct opt_given *given = (const void *)((const char *)args + t->given - 1);
    for (size_t i = 0; t->opts[i].name; i++)
        if (!strcmp(t->opts[i].name, name))
            return i < OPT_TABLE_MAX && given->row[i];
    return false;
}

void opt_table_help(const struct opt_table *t, FILE *out)
{
    fputs(t->usage, out);
    for (const struct opt *o = t->opts; o->name; o++) {
        if (!*o->name && !o->letter) {
            fprintf(out, "%s\n", o->help);
            continue;
        }
        char head[96];
        int w = !*o->name   ? snprintf(head, sizeof(head), "  -%c", o->letter)
                : o->letter ? snprintf(head, sizeof(head), "  -%c, --%s", o->letter, o->name)
                            : snprintf(head, sizeof(head), "  --%s", o->name);
        /* An optional value is written --name[=VALUE]: only that form gives it one. */
        if (o->arg && w > 0 && (size_t)w < sizeof(head))
            w += o->arg[0] == '[' ? snprintf(head + w, sizeof(head) - (size_t)w, "[=%s", o->arg + 1)
                                  : snprintf(head + w, sizeof(head) - (size_t)w, " %s", o->arg);
        fputs(head, out);
        const char *h = o->help;
        if (w + 1 > HELP_COLUMN)
            fprintf(out, "\n%*s", HELP_COLUMN, "");
        else
            fprintf(out, "%*s", HELP_COLUMN - w, "");
        for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
            fprintf(out, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
        fprintf(out, "%s\n", h);
    }
    fputs("  -h, --help           this text\n", out);
    if (t->tail)
        fputs(t->tail, out);
    if (t->more_help)
        t->more_help();
}

int opt_set_string(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    (void)err;
    (void)errlen;
    *(const char **)field = value;
    return 0;
}

int opt_set_true(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)o;
    (void)err;
    (void)errlen;
    *(bool *)field = true;
    return 0;
}

int opt_set_false(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)o;
    (void)err;
    (void)errlen;
    *(bool *)field = false;
    return 0;
}

int opt_set_const(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)err;
    (void)errlen;
    *(int *)field = (int)o->lo;
    return 0;
}

int opt_set_seconds(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    char name[64];
    snprintf(name, sizeof(name), "--%s", o->name);
    return optval_seconds(name, value, o->lo, o->hi, field, err, errlen) ? 0 : -EINVAL;
}

int opt_set_nonempty(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    if (!*value)
        return err_set(err, errlen, EINVAL, "--%s: the value must not be empty", o->name);
    *(const char **)field = value;
    return 0;
}

/* value as a name (cell: a cell's name) into a const char * field, or -EINVAL with the rule. */
static int set_name(void *field, const char *value, const struct opt *o, bool cell, char *err,
                    size_t errlen)
{
    char what[80];
    snprintf(what, sizeof(what), "--%s", o->name);
    int e = name_check(what, value, cell, err, errlen);
    if (!e)
        *(const char **)field = value;
    return e;
}

int opt_set_name(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    return set_name(field, value, o, false, err, errlen);
}

int opt_set_cell_name(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    return set_name(field, value, o, true, err, errlen);
}

int opt_set_string_once(void *field, const char *value, const struct opt *o, char *err,
                        size_t errlen)
{
    if (*(const char **)field)
        return err_set(err, errlen, EINVAL, "--%s given twice", o->name);
    *(const char **)field = value;
    return 0;
}

/* value as a number in [o->lo, o->hi] (whole when whole). Returns 0 or -EINVAL with err. */
static int number(const char *value, const struct opt *o, bool whole, double *out, char *err,
                  size_t errlen)
{
    char *e;
    errno = 0;
    double v = strtod(value, &e);
    if (e == value || *e || errno || !isfinite(v) || v < o->lo || v > o->hi ||
        (whole && v != floor(v)))
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not a %s between %.15g and %.15g",
                       o->name, value, whole ? "whole number" : "number", o->lo, o->hi);
    *out = v;
    return 0;
}

int opt_set_real(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, false, &v, err, errlen);
    if (!rc)
        *(double *)field = v;
    return rc;
}

int opt_set_unsigned(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, true, &v, err, errlen);
    if (!rc)
        *(unsigned *)field = (unsigned)v;
    return rc;
}

/* value as optval_int() reads it, in [o->lo, o->hi] (an hi from 2^63 on: LONG_MAX). */
static int whole(const char *value, const struct opt *o, long *v, char *err, size_t errlen)
{
    char name[64];
    snprintf(name, sizeof(name), "--%s", o->name);
    long hi = o->hi >= 0x1p63 ? LONG_MAX : (long)o->hi;
    return optval_int(name, value, (long)o->lo, hi, v, err, errlen) ? 0 : -EINVAL;
}

int opt_set_int(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long v;
    int rc = whole(value, o, &v, err, errlen);
    if (!rc)
        *(int *)field = (int)v;
    return rc;
}

int opt_set_long(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    return whole(value, o, field, err, errlen);
}

int opt_set_pct(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, false, &v, err, errlen);
    if (!rc)
        *(double *)field = v / 100;
    return rc;
}

int opt_set_size(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, true, &v, err, errlen);
    if (!rc)
        *(size_t *)field = (size_t)v;
    return rc;
}

int opt_set_u64(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    /* strtoull, not strtod: a seed above 2^53 is kept exactly. */
    char *e;
    errno = 0;
    unsigned long long v = strtoull(value, &e, 10);
    if (e == value || *e || errno || !isdigit((unsigned char)*value))
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not a whole number", o->name, value);
    if (o->hi > 0 && ((double)v < o->lo || (double)v > o->hi))
        return err_set(err, errlen, EINVAL,
                       "--%s: '%s' is not a whole number between %.15g and %.15g", o->name, value,
                       o->lo, o->hi);
    *(uint64_t *)field = v;
    return 0;
}

/*
 * The entry of o->choices whose word is value; else NULL, with "--NAME: 'V'
 * is not [one of ]A, B, C" (", " throughout with one_of, else " or " before
 * the last) in err.
 */
static const struct opt_choice *choice(const char *value, const struct opt *o, bool one_of,
                                       char *err, size_t errlen)
{
    const struct opt_choice *c = o->choices;
    for (; c->word; c++)
        if (!strcmp(value, c->word))
            return c;
    char words[NB_ERRLEN] = "";
    size_t k = 0;
    for (c = o->choices; c->word && k < sizeof(words); c++) {
        const char *sep = c == o->choices ? "" : one_of || c[1].word ? ", " : " or ";
        k += (size_t)snprintf(words + k, sizeof(words) - k, "%s%s", sep, c->word);
    }
    err_set(err, errlen, EINVAL, "--%s: '%s' is not %s%s", o->name, value, one_of ? "one of " : "",
            words);
    return NULL;
}

int opt_set_choice(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    const struct opt_choice *c = choice(value, o, false, err, errlen);
    if (!c)
        return -EINVAL;
    *(int *)field = c->value;
    return 0;
}

int opt_set_one_of(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    const struct opt_choice *c = choice(value, o, true, err, errlen);
    if (!c)
        return -EINVAL;
    *(int *)field = c->value;
    return 0;
}

int opt_set_word(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    const struct opt_choice *c = choice(value, o, false, err, errlen);
    if (!c)
        return -EINVAL;
    *(const char **)field = c->word;
    return 0;
}
