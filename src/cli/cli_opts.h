/*
 * Option parsers as tables: each subcommand describes its options once
 * (name, value, help, setter) and cli_opts_parse() runs getopt_long over
 * the table with exact names only and "did you mean" hints
 * (util/optmatch.h); cli_opts_help() prints the help from the same table,
 * so the parser and its help cannot disagree.
 */
#ifndef NETAB_CLI_CLI_OPTS_H
#define NETAB_CLI_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cli_opt;

/*
 * Stores value (NULL for an option without one) into field, the member
 * of the command's argument struct that the option's offset names.
 * Returns 0, or -EINVAL with the reason in err (printed as "netab CMD:
 * REASON"); o is the option, for its name in messages.
 */
typedef int cli_opt_set(void *field, const char *value, const struct cli_opt *o, char *err,
                        size_t errlen);

struct cli_opt {
    /*
     * The long name, without "--"; NULL ends a table; "" with a letter: a
     * short option only (-4); "" without: a heading, its help printed as is.
     */
    const char *name;
    char letter; /* the short option, or 0 */
    /* The value's name in the help ("PATH"); NULL: none; "[PORT]": optional (--name=PORT). */
    const char *arg;
    const char *help; /* each "\n" starts a continuation line */
    cli_opt_set *set;
    size_t offset; /* of the field set() writes, in the command's argument struct */
    double lo, hi; /* the numeric setters' range */
};

struct cli_cmd {
    const char *name;           /* "runs": in "netab runs: ..." and the --help pointer */
    const char *usage;          /* the help before the options (ends with "options:\n") */
    const char *tail;           /* the help after them, or NULL */
    const struct cli_opt *opts; /* ended by an entry without a name */
    /* Stop at the first operand ('+' of getopt): the rest belongs to someone else. */
    bool in_order;
    void (*more_help)(void); /* printed after the help (the metric names), or NULL */
    /*
     * Operands in their place among the options ('-' of getopt), given to
     * this setter (field: the whole argument struct, o: NULL); NULL: left
     * for the command from optind on.
     */
    cli_opt_set *operand;
};

/*
 * Parses argv[1..argc-1] by cmd's table into args, each option's setter
 * called in the order given; -h and --help print the help. Returns -1 to
 * go on (operands from optind), EXIT_OK after the help, or EXIT_USAGE after
 * saying what is wrong: an unknown option (with a hint), a missing or
 * refused value.
 */
int cli_opts_parse(const struct cli_cmd *cmd, int argc, char **argv, void *args);

/* Prints cmd's help on out: usage, one line per option (help at column 23), tail. */
void cli_opts_help(const struct cli_cmd *cmd, FILE *out);

/* Setters for the common kinds of field: a string (const char *), a flag set true (bool). */
cli_opt_set cli_set_string;
cli_opt_set cli_set_true;
cli_opt_set cli_set_false;
/* A duration in seconds (util/optval.h: "2.5", "500ms", "1m") in [lo, hi], into a double. */
cli_opt_set cli_set_seconds;
/* A string that must not be empty. */
cli_opt_set cli_set_nonempty;
/*
 * Numbers in [lo, hi], else "--NAME: 'V' is not a (whole) number between
 * LO and HI": a number (double), a percentage stored as a fraction
 * (double), a whole number (unsigned, size_t, uint64_t).
 */
cli_opt_set cli_set_real;
cli_opt_set cli_set_pct;
cli_opt_set cli_set_unsigned;
cli_opt_set cli_set_int;
cli_opt_set cli_set_size;
cli_opt_set cli_set_u64;

#endif
