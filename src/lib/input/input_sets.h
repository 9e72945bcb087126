/*
 * The sets of `netab stats`: an argument is FILE, or NAME=FILE to show the
 * set as NAME in the text, JSON, CSV and figures instead of the file name;
 * each set is read from its file's column (--column).
 */
#ifndef NETAB_INPUT_INPUT_SETS_H
#define NETAB_INPUT_INPUT_SETS_H

#include <stdbool.h>
#include <stddef.h>

#include "input/input.h"
#include "util/err.h"

/* A NAME is 1 to 64 of [A-Za-z0-9_.-] and does not start with '-'. */
#define INPUT_SET_NAME_MAX 64

/*
 * Splits arg into the name to show (name[0] == '\0': none, show the file)
 * and the file to read (*path, pointing into arg). arg is NAME=FILE when
 * the text before its first '=' is a NAME; a path with a '/' before its
 * '=' (./a=b, dir/x=1) never is. Where both readings name a file that
 * exists (a file "a=b" and a file "b"), arg is refused as ambiguous, with
 * the two ways to say either; where only the whole argument exists, it is
 * that file. Text before the '=' (and no '/') that is not a NAME is
 * refused, naming it and the rule, unless the whole argument is a file. FILE "-" is standard input.
 * name holds INPUT_SET_NAME_MAX + 1 bytes. Returns 0 or -EINVAL with a sentence in err.
 */
NB_MUST_CHECK int input_set_split(const char *arg, char *name, const char **path, char *err,
                                  size_t errlen);

/* One set: the argument as given, the --column in force before it, and what split made of it. */
struct input_set {
    const char *arg;
    unsigned column; /* 0: none given (the first column) */
    const char *path;
    char name[INPUT_SET_NAME_MAX + 1]; /* "": show the file */
};

/* The sets of one command line, in order, and how its --column options stood. */
struct input_sets {
    struct input_set *v; /* room for every argument, filled by input_sets_add() */
    size_t n;
    unsigned ncolumn_opts; /* how many --column options were given */
    unsigned last_column;  /* the latest --column's value */
    bool column_after_last_set;
};

/* A --column N: in force for the sets after it. */
void input_sets_column(struct input_sets *s, unsigned column);

/* A FILE or NAME=FILE argument, with the --column in force before it. */
void input_sets_add(struct input_sets *s, const char *arg);

/*
 * Completes the sets once every argument was added: one --column applies to
 * every set wherever it stood; several apply each to the sets after it, and
 * one after the last set would apply to nothing, which is refused rather
 * than silently ignored. Splits every NAME=FILE (input_set_split()) and
 * refuses a NAME that another set also shows: the report would compare "a"
 * with "a". Returns 0 or -EINVAL with a sentence in err.
 */
NB_MUST_CHECK int input_sets_resolve(struct input_sets *s, char *err, size_t errlen);

/*
 * The name set i is shown under, at most n bytes to b: its NAME, else its
 * file ("<stdin>" for "-"); with several --column options and no NAME,
 * "FILE:COLUMN", since the same file under two columns would otherwise be
 * shown as f against f.
 */
void input_sets_shown(const struct input_sets *s, size_t i, char *b, size_t n);

/*
 * Reads set i (input_read_set() with the set's column) into out, shown as
 * shown; *total counts the values of every set read so far, against the
 * cap of all inputs together, and grows by the values read. Returns 0 or a
 * negative errno with a sentence in err.
 */
NB_MUST_CHECK int input_sets_read(const struct input_sets *s, size_t i, const struct input_opts *o,
                                  const char *shown, size_t *total, struct input_values *out,
                                  char *err, size_t errlen);

#endif
