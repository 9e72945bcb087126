/* netab entry point: picks the subcommand and hands over to cli_<cmd>(). */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "plot/plot.h"
#include "util/optmatch.h"

struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    {"run", cli_run, "run a network test (loopback by default, -c HOST for a server)"},
    {"server", cli_server, "serve tests for remote netab clients"},
    {"experiment", cli_experiment,
     "validate, run, resume and follow campaigns described by experiment files"},
    {"stats", cli_stats, "describe and compare sets of numbers (first file is the baseline)"},
    {"compare", cli_compare, "run variants interleaved and judge them (first is the baseline)"},
    {"env", cli_env, "show the host facts and warnings that affect benchmark results"},
    {"runs", cli_runs, "list, show, export and import runs in the results store"},
    {"import", cli_import, "record iperf3 -J and iperf2 results in the store as a variant's runs"},
    {"report", cli_report, "an experiment's matrix report: variants against the baseline"},
    {"layout", cli_layout, "compare the code layout of two builds (ELF files or System.map)"},
    {"bisect", cli_bisect, "find the commit that changed a measurement (statistical git bisect)"},
    {"history", cli_history, "a metric across stored experiments and its change points"},
    {"store", cli_store, "copy experiments between results stores (SQLite, PostgreSQL)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: netab <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        fprintf(f, "  %-11s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(f, "\n'netab <command> --help' describes each command; 'man netab' has the "
               "whole manual.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("netab %s\n", NETAB_VERSION);
        return EXIT_OK;
    }
    /* GSL reports its errors through return values in every command, never aborts netab. */
    gsl_set_error_handler_off();
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        if (!strcmp(cmd, subcommands[i].name)) {
            int rc = subcommands[i].fn(argc - 1, argv + 1);
            plot_shutdown();
            return rc;
        }
    /* A typo gets a pointer to the command meant, not the whole usage. */
    const char *names[sizeof(subcommands) / sizeof(subcommands[0])];
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        names[i] = subcommands[i].name;
    char hint[128];
    fprintf(stderr, "netab: unknown command '%s'%s\n(see 'netab --help')\n", cmd,
            optmatch_closest(cmd, names, sizeof(names) / sizeof(names[0]), hint, sizeof(hint)));
    return EXIT_USAGE;
}
