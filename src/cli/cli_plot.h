/*
 * The figure options every subcommand that draws shares: --plot PATH (the
 * format follows the extension), --plot-width, --plot-height, --plot-log.
 */
#ifndef NETAB_CLI_CLI_PLOT_H
#define NETAB_CLI_CLI_PLOT_H

#include <getopt.h>
#include <stdbool.h>

/* Option codes; each subcommand keeps its own below CLI_PLOT_OPT_PLOT. */
enum {
    CLI_PLOT_OPT_PLOT = 1000,
    CLI_PLOT_OPT_WIDTH,
    CLI_PLOT_OPT_HEIGHT,
    CLI_PLOT_OPT_LOG,
    CLI_PLOT_OPT_AXIS,
};

/* The entries for a getopt_long table, spliced in with CLI_PLOT_LONG_OPTS. */
// clang-format off
#define CLI_PLOT_LONG_OPTS                                      \
    {"plot", required_argument, NULL, CLI_PLOT_OPT_PLOT},       \
    {"plot-width", required_argument, NULL, CLI_PLOT_OPT_WIDTH},  \
    {"plot-height", required_argument, NULL, CLI_PLOT_OPT_HEIGHT}, \
    {"plot-log", no_argument, NULL, CLI_PLOT_OPT_LOG},          \
    {"plot-axis", required_argument, NULL, CLI_PLOT_OPT_AXIS}
// clang-format on

/* The usage lines that describe them (what = "FILE" or "DIR"). */
#define CLI_PLOT_USAGE(what, figure)                                                               \
    "  --plot " what "          " figure "; .png, .svg or .pdf by extension\n"                     \
    "  --plot-width N       the figure's width, pixels (PNG) or points (default 800)\n"            \
    "  --plot-height N      the figure's height (default depends on the figure)\n"                 \
    "  --plot-log           a log value axis\n"                                                    \
    "  --plot-axis TEXT     the value axis' label with its unit, e.g. 'throughput (Mbit/s)'\n"

struct cli_plot {
    const char *path;     /* NULL: no figure */
    double width, height; /* 0: the figure's default */
    bool log;
    const char *axis; /* --plot-axis, or NULL for the command's default */
};

/*
 * Handles option c (one of the CLI_PLOT_OPT_* codes) of subcommand cmd.
 * Returns -1 when c is not a plot option, 0 when handled, EXIT_USAGE after
 * printing why the value is bad.
 */
int cli_plot_option(const char *cmd, int c, const char *arg, struct cli_plot *p);

/* Checks that p->path (if any) names a format netab draws. Returns 0 or EXIT_USAGE. */
int cli_plot_check(const char *cmd, const struct cli_plot *p);

#endif
