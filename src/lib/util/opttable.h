/*
 * Option parsers as tables: a command describes its options once (name,
 * value, help, setter) and opt_table_parse() runs getopt_long over the
 * table with exact names only and "did you mean" hints (util/optmatch.h);
 * opt_table_help() prints the help from the same table, so the parser and
 * its help cannot disagree. The parser prints nothing: it says what is
 * wrong in the caller's buffer, and its caller decides what that means for
 * the process.
 */
#ifndef NETAB_UTIL_OPTTABLE_H
#define NETAB_UTIL_OPTTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct opt;

/*
 * Stores value (NULL for an option without one) into field, the member
 * of the command's argument struct that the option's offset names.
 * Returns 0, or -EINVAL with the reason in err; o is the option, for its
 * name in messages.
 */
typedef int opt_setter(void *field, const char *value, const struct opt *o, char *err,
                       size_t errlen);

/* One word an option's value may be, and the value it stands for. */
struct opt_choice {
    const char *word; /* NULL ends a list */
    int value;
};

/*
 * A choice list in a table entry, OPT_CHOICES({"run", 1}, {"unknown", 2}):
 * a compound literal, so it lives as long as the program only in a table
 * at file scope.
 */
#define OPT_CHOICES(...) ((const struct opt_choice[]){__VA_ARGS__, {NULL, 0}})

struct opt {
    /*
     * The long name, without "--"; NULL ends a table; "" with a letter: a
     * short option only (-4); "" without: a heading, its help printed as is.
     */
    const char *name;
    char letter; /* the short option, or 0 */
    /* The value's name in the help ("PATH"); NULL: none; "[PORT]": optional (--name=PORT). */
    const char *arg;
    const char *help; /* each "\n" starts a continuation line */
    opt_setter *set;
    size_t offset; /* of the field set() writes, in the command's argument struct */
    double lo, hi; /* the numeric setters' range */
    const struct opt_choice *choices; /* the words of opt_set_choice and friends, or NULL */
};

/* The most options a table may have (-h and --help aside). */
#define OPT_TABLE_MAX 80

/*
 * Which rows of a table a parse met: for an option whose being given
 * matters beyond its value (--seed: else a random seed; --max-runs: else one
 * derived from --runs), so that its setter need not record it. A member of
 * the command's argument struct, named by the table's given; asked with
 * opt_given().
 */
struct opt_given {
    bool row[OPT_TABLE_MAX];
};

/* The table's given: the struct opt_given member of the argument struct type. */
#define OPT_GIVEN_AT(type, member) (offsetof(type, member) + 1)

struct opt_table {
    const char *name;       /* the command ("runs", "store copy"), for its caller's messages */
    const char *usage;      /* the help before the options (ends with "options:\n") */
    const char *tail;       /* the help after them, or NULL */
    const struct opt *opts; /* ended by an entry without a name */
    /* Stop at the first operand ('+' of getopt): the rest belongs to someone else. */
    bool in_order;
    void (*more_help)(void); /* printed after the help (the metric names), or NULL */
    /*
     * Operands in their place among the options ('-' of getopt), given to
     * this setter (field: the whole argument struct, o: NULL); NULL: left
     * for the command from optind on.
     */
    opt_setter *operand;
    /* OPT_GIVEN_AT(): where the parse records which options it met; 0: nowhere. */
    size_t given;
};

/* What opt_table_parse() found. */
enum opt_parsed {
    OPT_GO_ON, /* every option set: the operands follow from optind */
    OPT_HELP,  /* -h or --help: the caller prints opt_table_help() */
    OPT_ERROR, /* err says what is wrong */
};

/*
 * Parses argv[1..argc-1] by t's table into args, each option's setter
 * called in the order given (and recorded in t's given, when it has one),
 * until -h or --help or the first error: an
 * unknown option ("unknown option '--jsn'; did you mean '--json'?"), a
 * missing value ("option '--db' needs a value") or a setter's refusal
 * (its message as it wrote it).
 */
enum opt_parsed opt_table_parse(const struct opt_table *t, int argc, char *const *argv, void *args,
                                char *err, size_t errlen);

/*
 * Whether the last opt_table_parse() by t into args met the option whose
 * long name is name (given by either of its names): false too when t records
 * nothing (no given) or has no such option.
 */
bool opt_given(const struct opt_table *t, const void *args, const char *name);

/*
 * Prints t's help on out: usage, one line per option (help at column 23),
 * -h, tail, then more_help().
 */
void opt_table_help(const struct opt_table *t, FILE *out);

/* Setters for the common kinds of field: a string (const char *), a flag set true (bool). */
opt_setter opt_set_string;
opt_setter opt_set_true;
opt_setter opt_set_false;
/* An option without a value that stands for the row's lo, into an int (-4: AF_INET). */
opt_setter opt_set_const;
/* A duration in seconds (util/optval.h: "2.5", "500ms", "1m") in [lo, hi], into a double. */
opt_setter opt_set_seconds;
/* A string that must not be empty. */
opt_setter opt_set_nonempty;
/*
 * A name by the experiment file's rules (util/names: letters, digits, '.',
 * '_', '-'), or, opt_set_cell_name, a matrix cell's name (also '=' and ',');
 * anything else is refused with the rule.
 */
opt_setter opt_set_name;
opt_setter opt_set_cell_name;
/* A string given at most once (the field starts NULL), else "--NAME given twice". */
opt_setter opt_set_string_once;
/*
 * Numbers in [lo, hi], else "--NAME: 'V' is not a (whole) number between
 * LO and HI": a number (double), a percentage stored as a fraction
 * (double), a whole number (unsigned, int, size_t). opt_set_int and
 * opt_set_long (a long; hi from 2^63 on: up to LONG_MAX) say what
 * util/optval.h's optval_int() says. opt_set_u64: decimal digits
 * only, exact up to UINT64_MAX (seeds), into a uint64_t; hi 0: no bounds;
 * what is not such a number: "--NAME: 'V' is not a whole number".
 */
opt_setter opt_set_real;
opt_setter opt_set_pct;
opt_setter opt_set_unsigned;
opt_setter opt_set_int;
opt_setter opt_set_long;
opt_setter opt_set_size;
opt_setter opt_set_u64;
/*
 * A word of o->choices: opt_set_choice and opt_set_one_of store its value
 * (an int or an enum), opt_set_word the word itself (const char *). Any
 * other word: "--NAME: 'V' is not A, B or C" (opt_set_choice, opt_set_word)
 * or "--NAME: 'V' is not one of A, B, C" (opt_set_one_of).
 */
opt_setter opt_set_choice;
opt_setter opt_set_one_of;
opt_setter opt_set_word;

#endif
