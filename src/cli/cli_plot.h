/*
 * The figure options every subcommand that draws shares: --plot PATH (the
 * format follows the extension), --plot-width, --plot-height, --plot-log,
 * --plot-axis.
 */
#ifndef NETAB_CLI_CLI_PLOT_H
#define NETAB_CLI_CLI_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "plot/plot.h"
#include "util/opttable.h"

/*
 * The options as rows of an option table (util/opttable.h), for a struct
 * cli_plot member fig of the command's argument struct type.
 */
// clang-format off
#define CLI_PLOT_SIZE_OPTS(type, fig)                                                          \
    {"plot-width", 0, "N", "the figure's width, pixels (PNG) or points (default 800)",         \
     cli_plot_set_size, offsetof(type, fig.width), PLOT_MIN_SIZE, PLOT_MAX_SIZE, NULL},        \
    {"plot-height", 0, "N", "the figure's height (default depends on the figure)",             \
     cli_plot_set_size, offsetof(type, fig.height), PLOT_MIN_SIZE, PLOT_MAX_SIZE, NULL}
#define CLI_PLOT_OPTS(type, fig, what, figure)                                                 \
    {"plot", 0, what, figure "; .png, .svg or .pdf by extension", opt_set_nonempty,            \
     offsetof(type, fig.path), 0, 0, NULL},                                                    \
    CLI_PLOT_SIZE_OPTS(type, fig),                                                             \
    {"plot-log", 0, NULL, "a log value axis", opt_set_true, offsetof(type, fig.log), 0, 0, NULL}, \
    {"plot-axis", 0, "TEXT", "the value axis' label with its unit, e.g. 'throughput (Mbit/s)'",\
     opt_set_string, offsetof(type, fig.axis), 0, 0, NULL}
// clang-format on

/* A figure's size: a whole number in [o->lo, o->hi] into a double. */
opt_setter cli_plot_set_size;

struct cli_plot {
    const char *path;     /* NULL: no figure */
    double width, height; /* 0: the figure's default */
    bool log;
    const char *axis; /* --plot-axis, or NULL for the command's default */
};

/* 0, or -EINVAL with "--plot PATH: why" in err when path (if any) names no format netab draws. */
int cli_plot_format(const char *path, char *err, size_t errlen);

/* cli_plot_format() of p->path, its message a usage error of cmd. Returns 0 or EXIT_USAGE. */
int cli_plot_check(const char *cmd, const struct cli_plot *p);

#endif
