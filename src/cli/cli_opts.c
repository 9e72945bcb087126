#include "cli/cli_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "util/err.h"
#include "util/optval.h"

#define MAX_OPTS 64
#define HELP_COLUMN 23

/* Option codes above the letters, so a table entry is found from getopt's answer. */
#define CODE_BASE 256

static size_t count(const struct cli_opt *opts)
{
    size_t n = 0;
    while (opts[n].name)
        n++;
    return n;
}

/*
 * getopt_long's tables for opts: longs[] (with --help, ended by a zero
 * entry) and the short string ("+:h..." or ":h..."). Returns the number of
 * options, or -1 when the table is larger than MAX_OPTS.
 */
static int build(const struct cli_cmd *cmd, struct option *longs, char *shorts)
{
    size_t n = count(cmd->opts), k = 0;
    if (n + 1 >= MAX_OPTS)
        return -1;
    if (cmd->in_order || cmd->operand)
        shorts[k++] = cmd->operand ? '-' : '+';
    shorts[k++] = ':';
    shorts[k++] = 'h';
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cli_opt *o = &cmd->opts[i];
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
static const struct cli_opt *entry_of(const struct cli_cmd *cmd, int n, int c)
{
    if (c >= CODE_BASE && c < CODE_BASE + n)
        return &cmd->opts[c - CODE_BASE];
    for (int i = 0; c > 0 && c < CODE_BASE && i < n; i++)
        if (cmd->opts[i].letter == c)
            return &cmd->opts[i];
    return NULL;
}

int cli_opts_parse(const struct cli_cmd *cmd, int argc, char **argv, void *args)
{
    struct option longs[MAX_OPTS + 2];
    char shorts[2 * MAX_OPTS + 4];
    int n = build(cmd, longs, shorts);
    if (n < 0)
        return cli_usage_error(cmd->name, "too many options in the table (a bug)");
    opterr = 0;
    /*
     * 0, not 1: glibc then resets getopt completely; with 1 a parse that
     * stopped inside a cluster such as "-hR" leaves a pointer into the old
     * argv behind, which the next parse would read.
     */
    optind = 0;
    int c;
    while ((c = optmatch_next(argc, argv, shorts, longs)) != -1) {
        const struct cli_opt *o = entry_of(cmd, n, c);
        char err[NB_ERRLEN * 2];
        if (o) {
            if (o->set((char *)args + o->offset, o->arg ? optarg : NULL, o, err, sizeof(err)))
                return cli_usage_error(cmd->name, "%s", err);
        } else if (c == 1 && cmd->operand) {
            if (cmd->operand(args, optarg, NULL, err, sizeof(err)))
                return cli_usage_error(cmd->name, "%s", err);
        } else if (c == 'h') {
            cli_opts_help(cmd, stdout);
            return EXIT_OK;
        } else if (c == ':') {
            return cli_usage_error(cmd->name, "option '%s' needs a value", argv[optind - 1]);
        } else {
            return cli_unknown_option(cmd->name, argv, longs);
        }
    }
    return -1;
}

void cli_opts_help(const struct cli_cmd *cmd, FILE *out)
{
    fputs(cmd->usage, out);
    for (const struct cli_opt *o = cmd->opts; o->name; o++) {
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
    if (cmd->tail)
        fputs(cmd->tail, out);
    if (cmd->more_help)
        cmd->more_help();
}

int cli_set_string(void *field, const char *value, const struct cli_opt *o, char *err,
                   size_t errlen)
{
    (void)o;
    (void)err;
    (void)errlen;
    *(const char **)field = value;
    return 0;
}

int cli_set_true(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)o;
    (void)err;
    (void)errlen;
    *(bool *)field = true;
    return 0;
}

int cli_set_false(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    (void)value;
    (void)o;
    (void)err;
    (void)errlen;
    *(bool *)field = false;
    return 0;
}

int cli_set_seconds(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    char name[64];
    snprintf(name, sizeof(name), "--%s", o->name);
    return optval_seconds(name, value, o->lo, o->hi, field, err, errlen) ? 0 : -EINVAL;
}

int cli_set_nonempty(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    if (!*value)
        return err_set(err, errlen, EINVAL, "--%s: the value must not be empty", o->name);
    *(const char **)field = value;
    return 0;
}

/* value as a number in [o->lo, o->hi] (whole when whole). Returns 0 or -EINVAL with err. */
static int number(const char *value, const struct cli_opt *o, bool whole, double *out, char *err,
                  size_t errlen)
{
    char *e;
    errno = 0;
    double v = strtod(value, &e);
    if (e == value || *e || errno || !isfinite(v) || v < o->lo || v > o->hi ||
        (whole && v != floor(v)))
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not a %s between %g and %g", o->name,
                       value, whole ? "whole number" : "number", o->lo, o->hi);
    *out = v;
    return 0;
}

int cli_set_real(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, false, &v, err, errlen);
    if (!rc)
        *(double *)field = v;
    return rc;
}

int cli_set_unsigned(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    double v = 0;
    int rc = number(value, o, true, &v, err, errlen);
    if (!rc)
        *(unsigned *)field = (unsigned)v;
    return rc;
}

int cli_set_int(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    long v;
    char name[64];
    snprintf(name, sizeof(name), "--%s", o->name);
    if (!optval_int(name, value, (long)o->lo, (long)o->hi, &v, err, errlen))
        return -EINVAL;
    *(int *)field = (int)v;
    return 0;
}

int cli_set_pct(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, false, &v, err, errlen);
    if (!rc)
        *(double *)field = v / 100;
    return rc;
}

int cli_set_size(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, true, &v, err, errlen);
    if (!rc)
        *(size_t *)field = (size_t)v;
    return rc;
}

int cli_set_u64(void *field, const char *value, const struct cli_opt *o, char *err, size_t errlen)
{
    double v = 0;
    int rc = number(value, o, true, &v, err, errlen);
    if (!rc)
        *(uint64_t *)field = (uint64_t)v;
    return rc;
}
