/*
 * The device under test over OpenSSH (dut.h): argument vectors, quoting,
 * identity, server start and stop, and the boot-and-verify of each run.
 */
#include "campaign/dut.h"
#include "campaign/dut_ctl.h"

#include <errno.h>
#include <arpa/inet.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/probe.h"
#include "proto/server.h"
#include "util/clock.h"
#include "util/pattern.h"

char *dut_quote(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4); /* close, an escaped quote, reopen */
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* Appends s to the growing string *buf (length *len); false on ENOMEM. */
static bool append(char **buf, size_t *len, const char *s)
{
    size_t n = strlen(s);
    char *p = realloc(*buf, *len + n + 1);
    if (!p)
        return false;
    memcpy(p + *len, s, n + 1);
    *buf = p;
    *len += n;
    return true;
}

/* Appends "NAME='value' " for one "NAME=value" string. */
static bool append_assignment(char **buf, size_t *len, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return true; /* not an assignment: nothing to pass */
    char name[128];
    snprintf(name, sizeof(name), "%.*s=", (int)(eq - kv), kv);
    char *q = dut_quote(eq + 1);
    bool ok = q && append(buf, len, name) && append(buf, len, q) && append(buf, len, " ");
    free(q);
    return ok;
}

char *dut_remote_command(const char *cmd, char *const env[])
{
    char *buf = NULL, *q = dut_quote(cmd);
    size_t len = 0;
    bool ok = q && append(&buf, &len, "env ");
    for (size_t i = 0; ok && env && env[i]; i++)
        ok = append_assignment(&buf, &len, env[i]);
    ok = ok && append(&buf, &len, "/bin/sh -c ") && append(&buf, &len, q);
    free(q);
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

int dut_ssh_argv(const struct dut *d, const char *remote, char ***argv)
{
    size_t nopts = 0;
    while (d->opts && d->opts[nopts])
        nopts++;
    char **a = calloc(nopts + 24, sizeof(char *));
    if (!a)
        return -ENOMEM;
    size_t k = 0;
    char ct[64], cp[128];
    snprintf(ct, sizeof(ct), "ConnectTimeout=%d", DUT_CONNECT_TIMEOUT_S);
    snprintf(cp, sizeof(cp), "ControlPath=%s/%%C", d->ctl_dir);
    const char *mine[] = {"-o", "BatchMode=yes",         "-o", ct,
                          "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"};
    const char *ctl[] = {"-o", "ControlMaster=auto", "-o", cp, "-o", "ControlPersist=60"};
    bool ok = (a[k++] = strdup(d->ssh)) != NULL;
    for (size_t i = 0; ok && i < nopts; i++)
        ok = (a[k++] = strdup(d->opts[i])) != NULL;
    for (size_t i = 0; ok && i < sizeof(mine) / sizeof(mine[0]); i++)
        ok = (a[k++] = strdup(mine[i])) != NULL;
    for (size_t i = 0; ok && *d->ctl_dir && i < sizeof(ctl) / sizeof(ctl[0]); i++)
        ok = (a[k++] = strdup(ctl[i])) != NULL;
    if (ok && !remote) /* the master's "-O exit" */
        ok = (a[k++] = strdup("-O")) && (a[k++] = strdup("exit"));
    ok = ok && (a[k++] = strdup("--")) && (a[k++] = strdup(d->cfg->ssh)) &&
         (!remote || (a[k++] = strdup(remote)));
    if (!ok) {
        exp_argv_free(a);
        return -ENOMEM;
    }
    *argv = a;
    return 0;
}

/* The first executable "ssh" in PATH into path; false if there is none. */
static bool find_ssh(char *path, size_t len)
{
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof(dirs), "%s", env && *env ? env : "/usr/bin:/bin");
    for (char *save, *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
        if (snprintf(path, len, "%s/ssh", *dir ? dir : ".") < (int)len && !access(path, X_OK))
            return true;
    return false;
}

/* The host part of an OpenSSH destination: user@host, [v6]:... and ssh://user@host:port. */
static void destination_host(const char *dest, char *host, size_t len)
{
    const char *h = dest;
    if (!strncmp(h, "ssh://", 6))
        h += 6;
    const char *at = strrchr(h, '@');
    if (at)
        h = at + 1;
    if (*h == '[') {
        const char *end = strchr(h, ']');
        snprintf(host, len, "%.*s", end ? (int)(end - h - 1) : (int)strlen(h + 1), h + 1);
        return;
    }
    /* A single colon after ssh:// separates the port; IPv6 literals have more than one. */
    const char *colon = strchr(h, ':');
    bool port = colon && !strchr(colon + 1, ':') && !strncmp(dest, "ssh://", 6);
    snprintf(host, len, "%.*s", port ? (int)(colon - h) : (int)strlen(h), h);
}

int dut_open(struct dut *d, const struct exp_dut *cfg, int64_t experiment_id,
             const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    memset(d, 0, sizeof(*d)); /* d->cfg stays NULL until it is ready: dut_close() then skips it */
    d->stop = stop;
    if (!find_ssh(d->ssh, sizeof(d->ssh)))
        return err_set(err, errlen, ENOENT,
                       "dut: no OpenSSH client 'ssh' in PATH (Debian: apt-get install "
                       "openssh-client)");
    size_t n;
    char why[NB_ERRLEN];
    int rc = cfg->ssh_opts ? exp_split_words(cfg->ssh_opts, &d->opts, &n, why, sizeof(why)) : 0;
    if (rc)
        return err_set(err, errlen, -rc, "dut: ssh_opts: %s", why);
    if (cfg->server)
        snprintf(d->host, sizeof(d->host), "%s", cfg->server);
    else
        destination_host(cfg->ssh, d->host, sizeof(d->host));
    d->port = cfg->port ? (uint16_t)cfg->port : SERVER_DEFAULT_PORT;
    if (cfg->name) {
        uint32_t h = 2166136261u; /* FNV-1a: short, stable across runs and resumes */
        for (const char *p = cfg->name; *p; p++)
            h = (h ^ (uint8_t)*p) * 16777619u;
        snprintf(d->tag, sizeof(d->tag), "-%06x", h & 0xffffffu);
    }
    snprintf(d->pidfile, sizeof(d->pidfile), "/tmp/netab-dut-%lld-%u%s.pid",
             (long long)experiment_id, d->port, d->tag);
    bool existed;
    if ((rc = dut_ctl_open(d, experiment_id, &existed, err, errlen))) {
        exp_argv_free(d->opts);
        d->opts = NULL;
        return rc;
    }
    d->cfg = cfg;
    /* A runner killed with SIGKILL left its shared connection here: end it, start afresh. */
    if (existed)
        dut_ctl_exit(d);
    return 0;
}

int dut_run(struct dut *d, const char *cmd, char *const env[], double timeout_s,
            struct proc_result *r, char *err, size_t errlen)
{
    char *remote = dut_remote_command(cmd, env), **argv = NULL;
    memset(r, 0, sizeof(*r));
    if (!remote || dut_ssh_argv(d, remote, &argv)) {
        free(remote);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    int rc = proc_run(argv, timeout_s, d->stop, r, err, errlen);
    free(remote);
    exp_argv_free(argv);
    return rc;
}

/*
 * Runs cmd on the DUT; on failure writes "<what> on <dest>: <reason>" into
 * err and returns -EHOSTUNREACH when ssh itself failed (its exit status
 * 255, a timeout, a signal: the DUT may be down or booting), -EIO when the
 * command ran and failed, -EINTR when a signal asked to stop, or -ENOMEM.
 * With out, the command's stdout is handed over on success.
 */
static int run_checked(struct dut *d, const char *what, const char *cmd, double timeout_s,
                       char **out, char *err, size_t errlen)
{
    struct proc_result r;
    char e[NB_ERRLEN * 2] = "";
    int rc = dut_run(d, cmd, NULL, timeout_s, &r, e, sizeof(e));
    if (!rc)
        proc_describe_failure(&r, timeout_s, e, sizeof(e));
    bool ran = !rc && !r.timed_out && !r.interrupted && WIFEXITED(r.status) &&
               WEXITSTATUS(r.status) != 255;
    bool interrupted = !rc && r.interrupted;
    if (!rc && !*e && out) {
        *out = r.out;
        r.out = NULL;
    }
    proc_result_free(&r);
    if (rc == -ENOMEM)
        return err_set(err, errlen, ENOMEM, "out of memory");
    if (!rc && !*e)
        return 0;
    err_set(err, errlen, EIO, "%s on %s: %s", what, d->cfg->ssh, e);
    return interrupted ? -EINTR : ran ? -EIO : -EHOSTUNREACH;
}

/* "<netab> ARGS": dut.netab or netab from the DUT's PATH. */
static void netab_command(const struct dut *d, const char *args, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s", d->cfg->netab ? d->cfg->netab : "netab", args);
}

/*
 * `netab env --identity`, with --addr of the DUT's test address (numeric, as
 * the controller resolves dut.server or the ssh host) so that the identity
 * names the module of the interface the tests reach; without an address it
 * describes the host alone.
 */
static void default_identity_command(const struct dut *d, char *cmd, size_t len)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char ip[INET6_ADDRSTRLEN + 8] = "", args[128];
    if (!getaddrinfo(d->host, NULL, &hints, &ai) && ai)
        getnameinfo(ai->ai_addr, ai->ai_addrlen, ip, sizeof(ip), NULL, 0, NI_NUMERICHOST);
    if (ai)
        freeaddrinfo(ai);
    /* A link-local address's "%scope" names the controller's interface: describe the host alone. */
    char *scope = strchr(ip, '%');
    if (scope)
        *ip = '\0';
    if (*ip)
        snprintf(args, sizeof(args), "%s --addr '%s'", EXP_DUT_IDENTITY_ARGS, ip);
    else
        snprintf(args, sizeof(args), "%s", EXP_DUT_IDENTITY_ARGS);
    netab_command(d, args, cmd, len);
}

int dut_identity(struct dut *d, char *out, size_t len, char *err, size_t errlen)
{
    char cmd[1024], *text = NULL;
    if (d->cfg->identity)
        snprintf(cmd, sizeof(cmd), "%s", d->cfg->identity);
    else
        default_identity_command(d, cmd, sizeof(cmd));
    int rc = run_checked(d, "reading the DUT's identity", cmd, DUT_SSH_CALL_S, &text, err, errlen);
    if (rc)
        return rc;
    size_t n = strlen(text);
    while (n && strchr(" \t\r\n", text[n - 1]))
        n--;
    text[n] = '\0';
    if (!n)
        rc = err_set(err, errlen, EIO, "the DUT's identity command '%.200s' printed nothing", cmd);
    else if (n >= len)
        rc = err_set(err, errlen, EIO,
                     "the DUT's identity command '%.200s' printed more than %zu bytes", cmd,
                     len - 1);
    else
        snprintf(out, len, "%s", text);
    free(text);
    return rc;
}

/* Sleeps s seconds in short steps; false once a signal asked to stop. */
static bool pause_for(const struct dut *d, double s)
{
    uint64_t until = clock_now_ns() + (uint64_t)(s * 1e9);
    while (!(d->stop && *d->stop) && clock_now_ns() < until) {
        struct timespec ts = {0, 50000000L};
        nanosleep(&ts, NULL);
    }
    return !(d->stop && *d->stop);
}

int dut_server_ready(struct dut *d, char *err, size_t errlen)
{
    char why[NB_ERRLEN];
    if (!probe_server(d->host, d->port, DUT_PROBE_MS, why, sizeof(why)))
        return 0;
    if (!d->cfg->start_server)
        return err_set(err, errlen, EHOSTDOWN,
                       "no netab server answers at %s port %u (%s) and dut.start_server is false",
                       d->host, d->port, why);
    char args[256], cmd[512];
    snprintf(args, sizeof(args), "server -D -p %u --pidfile %s", d->port, d->pidfile);
    netab_command(d, args, cmd, sizeof(cmd));
    int rc =
        run_checked(d, "starting netab server on the DUT", cmd, DUT_SSH_CALL_S, NULL, err, errlen);
    if (rc)
        return rc == -ENOMEM ? rc : -EHOSTDOWN;
    d->started = true;
    /* It binds before it detaches, so it should answer at once; allow it a few seconds. */
    for (int i = 0; i < 10; i++) {
        if (!probe_server(d->host, d->port, DUT_PROBE_MS, why, sizeof(why)))
            return 0;
        if (!pause_for(d, 0.5))
            break;
    }
    return err_set(err, errlen, EHOSTDOWN,
                   "netab started '%s' on the DUT, but no netab server answers at %s port %u: %s",
                   cmd, d->host, d->port, why);
}

void dut_close(struct dut *d)
{
    if (!d->cfg)
        return;
    char e[NB_ERRLEN];
    /* Also after Ctrl-C: the server netab started is stopped, within DUT_SSH_CALL_S. */
    d->stop = NULL;
    if (d->started) {
        /* Only the server this campaign started, by its pid file: never a broad kill. */
        char cmd[512];
        /* A pid file that survived a reboot may name another process now: check it is netab. */
        /* Waits (5 s at most) until it is gone: a campaign that ended left nothing running. */
        snprintf(cmd, sizeof(cmd),
                 "p=$(cat %s 2>/dev/null) && grep -qa netab /proc/$p/cmdline && kill $p && "
                 "i=0 && while kill -0 $p 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; "
                 "i=$((i+1)); done; rm -f %s",
                 d->pidfile, d->pidfile);
        (void)run_checked(d, "stopping netab server on the DUT", cmd, DUT_SSH_CALL_S, NULL, e,
                          sizeof(e));
    }
    /* The shared connection outlives its last user by ControlPersist: end it now. */
    dut_ctl_close(d);
    exp_argv_free(d->opts);
    d->opts = NULL;
    d->cfg = NULL;
}

/*
 * identity for a message: the default identity has one fact per line,
 * shown as "release: X; version: ..." so that progress lines and a run's
 * reason stay one line. The recorded identity keeps its newlines.
 */
static void one_line(const char *identity, char *out, size_t len)
{
    size_t u = 0;
    for (const char *p = identity; *p && u + 3 < len; p++) {
        if (*p == '\n') {
            out[u++] = ';';
            out[u++] = ' ';
        } else {
            out[u++] = *p;
        }
    }
    out[u] = '\0';
}

/*
 * Does identity match v's expect (true when it has none)? ^ and $ also match
 * at each line's start and end, since the default identity is one
 * "key: value" line per fact. Returns 0, or -ENOMEM or another negative
 * errno (the match reached a limit of util/pattern.h) with why saying so:
 * such a run fails rather than boot on an answer nobody has.
 */
static int expect_matches(const struct exp_variant *v, const char *identity, bool *match, char *why,
                          size_t whylen)
{
    *match = true;
    if (!v->expect)
        return 0;
    struct pattern *p;
    size_t m[4];
    char e[NB_ERRLEN];
    int rc = pattern_compile(&p, v->expect, PATTERN_LINES, e, sizeof(e));
    if (!rc) {
        rc = pattern_find(p, identity, strlen(identity), 0, m, e, sizeof(e));
        pattern_free(p);
    }
    if (rc < 0)
        return err_set(why, whylen, -rc, "variant %s's expect could not be checked: %s", v->name,
                       e);
    *match = rc == 1;
    return 0;
}

static void say(const struct dut *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct dut *d, const char *fmt, ...)
{
    if (!d->say)
        return;
    char msg[NB_ERRLEN * 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    d->say(msg, d->say_arg);
}

/* The end of dut.boot_timeout seconds counted from t0 (clock_now_ns()). */
static uint64_t boot_deadline(const struct dut *d, uint64_t t0)
{
    return t0 + (uint64_t)(d->cfg->boot_timeout * 1e9);
}

/*
 * Polls until ssh answers and (when the runs target it) the DUT's netab
 * server answers a hello, until the clock reaches `until` (polling at least
 * once). Seeing the DUT go down is not required: a fast kexec may come and
 * go between two polls. Returns 0, -ETIMEDOUT with the last reason in why,
 * or -EINTR when a signal asked to stop.
 */
static int wait_up(struct dut *d, uint64_t until, char *why, size_t len)
{
    char last[NB_ERRLEN * 2] = "nothing tried";
    do {
        if (!run_checked(d, "ssh", "true", DUT_SSH_CALL_S, NULL, last, sizeof(last)) &&
            (!d->need_server || !dut_server_ready(d, last, sizeof(last)))) {
            d->unreachable = 0;
            return 0;
        }
        if (d->stop && *d->stop)
            return -EINTR;
    } while (clock_now_ns() < until && pause_for(d, DUT_POLL_S));
    if (d->stop && *d->stop)
        return -EINTR;
    d->unreachable++;
    return err_set(why, len, ETIMEDOUT, "the DUT did not answer within %g s (dut.boot_timeout): %s",
                   d->cfg->boot_timeout, last);
}

/*
 * Runs v's boot on the DUT, for at most dut.boot_timeout seconds: the boot
 * and the wait after it share that deadline. An ssh that loses its
 * connection (exit status 255, or killed by ServerAlive or the deadline) is
 * what a reboot looks like, so only an exit status of the command itself
 * (1..254) fails the boot.
 */
static int boot(struct dut *d, const struct exp_variant *v, char *const env[], char *why,
                size_t len)
{
    struct proc_result r;
    char e[NB_ERRLEN * 2] = "";
    double limit = d->cfg->boot_timeout;
    say(d, "dut: booting %s into variant %s: %s", d->cfg->ssh, v->name, v->boot);
    int rc = dut_run(d, v->boot, env, limit, &r, e, sizeof(e));
    if (!rc && WIFEXITED(r.status) && WEXITSTATUS(r.status) && WEXITSTATUS(r.status) != 255 &&
        !r.timed_out && !r.interrupted)
        proc_describe_failure(&r, limit, e, sizeof(e));
    bool interrupted = !rc && r.interrupted;
    proc_result_free(&r);
    if (rc == -ENOMEM)
        return rc;
    if (interrupted)
        return -EINTR;
    if (*e)
        return err_set(why, len, EIO, "boot of variant %s failed: %s (command '%.200s')", v->name,
                       e, v->boot);
    return 0;
}

int dut_prepare_run(struct dut *d, const struct exp_variant *v, bool reboot, char *const env[],
                    char *identity, size_t idlen, enum dut_verdict *verdict, char *why,
                    size_t whylen)
{
    char before[DUT_IDENTITY_MAX] = "", e[NB_ERRLEN * 2];
    *verdict = DUT_FAILED;
    *identity = '\0';
    int rc = dut_identity(d, before, sizeof(before), e, sizeof(e));
    if (rc == -ENOMEM)
        return rc;
    if (rc == -EIO || rc == -EINTR) {
        /* ssh works but the command failed: waiting for a boot would not change that. */
        *verdict = rc == -EINTR ? DUT_INTERRUPTED : DUT_FAILED;
        snprintf(why, whylen, "%s", e);
        return 0;
    }
    if (rc) {
        say(d, "dut: %s; waiting up to %g s for it", e, d->cfg->boot_timeout);
        /* Down, perhaps still booting after a crash of ours: wait for it as after a boot. */
        rc = wait_up(d, boot_deadline(d, clock_now_ns()), why, whylen);
        if (!rc)
            rc = dut_identity(d, before, sizeof(before), why, whylen);
        if (rc) {
            *verdict = rc == -EINTR ? DUT_INTERRUPTED : DUT_FAILED;
            return rc == -ENOMEM ? rc : 0;
        }
    }
    bool match;
    if ((rc = expect_matches(v, before, &match, why, whylen))) {
        *verdict = DUT_FAILED;
        return rc == -ENOMEM ? rc : 0;
    }
    char shown_before[DUT_IDENTITY_MAX], shown_after[DUT_IDENTITY_MAX];
    one_line(before, shown_before, sizeof(shown_before));
    if (reboot || !match) {
        if (!v->boot) {
            snprintf(why, whylen,
                     "the DUT's identity '%.300s' does not match variant %s's expect '%.200s', "
                     "and the variant has no boot to reach it",
                     shown_before, v->name, v->expect);
            return 0;
        }
        uint64_t t0 = clock_now_ns();
        rc = boot(d, v, env, why, whylen);
        if (!rc)
            rc = wait_up(d, boot_deadline(d, t0), why, whylen);
        char after[DUT_IDENTITY_MAX] = "";
        if (!rc)
            rc = dut_identity(d, after, sizeof(after), why, whylen);
        one_line(after, shown_after, sizeof(shown_after));
        if (!rc)
            say(d, "dut: %s is up %.1f s after its boot began; identity '%.200s'", d->cfg->ssh,
                (double)(clock_now_ns() - t0) / 1e9, shown_after);
        if (rc) {
            *verdict = rc == -EINTR ? DUT_INTERRUPTED : DUT_FAILED;
            return rc == -ENOMEM ? rc : 0;
        }
        if ((rc = expect_matches(v, after, &match, why, whylen))) {
            *verdict = DUT_FAILED;
            snprintf(identity, idlen, "%s", after);
            return rc == -ENOMEM ? rc : 0;
        }
        if (!match) {
            snprintf(why, whylen,
                     "after its boot the DUT's identity is '%.300s', which does not match variant "
                     "%s's expect '%.200s' (before the boot: '%.300s'); nothing was measured",
                     shown_after, v->name, v->expect, shown_before);
            snprintf(identity, idlen, "%s", after);
            return 0;
        }
        snprintf(before, sizeof(before), "%s", after);
    } else if (d->need_server && (rc = dut_server_ready(d, why, whylen))) {
        *verdict = d->stop && *d->stop ? DUT_INTERRUPTED : DUT_FAILED;
        return rc == -ENOMEM ? rc : 0;
    }
    snprintf(identity, idlen, "%s", before);
    *verdict = DUT_READY;
    return 0;
}
