/* Helpers shared by the subcommands' option parsers. */
#ifndef NETAB_CLI_COMMON_H
#define NETAB_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <signal.h>

#include "util/optmatch.h"
#include "util/optval.h"

/* Prints "netab CMD: <message>" and a hint to use --help; returns the usage exit code. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "netab CMD: <message>" on stderr; returns status (the exit code). */
int cli_fail(int status, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * After the options of a command that takes no operand: 0, or for the first
 * argument left at optind "netab CMD: unexpected argument 'X'" and the usage
 * exit code.
 */
int cli_no_operands(const char *cmd, int argc, char **argv);

/*
 * After the options of a command that stops at "--" (compare, bisect): the
 * words after it into *words and *n (left alone when there are none), or for
 * a stray argument "unexpected argument 'X' (options for every run go after
 * --)" and the usage exit code. Returns 0 or EXIT_USAGE.
 */
int cli_run_words(const char *cmd, int argc, char **argv, char ***words, size_t *n);

/*
 * Prints "metric names (--metric):" and the names of the figures of
 * metric/metric.h that have flag (METRIC_COMPARE, METRIC_REPORT), wrapped at
 * 78 columns: the end of a usage text.
 */
void cli_print_metric_names(unsigned flag);

/*
 * The ID operand of `netab CMD VERB ID`, a positive integer, into *id;
 * false after saying "netab CMD: VERB: which NOUN? (an ID from 'netab CMD
 * list')" when it is missing, or why it is not one.
 */
bool cli_parse_id(const char *cmd, const char *verb, const char *noun, const char *operand,
                  int64_t *id);

/*
 * Prints doc (taking it; NULL means out of memory) on standard output,
 * indented, reals with 17 significant digits (enough to read back the same
 * double), and a newline. Returns 0, or -EIO / -ENOMEM after saying
 * "netab CMD: ..." on stderr.
 */
int cli_json_print(const char *cmd, json_t *doc);

/* A progress bar on stderr, drawn only when stderr is a terminal (tty). */
struct cli_progress {
    bool tty, shown;
};

/*
 * When p->tty: the bar drawn over the line it is on, "[###...] DONE/TOTAL
 * ETA ETA  TAIL" (30 columns of '#' for what is done, empty for the rest),
 * flushed, and p->shown set; else nothing.
 */
void cli_progress_bar(struct cli_progress *p, size_t done, size_t total, char empty,
                      const char *eta, const char *tail);

/* Clears the bar cli_progress_bar() drew, if shown, so that a line can be printed. */
void cli_progress_clear(struct cli_progress *p);

/*
 * The process policy of a command: the signals it catches and the handlers
 * they had before. Library calls never install handlers; a command sends its
 * stop signals to the library's cancel call (campaign_cancel, bisect_cancel).
 */
#define CLI_SIGNALS_MAX 4
struct cli_signals {
    int sig[CLI_SIGNALS_MAX];
    struct sigaction old[CLI_SIGNALS_MAX];
};

/*
 * Sends each signal of sigs (0-terminated, at most CLI_SIGNALS_MAX) to
 * handler (or SIG_IGN), every time it comes, keeping the old handlers in s.
 */
void cli_signals_catch(struct cli_signals *s, void (*handler)(int), const int *sigs);

/* Puts back the handlers cli_signals_catch() replaced. */
void cli_signals_restore(const struct cli_signals *s);

#endif
