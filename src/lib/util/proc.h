/*
 * Running a child process with a deadline and capturing its output: the
 * measured runs (`netab run --json`, an external benchmark) and the shell
 * hooks (--setup, --teardown, --prepare).
 *
 * The child gets its own process group, so a shell command's own children
 * are killed with it when the deadline passes: SIGTERM to the group, then
 * SIGKILL two seconds later. Its stdin is /dev/null. Nothing here can hang:
 * every wait is bounded by the deadline. Of its stderr only the tail is
 * kept, except that a sanitizer report (from an ASan/UBSan build) and what
 * follows it are passed on to this process's stderr, so none is lost.
 */
#ifndef NETAB_UTIL_PROC_H
#define NETAB_UTIL_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define PROC_ERR_TAIL 512
#define PROC_OUT_CAP (64u << 20) /* stdout beyond 64 MiB is dropped and flagged */

struct proc_result {
    char *out; /* everything the child wrote to stdout, NUL-terminated; owned */
    size_t out_len;
    bool out_truncated;
    char err_tail[PROC_ERR_TAIL]; /* the last bytes of stderr, NUL-terminated */
    int status;                   /* waitpid() status; valid unless timed_out/interrupted */
    bool timed_out;               /* killed because the deadline passed */
    bool interrupted;             /* killed because *stop became non-zero */
    double seconds;               /* wall time from start to exit */
    bool sanitizer_report;        /* its stderr had an ASan/UBSan report, passed on to ours */
};

/*
 * Starts argv[0] (a path, not searched in PATH) with argv, waits at most
 * timeout_s seconds, captures stdout and the tail of stderr into r. When stop
 * is not NULL and becomes non-zero (a signal handler sets it), the child is
 * killed and r->interrupted is set. Returns 0 when the child ran (whatever
 * its exit status) or a negative errno when it could not be started, with a
 * sentence in err. Free r with proc_result_free() in both cases.
 */
NB_MUST_CHECK int proc_run(char *const argv[], double timeout_s, const volatile sig_atomic_t *stop,
                           struct proc_result *r, char *err, size_t errlen);

/*
 * proc_run() with extra_env ("NAME=value" strings, NULL-terminated; NULL for
 * none) added to the child's environment, replacing inherited variables of
 * the same names. This process's environment is not changed.
 */
NB_MUST_CHECK int proc_run_env(char *const argv[], char *const extra_env[], double timeout_s,
                               const volatile sig_atomic_t *stop, struct proc_result *r, char *err,
                               size_t errlen);

/* Runs cmd with /bin/sh -c; otherwise like proc_run(). */
NB_MUST_CHECK int proc_run_shell(const char *cmd, double timeout_s,
                                 const volatile sig_atomic_t *stop, struct proc_result *r,
                                 char *err, size_t errlen);

/* proc_run_shell() with proc_run_env()'s extra environment. */
NB_MUST_CHECK int proc_run_shell_env(const char *cmd, char *const extra_env[], double timeout_s,
                                     const volatile sig_atomic_t *stop, struct proc_result *r,
                                     char *err, size_t errlen);

/*
 * Describes why r is not a clean exit 0 in one sentence ("exit status 1:
 * <last stderr line>", "killed by signal 9", "timed out after 30 s"); an
 * empty string when it is.
 */
void proc_describe_failure(const struct proc_result *r, double timeout_s, char *buf, size_t len);

void proc_result_free(struct proc_result *r);

#endif
