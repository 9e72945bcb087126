/*
 * The device under test of a campaign (docs/campaign.md, "A device under
 * test"), reached with the system's OpenSSH client: remote hooks, its
 * identity, the boot into a variant's kernel and the wait until it answers
 * again, and the `netab server` netab starts on it and stops at the end.
 *
 * Every ssh call runs as a child with a deadline (util/proc.h), in batch
 * mode with a connect timeout and server-alive probes, over one shared
 * ControlMaster connection, so nothing here can hang on a dead DUT. The
 * argument vector is built here and nowhere else; the remote command is one
 * string in which every value is single-quoted for the remote shell.
 *
 * Errors follow libnetab's convention: 0 or a negative errno with a
 * sentence in (err, errlen).
 */
#ifndef NETAB_CAMPAIGN_DUT_H
#define NETAB_CAMPAIGN_DUT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment/experiment.h"
#include "util/err.h"
#include "util/proc.h"

/* Seconds one ssh call other than a hook or a boot may take (identity, probes, start, stop). */
#define DUT_SSH_CALL_S 30.0
/* ssh's own connect timeout, seconds. */
#define DUT_CONNECT_TIMEOUT_S 10
/* A netab server must answer a hello within this many milliseconds. */
#define DUT_PROBE_MS 3000
/* The longest identity text kept (the default composite identity is a few lines). */
#define DUT_IDENTITY_MAX 4096
/* How often a booting DUT is polled, seconds. */
#define DUT_POLL_S 1.0

struct dut {
    const struct exp_dut *cfg; /* borrowed */
    char ssh[PATH_MAX];        /* the ssh client found in PATH */
    char **opts;               /* dut.ssh_opts split shell-like; owned, may be NULL */
    char ctl_dir[96];          /* this campaign's ControlPath directory (dut_ctl.h); "" if none */
    char host[256];            /* the address netab run targets */
    uint16_t port;
    char pidfile[96];                  /* on the DUT: the server netab started there */
    bool started;                      /* netab started a server on the DUT */
    const volatile sig_atomic_t *stop; /* non-zero: a signal asked to stop */
    /* What a user watching wants to know (a boot, the DUT back); may be NULL. */
    void (*say)(const char *msg, const void *arg);
    const void *say_arg;
    bool need_server; /* this run targets the DUT's netab server (no -c of its own) */
    int unreachable;  /* runs in a row whose DUT did not answer within boot_timeout */
    bool down;        /* several DUTs: it stopped answering; its remaining runs wait for resume */
    /*
     * duts: the DUT's name hashed into 6 hex digits ("" for dut:), a suffix of
     * ctl_dir and pidfile so that several DUTs (even on one file system, or
     * one port) never share a ControlPath or a server's pid file.
     */
    char tag[10];
};

/* A campaign stops after this many runs in a row found the DUT not answering. */
#define DUT_MAX_UNREACHABLE 3

/*
 * The single-quoted form of s for a POSIX shell ('it'\''s'): the remote end
 * of ssh sees exactly s. Caller has ownership; NULL on ENOMEM.
 */
char *dut_quote(const char *s);

/*
 * The one remote command string for cmd with env ("NAME=value" strings,
 * NULL-terminated, may be NULL): "env NAME='value' ... /bin/sh -c 'cmd'",
 * so it means the same whatever the remote user's login shell is. Caller
 * has ownership; NULL on ENOMEM.
 */
char *dut_remote_command(const char *cmd, char *const env[]);

/*
 * The argument vector of one ssh call: ssh, the user's ssh_opts first (ssh
 * keeps the first value of an option, so they override netab's), then
 * BatchMode, ConnectTimeout, ServerAlive*, ControlMaster/ControlPath/
 * ControlPersist (when ctl_dir is set), "--", the destination and the
 * remote command; remote NULL gives "-O exit" instead (ending the shared
 * connection). Strings are copies (exp_argv_free()). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int dut_ssh_argv(const struct dut *d, const char *remote, char ***argv);

/*
 * Prepares d for cfg: finds ssh in PATH, splits ssh_opts, creates the
 * ControlPath directory, works out the server address (dut.server or the
 * destination's host) and port, and the remote pid file name (one per
 * experiment id). Returns 0, -ENOENT without an ssh client, or another
 * negative errno.
 */
NB_MUST_CHECK int dut_open(struct dut *d, const struct exp_dut *cfg, int64_t experiment_id,
                           const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* Stops the server netab started (if any), closes the shared connection, removes ctl_dir. */
void dut_close(struct dut *d);

/*
 * Runs cmd on the DUT with env (may be NULL), at most timeout_s seconds.
 * Returns like proc_run(); r holds the ssh child's outcome (exit status 255
 * is ssh's own failure).
 */
NB_MUST_CHECK int dut_run(struct dut *d, const char *cmd, char *const env[], double timeout_s,
                          struct proc_result *r, char *err, size_t errlen);

/*
 * The DUT's identity: stdout of dut.identity or of `<netab> env --identity`
 * (EXP_DUT_IDENTITY_ARGS), trailing blanks removed, into out. Returns 0,
 * -EHOSTUNREACH when ssh failed (the DUT may be down), -EIO when the command
 * failed or printed nothing (or more than len - 1 bytes), -EINTR; the
 * reason in err.
 */
NB_MUST_CHECK int dut_identity(struct dut *d, char *out, size_t len, char *err, size_t errlen);

/*
 * Makes sure a netab server answers a hello at the DUT's address: when none
 * does and dut.start_server is set, starts `<netab> server -D` there (pid
 * file d->pidfile) and waits for it. Returns 0 or -EHOSTDOWN with why.
 */
NB_MUST_CHECK int dut_server_ready(struct dut *d, char *err, size_t errlen);

/* What dut_prepare_run() decided. */
enum dut_verdict { DUT_READY, DUT_FAILED, DUT_INTERRUPTED };

/*
 * Gets the DUT ready for one run of variant v: reads its identity; boots it
 * with v->boot (env passed) when reboot is set or the identity does not
 * match v->expect; waits up to dut.boot_timeout until ssh works and (with
 * d->need_server) its server answers; reads the identity again and requires
 * the match. A DUT whose ssh does not answer at first (a crash during an
 * earlier boot) is waited for in the same way; an identity command that
 * fails while ssh works fails the run at once. identity receives the final identity; why the reason
 * of DUT_FAILED, naming both identities on a mismatch. Returns 0 with
 * *verdict set, or -ENOMEM.
 */
NB_MUST_CHECK int dut_prepare_run(struct dut *d, const struct exp_variant *v, bool reboot,
                                  char *const env[], char *identity, size_t idlen,
                                  enum dut_verdict *verdict, char *why, size_t whylen);

#endif
