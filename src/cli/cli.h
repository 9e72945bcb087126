/* Subcommands of the netab command line; each returns the process exit code. */
#ifndef NETAB_CLI_CLI_H
#define NETAB_CLI_CLI_H

/*
 * The one table of exit statuses, for every subcommand (netab(1), EXIT
 * STATUS, says the same). The rule: 1 is an answer, 2 is "not done", so a
 * script can tell "the change regressed" from "the store was unreadable".
 *
 *   0   EXIT_OK      done; for a verdict (compare, report, stats
 *                    --fail-on-regression): nothing regressed
 *   1   EXIT_FAIL    done, and the answer is no: the test failed (run; a
 *                    server's --one-off test), a variant regressed (compare,
 *                    report, stats --fail-on-regression), planned runs failed
 *                    (experiment run, resume; also a campaign stopped by a
 *                    DUT or store that did not come back: resume continues)
 *   2   EXIT_ERROR   not done: a bad command line; an input (file, store,
 *                    experiment, run) missing, unreadable or invalid; an
 *                    output (file, store, plot, standard output) that cannot
 *                    be written; a resource busy or exhausted (the store's
 *                    campaign lock, the port, memory); compare interrupted;
 *                    compare or report without a verdict because runs failed
 *   3   EXIT_NO_REBOOT  experiment run, resume: "reset: reboot" returned and
 *                    the machine stayed up
 *   128+N            experiment run, resume: stopped by signal N (resume
 *                    continues)
 *
 * EXIT_USAGE is EXIT_ERROR under the name the option parsers use.
 */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,
    EXIT_ERROR = 2,
    EXIT_USAGE = EXIT_ERROR,
    EXIT_NO_REBOOT = 3,
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
int cli_store(int argc, char **argv);

#endif
