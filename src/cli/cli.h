/* Subcommands of the netab command line; each returns the process exit code. */
#ifndef NETAB_CLI_CLI_H
#define NETAB_CLI_CLI_H

/* Exit codes shared by every subcommand. */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,  /* the test or comparison ran and failed / regressed */
    EXIT_USAGE = 2, /* bad command line or input */
};

int cli_run(int argc, char **argv);
int cli_server(int argc, char **argv);
int cli_stats(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_env(int argc, char **argv);
int cli_runs(int argc, char **argv);
int cli_experiment(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_layout(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_bisect(int argc, char **argv);
int cli_history(int argc, char **argv);

#endif
