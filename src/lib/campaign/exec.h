/*
 * One measured run, the same for every campaign front end (`netab experiment`
 * and `netab compare`): the variant's setup, the campaign's prepare, the CPU
 * settings, the measured command with its deadline, the CPU settings put
 * back, and the variant's teardown. Each step is a child process in its own
 * process group (util/proc.h), killed with its children at its deadline.
 */
#ifndef NETAB_CAMPAIGN_EXEC_H
#define NETAB_CAMPAIGN_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "envcap/cpuctl.h"
#include "util/err.h"

/* Shell hooks (setup, prepare, teardown, the reboot command) get this long. */
#define EXEC_HOOK_TIMEOUT_S 600.0
/* An external measuring command (netab compare --cmd) gets this long unless told otherwise. */
#define EXEC_CMD_DEADLINE_S 600.0

struct dut;

struct exec_step {
    const char *setup, *prepare, *teardown;             /* shell commands; NULL = none */
    bool setup_on_dut, prepare_on_dut, teardown_on_dut; /* run over ssh on dut instead */
    struct dut *dut;                                    /* the device under test; NULL = none */
    char *const *env; /* "NAME=value" strings every hook gets (NETAB_VARIANT, ...); may be NULL */
    int cpus, max_freq_mhz;            /* CPU-constrained mode; 0 = unconstrained */
    struct cpuctl_saved *saved;        /* where CPU changes are recorded; NULL without */
    char *const *argv;                 /* `netab run --json`: argv[0] is a path */
    const char *shell;                 /* or, when argv is NULL, an external command */
    double deadline;                   /* seconds the measured command may take */
    const volatile sig_atomic_t *stop; /* becomes non-zero to cancel; may be NULL */
};

enum exec_status { EXEC_OK, EXEC_FAILED, EXEC_INTERRUPTED };

struct exec_outcome {
    enum exec_status status;
    char why[NB_ERRLEN * 4]; /* why it failed or was interrupted; "" when ok */
    char *out;               /* the measured command's stdout, NUL-terminated; owned, may be NULL */
    size_t out_len;
    int exit_code;  /* of the measured command; -1 unless it exited by itself */
    double seconds; /* wall time of the measured command */
};

/*
 * Runs step s. Setup and prepare are cancelled by *stop; teardown always
 * runs to its end, also after a failed setup, so the machine is left clean.
 * The first failure decides o->why ("setup failed: exit status 3: ...",
 * "netab run reported: ...", "timed out after 64 s"). A `netab run` child
 * is judged by its exit status and its JSON document's "error"; an external
 * command by its exit status alone. Returns 0 (whatever the outcome) or
 * -ENOMEM; free o with exec_outcome_free() in both cases.
 */
NB_MUST_CHECK int exec_run(const struct exec_step *s, struct exec_outcome *o);

void exec_outcome_free(struct exec_outcome *o);

#endif
